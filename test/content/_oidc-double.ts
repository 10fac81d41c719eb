// A test double of an OpenID provider on loopback. It speaks the real protocol (Discovery 1.0,
// a JWKS with an RSA and a P-256 key, the authorization endpoint with PKCE S256, the token
// endpoint with client_secret_basic, signed ID and access tokens, an end-session endpoint) and
// misbehaves on request: a wrong nonce, issuer or audience, an expired token, a signature by a
// key outside its JWKS, a replayable code, a discovery document that names another issuer.

import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Misbehaviour {
  alg?: 'RS256' | 'ES256';
  nonce?: 'wrong' | 'missing';
  iss?: string;
  aud?: string;
  expired?: boolean;
  foreignKey?: boolean;
  algNone?: boolean;
  replayableCodes?: boolean;
  discoveryIssuer?: string;
  noEndSession?: boolean;
}

export interface OidcDouble {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in next; `groups` becomes the tokens' groups claim. */
  user: { sub: string; name: string; groups: string[] };
  /** What the next tokens do wrong; reset with {}. */
  misbehave: Misbehaviour;
  /** Requests to the token endpoint, for assertions. */
  tokenRequests: { authorization: string | undefined; body: URLSearchParams }[];
  endSessionCalls: URLSearchParams[];
  accessToken(init?: { aud?: string; expired?: boolean; typ?: string; foreignKey?: boolean; iss?: string; sub?: string; scope?: string; groups?: string[] }): string;
  close(): Promise<void>;
}

interface Key {
  kid: string;
  alg: 'RS256' | 'ES256';
  private: KeyObject;
  jwk: Record<string, unknown>;
}

function makeKey(alg: 'RS256' | 'ES256', kid: string): Key {
  const pair = alg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg, private: pair.privateKey, jwk: { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } };
}

export function signJwt(payload: Record<string, unknown>, key: { kid: string; alg: 'RS256' | 'ES256'; private: KeyObject }, typ = 'JWT'): string {
  const header = Buffer.from(JSON.stringify({ alg: key.alg, kid: key.kid, typ })).toString('base64url');
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const input = `${header}.${body}`;
  const signature = key.alg === 'RS256' ? sign('sha256', Buffer.from(input), key.private) : sign('sha256', Buffer.from(input), { key: key.private, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

export async function startOidcDouble(init: { redirectUri: () => string; clientId?: string; clientSecret?: string }): Promise<OidcDouble> {
  const keys = { RS256: makeKey('RS256', 'rsa-1'), ES256: makeKey('ES256', 'ec-1') };
  const foreign = { RS256: makeKey('RS256', 'rsa-1'), ES256: makeKey('ES256', 'ec-1') };
  const codes = new Map<string, { challenge: string; nonce: string; redirectUri: string; used: boolean }>();
  const clientId = init.clientId ?? 'content-test';
  const clientSecret = init.clientSecret ?? 'double secret: with spaces & symbols';
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const double: OidcDouble = {
    issuer,
    clientId,
    clientSecret,
    user: { sub: 'user-42', name: 'Ada Tester', groups: ['writers'] },
    misbehave: {},
    tokenRequests: [],
    endSessionCalls: [],
    accessToken(options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const key = (options.foreignKey ? foreign : keys).ES256;
      return signJwt({ iss: options.iss ?? issuer, sub: options.sub ?? double.user.sub, aud: options.aud ?? clientId, exp: options.expired ? now - 3600 : now + 300, iat: now, preferred_username: options.sub ?? 'ada', client_id: clientId, scope: options.scope ?? 'openid api:read api:write', groups: options.groups ?? double.user.groups }, key, options.typ ?? 'at+jwt');
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  server.on('request', (request, response) => {
    const url = new URL(request.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer: double.misbehave.discoveryIssuer ?? issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        ...(!double.misbehave.noEndSession && { end_session_endpoint: `${issuer}/end-session` }),
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'ES256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [keys.RS256.jwk, keys.ES256.jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId || q.get('redirect_uri') !== init.redirectUri() || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !q.get('nonce') || !q.get('scope')?.split(' ').includes('openid')) {
        return json(400, { error: 'invalid_request' });
      }
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { challenge: q.get('code_challenge')!, nonce: q.get('nonce')!, redirectUri: q.get('redirect_uri')!, used: false });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      response.writeHead(302, { location: back.href });
      return response.end();
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        double.tokenRequests.push({ authorization: request.headers.authorization, body });
        const expected = `Basic ${Buffer.from(`${encodeURIComponent(clientId).replace(/%20/g, '+')}:${encodeURIComponent(clientSecret).replace(/%20/g, '+')}`).toString('base64')}`;
        if (request.headers.authorization !== expected) return json(401, { error: 'invalid_client' });
        const grant = codes.get(body.get('code') ?? '');
        if (!grant || (grant.used && !double.misbehave.replayableCodes)) return json(400, { error: 'invalid_grant' });
        grant.used = true;
        if (body.get('redirect_uri') !== grant.redirectUri) return json(400, { error: 'invalid_grant' });
        if (createHash('sha256').update(body.get('code_verifier') ?? '').digest('base64url') !== grant.challenge) return json(400, { error: 'invalid_grant' });
        const m = double.misbehave;
        const now = Math.floor(Date.now() / 1000);
        const alg = m.alg ?? 'ES256';
        const claims: Record<string, unknown> = {
          iss: m.iss ?? issuer,
          sub: double.user.sub,
          aud: m.aud ?? clientId,
          exp: m.expired ? now - 3600 : now + 300,
          iat: m.expired ? now - 7200 : now,
          name: double.user.name,
          preferred_username: 'ada',
          groups: double.user.groups,
        };
        if (m.nonce !== 'missing') claims['nonce'] = m.nonce === 'wrong' ? 'not-the-nonce' : grant.nonce;
        let idToken = signJwt(claims, (m.foreignKey ? foreign : keys)[alg]);
        if (m.algNone) idToken = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
        json(200, { access_token: double.accessToken(), token_type: 'Bearer', expires_in: 300, id_token: idToken });
      });
      return;
    }
    if (url.pathname === '/end-session') {
      double.endSessionCalls.push(url.searchParams);
      const back = url.searchParams.get('post_logout_redirect_uri');
      response.writeHead(back ? 302 : 200, back ? { location: back } : { 'content-type': 'text/plain' });
      return response.end(back ? undefined : 'signed out');
    }
    json(404, { error: 'not_found' });
  });
  return double;
}
