// content-api: the content repository (seed 002): the share UI, the OIDC bridge and the
// repository API on one loopback listener. Configuration comes from the environment (see
// --help); --listen overrides CONTENT_LISTEN.

import { parseArgs } from 'node:util';
import { runService } from '../kernel/index.ts';
import { CONTENT_SPEC, loadContentConfig } from './config.ts';
import { createContentService } from './service.ts';

const HELP = `Usage: content-api [--listen HOST:PORT] [--help]

Serves the content repository on loopback: the share UI (/share/), the OIDC bridge
(/auth/oidc/login, /auth/oidc/callback, /auth/oidc/logout) and the repository API, Alfresco's
public REST API with "alfresco" renamed "repository"
(/repository/api/-default-/public/repository/versions/1/..., search at
/repository/api/-default-/public/search/versions/1/search). See docs/content.md.

Environment:
${Object.entries(CONTENT_SPEC).map(([name, spec]) => `  ${name}${spec.type === 'secret' ? ` (or ${name}_FILE)` : ''}\n      ${spec.description}${'default' in spec ? ` (default ${String(spec.default)})` : ''}`).join('\n')}

Prints one JSON "listening" line on stdout; logs JSON lines on stderr; drains and exits 0 on
SIGTERM or SIGINT. Exit codes: 0 stopped cleanly, 2 configuration or address error.
`;

await runService(async () => {
  const { values } = parseArgs({ options: { listen: { type: 'string' } }, strict: true });
  return createContentService(loadContentConfig(process.env, values.listen === undefined ? {} : { listen: values.listen }));
}, { help: HELP });
