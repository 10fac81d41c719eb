// DEVELOPMENT ONLY. A minimal OpenID provider for `npm start`, so a newcomer can log in to the
// share UI from a browser without installing Keycloak or similar. One fixed account ("dev",
// password from CONTENT_DEV_OIDC_PASSWORD), one client (the content repository), loopback
// only: it refuses to listen anywhere else and refuses redirect URIs that are not loopback.
// It speaks the real protocol (Discovery, JWKS, code flow with PKCE S256, client_secret_basic,
// ES256 ID and access tokens, end-session) so the bridge runs exactly as against a real one.
// Never use it in production: anyone with the printed password is "dev".

import { createHash, generateKeyPairSync, randomBytes, sign, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isLoopbackHost } from '../../kernel/index.ts';
import { escapeHtml } from '../share/html.ts';

/** The group the dev account is in (its groups claim); npm start makes it Company Home's writers. */
export const DEV_GROUP = 'content-writers';
export const DEV_ACCOUNT = { sub: 'dev', preferred_username: 'dev', name: 'Dev User (development provider)', email: 'dev@localhost', groups: [DEV_GROUP] };
/** The scopes of the dev account's access tokens: read and write, as CONTENT_WRITE_SCOPE's default asks. */
export const DEV_SCOPE = 'openid profile email api:read api:write';
const CODE_TTL_MS = 60_000;

export interface DevProviderOptions {
  host: string;
  port: number;
  clientId: string;
  clientSecret: string;
  /** The only redirect URI admitted: <CONTENT_PUBLIC_URL>/auth/oidc/callback. */
  redirectUri: string;
  /** Where the provider may send the browser after logout. */
  postLogoutRedirectUri: string;
  password: string;
  /** The audience of access tokens (the repository's CONTENT_OIDC_AUDIENCE). */
  audience: string;
}

function same(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** Starts the development provider; refuses a non-loopback host or redirect URI. */
export async function startDevProvider(options: DevProviderOptions): Promise<{ server: Server; issuer: string }> {
  if (!isLoopbackHost(options.host)) throw new Error(`The development OpenID provider listens on loopback only, not "${options.host}"`);
  for (const uri of [options.redirectUri, options.postLogoutRedirectUri]) {
    if (!isLoopbackHost(new URL(uri).hostname)) throw new Error(`The development OpenID provider admits loopback redirect URIs only, not "${uri}"`);
  }
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomBytes(8).toString('hex');
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
  const codes = new Map<string, { challenge: string; nonce: string; at: number }>();
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as { port: number };
  const issuer = `http://${options.host}:${address.port}`;

  const jwt = (payload: Record<string, unknown>, typ: string) => {
    const input = `${Buffer.from(JSON.stringify({ alg: 'ES256', kid, typ })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
  const send = (response: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'", ...headers });
    response.end(body);
  };
  const json = (response: ServerResponse, status: number, body: unknown) => send(response, status, 'application/json', JSON.stringify(body));
  const readForm = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 16384) throw new Error('form too large');
      chunks.push(chunk);
    }
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  };
  const loginPage = (q: URLSearchParams, error?: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development sign-in</title></head>
<body style="font-family:sans-serif;max-width:32rem;margin:3rem auto"><p style="background:#fff3cd;padding:.6rem;border:1px solid #e0b000"><strong>Development OpenID provider.</strong> Loopback only, one fixed account. Not for production.</p>
<h1>Sign in</h1>${error ? `<p id="dev-error" style="color:#a00">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/authorize">${[...q].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('')}
<p><label>Username <input name="username" id="username" value="dev" readonly></label></p>
<p><label>Password <input type="password" name="password" id="password" autofocus></label></p>
<p><button type="submit" id="sign-in">Sign in</button></p></form><p>The password is in var/dev-secrets.json (content.dev_password), printed by npm start.</p></body></html>`;

  const authorize = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    const q = request.method === 'POST' ? await readForm(request) : url.searchParams;
    const valid = q.get('client_id') === options.clientId && q.get('redirect_uri') === options.redirectUri && q.get('response_type') === 'code' && q.get('code_challenge_method') === 'S256' && /^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') ?? '') && (q.get('scope') ?? '').split(' ').includes('openid');
    if (!valid) return send(response, 400, 'text/plain; charset=utf-8', 'Invalid authorization request: client_id, redirect_uri, response_type=code, scope openid and a PKCE S256 code_challenge are required\n');
    if (request.method !== 'POST') return send(response, 200, 'text/html; charset=utf-8', loginPage(q));
    const fields = new URLSearchParams([...q].filter(([k]) => k !== 'username' && k !== 'password'));
    if (q.get('username') !== DEV_ACCOUNT.preferred_username || !same(q.get('password') ?? '', options.password)) return send(response, 401, 'text/html; charset=utf-8', loginPage(fields, 'Wrong password'));
    const code = randomBytes(24).toString('base64url');
    codes.set(code, { challenge: q.get('code_challenge')!, nonce: q.get('nonce') ?? '', at: Date.now() });
    const back = new URL(options.redirectUri);
    back.searchParams.set('code', code);
    if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
    send(response, 303, 'text/plain', '', { location: back.href });
  };

  const token = async (request: IncomingMessage, response: ServerResponse) => {
    const expected = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`.replace(/%20/g, '+')).toString('base64')}`;
    if (!same(request.headers.authorization ?? '', expected)) return json(response, 401, { error: 'invalid_client' });
    const body = await readForm(request);
    const grant = codes.get(body.get('code') ?? '');
    codes.delete(body.get('code') ?? '');
    if (body.get('grant_type') !== 'authorization_code' || !grant || Date.now() - grant.at > CODE_TTL_MS || body.get('redirect_uri') !== options.redirectUri) return json(response, 400, { error: 'invalid_grant' });
    if (createHash('sha256').update(body.get('code_verifier') ?? '').digest('base64url') !== grant.challenge) return json(response, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    const now = Math.floor(Date.now() / 1000);
    const idToken = jwt({ iss: issuer, aud: options.clientId, exp: now + 300, iat: now, nonce: grant.nonce, ...DEV_ACCOUNT }, 'JWT');
    const accessToken = jwt({ iss: issuer, aud: options.audience, client_id: options.clientId, exp: now + 3600, iat: now, jti: randomBytes(8).toString('hex'), sub: DEV_ACCOUNT.sub, preferred_username: DEV_ACCOUNT.preferred_username, groups: DEV_ACCOUNT.groups, scope: DEV_SCOPE }, 'at+jwt');
    json(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, id_token: idToken });
  };

  server.on('request', (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    const route = `${request.method} ${url.pathname}`;
    const work = (async () => {
      switch (route) {
        case 'GET /.well-known/openid-configuration':
          return json(response, 200, {
            issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, end_session_endpoint: `${issuer}/logout`,
            response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'],
            code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['client_secret_basic'], scopes_supported: ['openid', 'profile', 'email'],
          });
        case 'GET /jwks':
          return json(response, 200, { keys: [jwk] });
        case 'GET /authorize':
        case 'POST /authorize':
          return authorize(request, response, url);
        case 'POST /token':
          return token(request, response);
        case 'GET /logout': {
          const back = url.searchParams.get('post_logout_redirect_uri');
          if (back === options.postLogoutRedirectUri) return send(response, 303, 'text/plain', '', { location: back });
          return send(response, 200, 'text/plain; charset=utf-8', 'Signed out of the development provider.\n');
        }
        default:
          return json(response, 404, { error: 'not_found' });
      }
    })();
    work.catch(() => {
      if (!response.headersSent) json(response, 400, { error: 'invalid_request' });
      else response.destroy();
    });
  });
  // Codes nobody redeemed expire; sweep them so the table cannot grow without bound.
  const sweep = setInterval(() => {
    for (const [code, grant] of codes) if (Date.now() - grant.at > CODE_TTL_MS) codes.delete(code);
  }, CODE_TTL_MS);
  sweep.unref();
  server.on('close', () => clearInterval(sweep));
  return { server, issuer };
}
