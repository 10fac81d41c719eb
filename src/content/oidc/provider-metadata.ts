// The OpenID provider as discovery describes it (OpenID Connect Discovery 1.0): the metadata
// document at <issuer>/.well-known/openid-configuration, whose `issuer` must be the configured
// one, and its JWKS, cached and fetched again once when a token names a key we do not know.

import type { Jwk } from './jwt.ts';

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  end_session_endpoint?: string;
  /** RFC 9207: the provider names itself in every authorization response (iss). */
  authorization_response_iss_parameter_supported?: boolean;
}

export const FETCH_TIMEOUT_MS = 5000;
/** Least time between two JWKS refetches, so a flood of unknown kids cannot hammer the provider. */
export const JWKS_REFETCH_MS = 30_000;

export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface Provider {
  metadata(): Promise<ProviderMetadata>;
  /** The JWKS; `refresh` fetches again (at most once per JWKS_REFETCH_MS). */
  keys(refresh?: boolean): Promise<Jwk[]>;
}

async function getJson(url: string, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' }, redirect: 'error' });
  } catch (error) {
    throw new ProviderError(`Cannot fetch ${what} from "${url}": ${(error as Error).message}`);
  }
  if (!response.ok) throw new ProviderError(`Cannot fetch ${what} from "${url}": HTTP ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProviderError(`${what} at "${url}" is not a JSON object`);
  return body as Record<string, unknown>;
}

export function createProvider(issuer: string, options: { now?: () => number } = {}): Provider {
  const now = options.now ?? Date.now;
  let metadata: ProviderMetadata | undefined;
  let keys: Jwk[] | undefined;
  let keysAt = 0;
  const provider: Provider = {
    async metadata() {
      if (metadata) return metadata;
      const url = `${issuer}/.well-known/openid-configuration`;
      const body = await getJson(url, 'the discovery document');
      for (const member of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
        if (typeof body[member] !== 'string' || !URL.canParse(body[member] as string)) throw new ProviderError(`Discovery document at "${url}" has no valid "${member}"`);
      }
      // Discovery 4.3: the issuer in the document must be the one we asked, exactly.
      if (String(body['issuer']).replace(/\/+$/, '') !== issuer) {
        throw new ProviderError(`Discovery document names issuer "${String(body['issuer'])}", not the configured "${issuer}"`);
      }
      metadata = {
        issuer: String(body['issuer']),
        authorization_endpoint: String(body['authorization_endpoint']),
        token_endpoint: String(body['token_endpoint']),
        jwks_uri: String(body['jwks_uri']),
        ...(typeof body['end_session_endpoint'] === 'string' && URL.canParse(body['end_session_endpoint']) && { end_session_endpoint: body['end_session_endpoint'] }),
        ...(body['authorization_response_iss_parameter_supported'] === true && { authorization_response_iss_parameter_supported: true }),
      };
      return metadata;
    },
    async keys(refresh = false) {
      if (keys && !(refresh && now() - keysAt >= JWKS_REFETCH_MS)) return keys;
      const { jwks_uri } = await provider.metadata();
      const body = await getJson(jwks_uri, 'the JWKS');
      if (!Array.isArray(body['keys'])) throw new ProviderError(`JWKS at "${jwks_uri}" has no "keys" array`);
      keys = (body['keys'] as unknown[]).filter((k): k is Jwk => typeof k === 'object' && k !== null);
      keysAt = now();
      return keys;
    },
  };
  return provider;
}
