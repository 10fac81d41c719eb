// content-dev-oidc: DEVELOPMENT ONLY. The OpenID provider `npm start` runs so a newcomer can log
// in to the share UI; loopback only, one fixed account. See src/content/dev-oidc/provider.ts.

import { parseArgs } from 'node:util';
import { AirlockError, createLogger, isAirlockError, logLevelFromEnv, readConfig, SERVICE_HELP_FOOTER } from '../kernel/index.ts';
import { startDevProvider } from './dev-oidc/provider.ts';

const HELP = `Usage: content-dev-oidc [--listen HOST:PORT] [--help]

DEVELOPMENT ONLY: a minimal OpenID provider on loopback with one fixed account ("dev"), for
npm start. It refuses any non-loopback address and any non-loopback redirect URI. Never run it
in production: point CONTENT_OIDC_ISSUER at your real provider instead.

Environment:
  CONTENT_DEV_OIDC_LISTEN      host:port (default 127.0.0.1:18069; --listen wins)
  CONTENT_DEV_OIDC_PASSWORD    the dev account's password (or CONTENT_DEV_OIDC_PASSWORD_FILE)
  CONTENT_OIDC_CLIENT_ID       the one client admitted
  CONTENT_OIDC_CLIENT_SECRET   its secret (or CONTENT_OIDC_CLIENT_SECRET_FILE)
  CONTENT_PUBLIC_URL           the repository's public URL (redirect URI <url>/auth/oidc/callback)
  CONTENT_OIDC_AUDIENCE        audience of the access tokens (default: the client id)

Prints one JSON "listening" line on stdout. Exit codes: 0 stopped, 2 configuration error.

${SERVICE_HELP_FOOTER}
`;

const SPEC = {
  CONTENT_DEV_OIDC_LISTEN: { type: 'listen', default: '127.0.0.1:18069', description: 'host:port' },
  CONTENT_DEV_OIDC_PASSWORD: { type: 'secret', required: true, description: 'the dev account password' },
  CONTENT_OIDC_CLIENT_ID: { type: 'string', required: true, description: 'the client id' },
  CONTENT_OIDC_CLIENT_SECRET: { type: 'secret', required: true, description: 'the client secret' },
  CONTENT_PUBLIC_URL: { type: 'url', required: true, description: 'the repository public URL' },
  CONTENT_OIDC_AUDIENCE: { type: 'string', description: 'access-token audience' },
} as const;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify({ help: HELP }, null, 2)}\n` : HELP);
  process.exit(0);
}
// Not a kernel service (runService): the same promises by hand. AIRLOCK_LOG_LEVEL is obeyed and a
// value naming no level refuses the start; with --json a failed start is one document on stdout.
const json = process.argv.includes('--json');
try {
  const level = logLevelFromEnv(process.env);
  if ('error' in level) throw new AirlockError('config_invalid', level.error);
  const { values } = parseArgs({ options: { listen: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
  const config = readConfig(SPEC, values.listen === undefined ? process.env : { ...process.env, CONTENT_DEV_OIDC_LISTEN: values.listen });
  const { server, issuer } = await startDevProvider({
    host: config.CONTENT_DEV_OIDC_LISTEN.host,
    port: config.CONTENT_DEV_OIDC_LISTEN.port,
    clientId: config.CONTENT_OIDC_CLIENT_ID,
    clientSecret: config.CONTENT_OIDC_CLIENT_SECRET,
    redirectUri: `${config.CONTENT_PUBLIC_URL}/auth/oidc/callback`,
    postLogoutRedirectUri: `${config.CONTENT_PUBLIC_URL}/auth/oidc/logged-out`,
    password: config.CONTENT_DEV_OIDC_PASSWORD,
    audience: config.CONTENT_OIDC_AUDIENCE ?? config.CONTENT_OIDC_CLIENT_ID,
  });
  createLogger({ name: 'content.dev-oidc', service: 'content' }).warn('DEVELOPMENT OpenID provider: loopback only, one fixed account, not for production', { issuer });
  process.stdout.write(`${JSON.stringify({ msg: 'listening', service: 'content', listener: 'dev-oidc', url: issuer })}\n`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (error) {
  const details = isAirlockError(error) ? error.details.map((d) => `\n  ${d}`).join('') : '';
  if (json) process.stdout.write(`${JSON.stringify({ ok: false, error: { code: isAirlockError(error) ? error.code : 'start_failed', message: (error as Error).message, details: isAirlockError(error) ? error.details : [] } }, null, 2)}\n`);
  process.stderr.write(`Cannot start: ${(error as Error).message}${details}\n`);
  process.exit(2);
}
