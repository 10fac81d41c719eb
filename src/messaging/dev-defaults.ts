// Embedded defaults for `npm start`: the embedded bus on node:sqlite unless NATS_URL is set in
// the environment (then the real nats-server is used), a generated owner-readback token kept in
// var/dev-secrets.json (mode 0600, other services' entries preserved), and one working curl line
// per listener. The token never appears in a curl line: each reads it from the file when it runs.

import { randomBytes } from 'node:crypto';
import { ensureDevSecrets } from '../kernel/index.ts';
import { DEFAULT_API_LISTEN, DEFAULT_MAILBOX_LISTEN, DEFAULT_READBACK_LISTEN } from './config.ts';
import { API_STATUS_PATH, REVIEW_TRANSPORT_PATH } from './routes.ts';


export function messagingDevDefaults(varDir: string): { env: Record<string, string>; curl: string[] } {
  const { path: secretsPath, secrets } = ensureDevSecrets(varDir, 'messaging', ['owner_readback_api_token'], () => randomBytes(24).toString('base64url'));
  const token = secrets.owner_readback_api_token;
  const env: Record<string, string> = {
    MESSAGING_LISTEN: DEFAULT_API_LISTEN,
    MESSAGING_MAILBOX_LISTEN: DEFAULT_MAILBOX_LISTEN,
    MESSAGING_MAILBOX_URL: `http://${DEFAULT_MAILBOX_LISTEN}`,
    MESSAGING_OWNER_READBACK_LISTEN: DEFAULT_READBACK_LISTEN,
    OWNER_READBACK_API_TOKEN: token,
  };
  const bearer = `-H "Authorization: Bearer $(node -p 'require(process.argv[1]).messaging.owner_readback_api_token' '${secretsPath.replace(/'/g, `'\\''`)}')"`;
  return {
    env,
    curl: [
      `curl -sS -H 'Content-Type: application/json' -d '{"plan":"demo"}' http://${DEFAULT_MAILBOX_LISTEN}/api/v1/mailboxes/plan-studio-review/messages`,
      `curl -sS http://${DEFAULT_API_LISTEN}${API_STATUS_PATH}`,
      `curl -sS ${bearer} http://${DEFAULT_READBACK_LISTEN}${REVIEW_TRANSPORT_PATH}`,
    ],
  };
}
