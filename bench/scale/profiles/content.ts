// The content repository (content-api) at scale. A business event is one upload: a small text
// file (about 150 bytes, its own content, so each is its own blob and its own indexed text) into
// one folder, "Inbox" under Company Home, as an integration that drops its documents in one
// place does: a node, its first version, its search-index row and two content_events rows. The
// service runs behind the development OpenID provider, started here; reads carry its access
// token (RFC 9068), as Alfresco's clients send one.

import { createHash, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createBlobStore } from '../../../src/content/blob-store.ts';
import { ROOT_NODE_ID, openContentDatabase } from '../../../src/content/database.ts';
import { DEV_ACCOUNT, DEV_GROUP, startDevProvider } from '../../../src/content/dev-oidc/provider.ts';
import { permissionPolicy, requirePermission } from '../../../src/content/permissions.ts';
import { createFolder, ensureSystemFolders } from '../../../src/content/repository.ts';
import type { Actor } from '../../../src/content/repository.ts';
import { uploadFile } from '../../../src/content/upload.ts';
import type { GrowOutcome, ReadRoute, ScaleProfile } from '../profile.ts';

const API = '/repository/api/-default-/public/repository/versions/1';
const SEARCH = '/repository/api/-default-/public/search/versions/1/search';
const CLIENT = { id: 'scale-bench', secret: 'scale-bench-secret', password: 'scale-bench' };
const PUBLIC_URL = 'http://127.0.0.1:18060';
const FOLDER = 'Inbox';
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango'];
const GROW_CONCURRENCY = 16;
const DIRECT_BATCH = 64;

/** The n-th upload: its text (every one holds "airlock"; "zulu<n>" is in that one alone) and its multipart body. */
function upload(n: number): { name: string; text: string; body: Buffer; contentType: string } {
  const words = Array.from({ length: 12 }, (_, i) => WORDS[(n * 7 + i * 13 + Math.floor(n / 20)) % WORDS.length]);
  const text = `Document ${n} of the airlock scale bench: ${words.join(' ')} zulu${n}.\n`;
  const name = `doc-${n}.txt`;
  const boundary = `scale${n}`;
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="filedata"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${boundary}--\r\n`);
  return { name, text, body, contentType: `multipart/form-data; boundary=${boundary}` };
}

function call(agent: Agent | undefined, url: string, init: { method: string; headers: Record<string, string>; body?: Buffer }): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method, ...(agent && { agent }), headers: { ...init.headers, ...(init.body && { 'content-length': String(init.body.length) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** An access token from the provider through the code flow with PKCE, as a client gets one. */
async function accessToken(issuer: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const form = new URLSearchParams({
    client_id: CLIENT.id, redirect_uri: `${PUBLIC_URL}/auth/oidc/callback`, response_type: 'code', scope: 'openid api:read api:write', state: 's', nonce: 'n',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', username: DEV_ACCOUNT.preferred_username, password: CLIENT.password,
  });
  const approved = await call(undefined, `${issuer}/authorize`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from(form.toString()) });
  const code = new URL(String(approved.headers['location'])).searchParams.get('code');
  const exchange = new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: `${PUBLIC_URL}/auth/oidc/callback`, code_verifier: verifier });
  const basic = Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64');
  const token = await call(undefined, `${issuer}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` }, body: Buffer.from(exchange.toString()) });
  if (token.status !== 200) throw new Error(`The provider refused the token exchange: ${token.status} ${token.text}`);
  return (JSON.parse(token.text) as { access_token: string }).access_token;
}

export function contentProfile(): ScaleProfile {
  const grown: GrowOutcome = { events: 0, rawBytes: 0 };
  const auth: Record<string, string> = {};
  const jsonAuth: Record<string, string> = { 'content-type': 'application/json' };
  const ids: { folder?: string; first?: string } = {};
  let provider: { server: Server; issuer: string } | undefined;
  const refresh = async () => {
    auth['authorization'] = jsonAuth['authorization'] = `Bearer ${await accessToken(provider!.issuer)}`;
  };
  const get = (name: string, path: () => string): ReadRoute => ({ name, request: { headers: auth, get path() {
    return path();
  } } as ReadRoute['request'] });
  const search = (name: string, body: unknown): ReadRoute => ({ name, request: { method: 'POST', path: SEARCH, headers: jsonAuth, body: JSON.stringify(body) } });
  const node = (suffix = '') => () => `${API}/nodes/${ids.first ?? 'unknown'}${suffix}`;
  const folder = (query: string) => () => `${API}/nodes/${ids.folder ?? 'unknown'}/children?${query}`;
  return {
    service: 'content',
    businessEvent: 'upload',
    entry: fileURLToPath(new URL('../../../src/content/main.ts', import.meta.url)),
    bundle: 'content-api.mjs',
    env: (dataDir) => ({
      AIRLOCK_DATA_DIR: dataDir, CONTENT_LISTEN: '127.0.0.1:0', CONTENT_PUBLIC_URL: PUBLIC_URL, CONTENT_OIDC_ISSUER: provider!.issuer,
      CONTENT_OIDC_CLIENT_ID: CLIENT.id, CONTENT_OIDC_CLIENT_SECRET: CLIENT.secret, CONTENT_COMPANY_HOME_WRITERS: DEV_GROUP,
      CONTENT_OWNER_ISSUE_REF: 'issue:24', CONTENT_BLOCKED_PROGRAM_REF: 'program:none', AIRLOCK_LOG_LEVEL: 'error',
    }),
    database: (dataDir) => join(dataDir, 'content.sqlite'),
    async setup() {
      provider ??= await startDevProvider({ host: '127.0.0.1', port: 0, clientId: CLIENT.id, clientSecret: CLIENT.secret, redirectUri: `${PUBLIC_URL}/auth/oidc/callback`, postLogoutRedirectUri: `${PUBLIC_URL}/auth/oidc/logged-out`, password: CLIENT.password, audience: CLIENT.id });
      await refresh();
    },
    async teardown() {
      provider?.server.closeAllConnections();
      await new Promise((resolve) => provider?.server.close(resolve) ?? resolve(undefined));
    },
    async grow(url, target) {
      const agent = new Agent({ keepAlive: true, maxSockets: GROW_CONCURRENCY });
      try {
        if (ids.folder === undefined) {
          const made = await call(agent, `${url}${API}/nodes/-root-/children`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ name: FOLDER, nodeType: 'cm:folder' })) });
          if (made.status !== 201) throw new Error(`content refused the folder: ${made.status} ${made.text}`);
          ids.folder = (JSON.parse(made.text) as { entry: { id: string } }).entry.id;
        }
        let n = grown.events;
        const loop = async () => {
          while (grown.events < target) {
            const file = upload(n++);
            grown.events++;
            const answer = await call(agent, `${url}${API}/nodes/${ids.folder}/children`, { method: 'POST', headers: { ...auth, 'content-type': file.contentType }, body: file.body });
            if (answer.status !== 201) throw new Error(`content refused an upload: ${answer.status} ${answer.text.slice(0, 300)}`);
            grown.rawBytes += file.body.length;
            ids.first ??= (JSON.parse(answer.text) as { entry: { id: string } }).entry.id;
          }
        };
        await Promise.all(Array.from({ length: GROW_CONCURRENCY }, loop));
      } finally {
        agent.destroy();
      }
      await refresh();
      return { ...grown };
    },
    async growDirect(dataDir, target) {
      const store = await openContentDatabase(join(dataDir, 'content.sqlite'));
      const blobs = createBlobStore(join(dataDir, 'content-blobs'));
      const policy = permissionPolicy({ writersGroup: DEV_GROUP, coordinatorsGroup: undefined });
      // The development account as the bridge admits it: its permissions checked on each node.
      const user: Actor = { id: DEV_ACCOUNT.sub, displayName: DEV_ACCOUNT.name, groups: DEV_ACCOUNT.groups, require: (sqlite, at, permission) => requirePermission(sqlite, policy, at, { id: DEV_ACCOUNT.sub, groups: DEV_ACCOUNT.groups }, permission) };
      try {
        await ensureSystemFolders(store);
        ids.folder ??= await store.write((sqlite, tx) => createFolder(sqlite, tx, { parentId: ROOT_NODE_ID, name: FOLDER, relativePath: undefined, autoRename: false, properties: {}, user }));
        let n = grown.events;
        while (grown.events < target) {
          const batch: Promise<void>[] = [];
          while (batch.length < DIRECT_BATCH && grown.events < target) {
            const file = upload(n++);
            grown.events++;
            grown.rawBytes += file.body.length;
            batch.push(uploadFile({ store, blobs, maxUploadBytes: 1024 * 1024, indexTextBytes: 1024 * 1024 }, { stream: Readable.from([file.body]), contentType: file.contentType, contentLength: String(file.body.length), parentId: ids.folder, user })
              .then(({ id }) => void (ids.first ??= id)));
          }
          await Promise.all(batch);
        }
      } finally {
        await store.close();
      }
      await refresh();
      return { ...grown };
    },
    reads: [
      get('GET probes/-live-', () => `${API}/probes/-live-`),
      get('GET probes/-ready-', () => `${API}/probes/-ready-`),
      get('GET nodes/-root-', () => `${API}/nodes/-root-`),
      get('GET nodes/{file}?include=path,permissions,allowableOperations', node('?include=path,permissions,allowableOperations')),
      get('GET nodes/-root-/children', () => `${API}/nodes/-root-/children`),
      get('GET nodes/{Inbox}/children (default order: folders first, by name)', folder('maxItems=100')),
      get('GET nodes/{Inbox}/children?orderBy=createdAt DESC', folder('orderBy=createdAt%20DESC&maxItems=25')),
      get('GET nodes/{Inbox}/children?orderBy=modifiedAt DESC&where=(isFile=true)', folder('orderBy=modifiedAt%20DESC&where=(isFile%3Dtrue)&maxItems=25')),
      get('GET nodes/{Inbox}/children?skipCount=900', folder('skipCount=900&maxItems=100')),
      get('GET nodes/{Inbox}?relativePath (the Inbox by name)', () => `${API}/nodes/-root-?relativePath=${FOLDER}`),
      get('GET nodes/{file}/content', node('/content')),
      get('GET nodes/{file}/versions', node('/versions')),
      get('GET nodes/{file}/versions/1.0', node('/versions/1.0')),
      get('GET nodes/{file}/versions/1.0/content', node('/versions/1.0/content')),
      get('GET nodes/{file}/renditions', node('/renditions')),
      get('GET nodes/{file}/renditions/doclib', node('/renditions/doclib')),
      get('GET nodes/{file}/renditions/text/content?placeholder=true', node('/renditions/text/content?placeholder=true')),
      get('GET deleted-nodes', () => `${API}/deleted-nodes`),
      get('GET transcript-summary-references.json', () => '/repository/service/assistant/transcript-summary-references.json'),
      get('GET /openapi.json', () => '/openapi.json'),
      search('POST search (a word in one document)', { query: { query: 'zulu7', language: 'afts' } }),
      search('POST search (cm:name:"doc-7*", as ADF sends it)', { query: { query: 'cm:name:"doc-7*" OR TEXT:"doc-7*"', language: 'afts' }, paging: { maxItems: 25, skipCount: 0 } }),
      search('POST search (a word in a twentieth of the documents, newest first)', { query: { query: 'quebec AND tango', language: 'afts' }, sort: [{ type: 'FIELD', field: 'cm:created', ascending: false }], paging: { maxItems: 25 } }),
      search('POST search (a word in every document, by score)', { query: { query: 'airlock', language: 'afts' }, paging: { maxItems: 25 } }),
    ],
    heaviest: search('POST search (a word in every document, by score, page 10)', { query: { query: 'airlock OR bench', language: 'afts' }, paging: { maxItems: 100, skipCount: 900 } }),
    readiness: get('GET probes/-ready-', () => `${API}/probes/-ready-`),
  };
}
