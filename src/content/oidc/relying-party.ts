// The OpenID Connect relying party: the authorization request (code flow, PKCE S256, state,
// nonce), the pending-login table that remembers them for ten minutes, and the token request
// with client_secret_basic. Each state is used once: a replayed callback finds nothing.

import { createHash, randomBytes } from 'node:crypto';
import type { Provider, ProviderMetadata } from './provider-metadata.ts';
import { FETCH_TIMEOUT_MS, ProviderError } from './provider-metadata.ts';

export const PENDING_LOGIN_TTL_MS = 10 * 60 * 1000;
export const MAX_PENDING_LOGINS = 10_000;

export interface PendingLogin {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  createdAt: number;
}

export interface RelyingPartyOptions {
  provider: Provider;
  clientId: string;
  clientSecret: string;
  /** Read per request, so a service that learns its port at listen() can say it. */
  redirectUri: () => string;
  scopes: string;
  now?: () => number;
}

export interface RelyingParty {
  /** Starts a login: the URL to send the browser to, and the state for the binding cookie. */
  begin(returnTo: string): Promise<{ url: string; state: string }>;
  /** Takes the pending login of `state` out of the table (once). */
  take(state: string): PendingLogin | undefined;
  /** Exchanges a code for tokens; throws ProviderError with the provider's error code. */
  exchange(code: string, pending: PendingLogin): Promise<{ idToken: string; accessToken: string | undefined }>;
  metadata(): Promise<ProviderMetadata>;
}

const random = () => randomBytes(32).toString('base64url');

/** RFC 7636 4.2: the S256 challenge of a verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** RFC 6749 2.3.1: client_secret_basic form-encodes id and secret before base64. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

export function createRelyingParty(options: RelyingPartyOptions): RelyingParty {
  const now = options.now ?? Date.now;
  const pending = new Map<string, PendingLogin>();
  // The Map keeps insertion order, which is age order: expired logins are at its front.
  const sweep = () => {
    for (const [state, login] of pending) {
      if (now() - login.createdAt <= PENDING_LOGIN_TTL_MS) break;
      pending.delete(state);
    }
  };
  return {
    metadata: () => options.provider.metadata(),
    async begin(returnTo) {
      const metadata = await options.provider.metadata();
      sweep();
      // Full: drop the oldest rather than refuse, so anonymous requests to /auth/oidc/login cannot
      // lock every user out for ten minutes; a flood only shortens the oldest logins' window.
      if (pending.size >= MAX_PENDING_LOGINS) pending.delete(pending.keys().next().value!);
      const login: PendingLogin = { state: random(), nonce: random(), verifier: random(), returnTo, createdAt: now() };
      pending.set(login.state, login);
      const url = new URL(metadata.authorization_endpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', options.clientId);
      url.searchParams.set('redirect_uri', options.redirectUri());
      url.searchParams.set('scope', options.scopes);
      url.searchParams.set('state', login.state);
      url.searchParams.set('nonce', login.nonce);
      url.searchParams.set('code_challenge', pkceChallenge(login.verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return { url: url.href, state: login.state };
    },
    take(state) {
      const login = pending.get(state);
      if (!login) return undefined;
      pending.delete(state);
      return now() - login.createdAt > PENDING_LOGIN_TTL_MS ? undefined : login;
    },
    async exchange(code, login) {
      const metadata = await options.provider.metadata();
      const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri(), code_verifier: login.verifier });
      let response: Response;
      try {
        response = await fetch(metadata.token_endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept': 'application/json', 'authorization': basicAuthorization(options.clientId, options.clientSecret) },
          body,
          redirect: 'error',
          signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        });
      } catch (error) {
        throw new ProviderError(`token endpoint unreachable: ${(error as Error).message}`);
      }
      const answer = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      if (!response.ok) {
        const code = typeof answer?.['error'] === 'string' ? answer['error'].slice(0, 64) : 'no error code';
        throw new ProviderError(`token endpoint answered HTTP ${response.status} (${code})`);
      }
      if (typeof answer?.['id_token'] !== 'string') throw new ProviderError('token response has no id_token');
      if (typeof answer['token_type'] !== 'string' || answer['token_type'].toLowerCase() !== 'bearer') throw new ProviderError('token response token_type is not Bearer');
      return { idToken: answer['id_token'], accessToken: typeof answer['access_token'] === 'string' ? answer['access_token'] : undefined };
    },
  };
}
