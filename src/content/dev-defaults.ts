// Embedded defaults for `npm start`: the content repository behind the development OpenID
// provider (content-dev-oidc, loopback only, one fixed account "dev"). The client secret and the
// dev password are generated once and kept in var/dev-secrets.json (mode 0600, other services'
// entries preserved); nothing secret is printed in the curl lines.

import { randomBytes } from 'node:crypto';
import { ensureDevSecrets } from '../kernel/index.ts';
import { DEFAULT_LISTEN } from './config.ts';
import { DEV_GROUP } from './dev-oidc/provider.ts';

export const DEV_OIDC_LISTEN = '127.0.0.1:18069';
export const DEV_CLIENT_ID = 'airlock-content-dev';

const SECRET_NAMES = ['client_secret', 'dev_password'] as const;

/**
 * Prepares `varDir` and returns the environment of content-api and content-dev-oidc. The URLs
 * follow the addresses the operator's environment sets (npm start lets it win over these
 * defaults): with only CONTENT_LISTEN moved, the public URL, the redirect URI the dev provider
 * admits and the browser line move with it (npm start rewrites the curl lines to the
 * address bound); likewise the issuer with CONTENT_DEV_OIDC_LISTEN.
 *
 * @example
 * const { env, curl } = contentDevDefaults('var');
 */
export function contentDevDefaults(varDir: string, environment: NodeJS.ProcessEnv = process.env): { env: Record<string, string>; curl: string[] } {
  const { path: secretsPath, secrets } = ensureDevSecrets(varDir, 'content', SECRET_NAMES, (name) => randomBytes(name === 'client_secret' ? 24 : 9).toString('base64url'));
  const listen = environment['CONTENT_LISTEN'] || DEFAULT_LISTEN;
  const devListen = environment['CONTENT_DEV_OIDC_LISTEN'] || DEV_OIDC_LISTEN;
  const publicUrl = environment['CONTENT_PUBLIC_URL'] || `http://${listen}`;
  const env = {
    CONTENT_LISTEN: listen,
    CONTENT_PUBLIC_URL: publicUrl,
    CONTENT_OIDC_ISSUER: environment['CONTENT_OIDC_ISSUER'] || `http://${devListen}`,
    CONTENT_OIDC_CLIENT_ID: DEV_CLIENT_ID,
    CONTENT_OIDC_CLIENT_SECRET: secrets.client_secret,
    CONTENT_DEV_OIDC_LISTEN: devListen,
    CONTENT_DEV_OIDC_PASSWORD: secrets.dev_password,
    CONTENT_COMPANY_HOME_WRITERS: DEV_GROUP,
    CONTENT_OWNER_ISSUE_REF: 'dev:issue-19',
    CONTENT_BLOCKED_PROGRAM_REF: 'dev:none',
  };
  const password = `$(node -p 'require(process.argv[1]).content.dev_password' '${secretsPath.replace(/'/g, `'\\''`)}')`;
  return {
    env,
    curl: [
      `# content: open ${publicUrl}/share/ in a browser and sign in as "dev" with password: echo ${password}`,
      // The listener's default address: npm start rewrites it to the one it bound (port 0 too).
      `curl -sS http://${DEFAULT_LISTEN}/repository/api/-default-/public/repository/versions/1/probes/-ready-`,
      `curl -sS -o /dev/null -w '%{http_code} -> %{redirect_url}\\n' http://${DEFAULT_LISTEN}/share/`,
    ],
  };
}
