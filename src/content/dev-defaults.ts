// Embedded defaults for `npm start`: the content repository behind the development OpenID
// provider (content-dev-oidc, loopback only, one fixed account "dev"). The client secret and the
// dev password are generated once and kept in var/dev-secrets.json (mode 0600, other services'
// entries preserved); nothing secret is printed in the curl lines.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../kernel/index.ts';
import { DEFAULT_LISTEN } from './config.ts';

export const DEV_SECRETS_FILE = 'dev-secrets.json';
export const DEV_OIDC_LISTEN = '127.0.0.1:18069';
export const DEV_CLIENT_ID = 'airlock-content-dev';

interface ContentDevSecrets {
  client_secret: string;
  dev_password: string;
}

/**
 * Prepares `varDir` and returns the environment of content-api and content-dev-oidc.
 *
 * @example
 * const { env, curl } = contentDevDefaults('var');
 */
export function contentDevDefaults(varDir: string): { env: Record<string, string>; curl: string[] } {
  const dir = resolve(varDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secretsPath = join(dir, DEV_SECRETS_FILE);
  const secrets = ensureSecrets(secretsPath);
  const publicUrl = `http://${DEFAULT_LISTEN}`;
  const env = {
    CONTENT_LISTEN: DEFAULT_LISTEN,
    CONTENT_PUBLIC_URL: publicUrl,
    CONTENT_OIDC_ISSUER: `http://${DEV_OIDC_LISTEN}`,
    CONTENT_OIDC_CLIENT_ID: DEV_CLIENT_ID,
    CONTENT_OIDC_CLIENT_SECRET: secrets.client_secret,
    CONTENT_DEV_OIDC_LISTEN: DEV_OIDC_LISTEN,
    CONTENT_DEV_OIDC_PASSWORD: secrets.dev_password,
    CONTENT_OWNER_ISSUE_REF: 'dev:issue-19',
    CONTENT_BLOCKED_PROGRAM_REF: 'dev:none',
  };
  const password = `$(node -p 'require(process.argv[1]).content.dev_password' '${secretsPath.replace(/'/g, `'\\''`)}')`;
  return {
    env,
    curl: [
      `# content: open ${publicUrl}/share/ in a browser and sign in as "dev" with password: echo ${password}`,
      `curl -sS ${publicUrl}/repository/api/-default-/public/repository/versions/1/probes/-ready-`,
      `curl -sS -o /dev/null -w '%{http_code} -> %{redirect_url}\\n' ${publicUrl}/share/`,
    ],
  };
}

function ensureSecrets(path: string): ContentDevSecrets {
  let all: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      all = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch {
      // The parser's message would quote the file, secrets and all.
      throw new TypeError(`Dev secrets file "${path}" is not JSON: remove it to regenerate`);
    }
  }
  const current = (typeof all['content'] === 'object' && all['content'] !== null ? all['content'] : {}) as Partial<ContentDevSecrets>;
  const content: ContentDevSecrets = {
    client_secret: typeof current.client_secret === 'string' ? current.client_secret : randomBytes(24).toString('base64url'),
    dev_password: typeof current.dev_password === 'string' ? current.dev_password : randomBytes(9).toString('base64url'),
  };
  writeFileAtomic(path, `${JSON.stringify({ ...all, content }, null, 2)}\n`, { mode: 0o600 });
  return content;
}
