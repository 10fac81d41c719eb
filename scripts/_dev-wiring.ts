// npm start's wiring between services: which variables one service's dev environment takes from
// another's (its bound URL, its generated tokens). It lives here, beside scripts/start.ts, because
// a service knows nothing of another: each src/<service>/dev-defaults.ts only prepares itself.

/** What start.ts knows of a service that is already listening. */
export interface StartedPeer {
  /** Its dev environment (the variables its dev defaults returned). */
  env: Readonly<Record<string, string>>;
  /** Listener name -> the URL it bound. */
  urls: Readonly<Record<string, string>>;
}

/** A service whose environment depends on another names that one here; start.ts starts it first. */
export const DEV_WIRING: Readonly<Record<string, { after: readonly string[]; env: (peers: Readonly<Record<string, StartedPeer>>) => Record<string, string> }>> = {
  // ERP hands support cases to governance (POST /api/v1/events/outbox/support on the worker
  // listener), authenticated with the operator lane's token.
  erp: {
    after: ['governance'],
    env: ({ governance }) => ({ GOVERNANCE_URL: peerUrl(governance, 'governance', 'worker'), GOVERNANCE_TOKEN: peerEnv(governance, 'governance', 'GOVERNANCE_OPERATOR_TOKEN') }),
  },
  // Agent-context reads governance truth and projects authority from the worker listener.
  'agent-context': {
    after: ['governance'],
    env: ({ governance }) => ({ GOVERNANCE_URL: peerUrl(governance, 'governance', 'worker'), AGENT_CONTEXT_SERVICE_AUTH_TOKEN: peerEnv(governance, 'governance', 'GOVERNANCE_OPERATOR_TOKEN') }),
  },
};

/**
 * The variables `service` takes from the peers it is wired to, or {} when it is wired to none.
 *
 * @example
 * devWiring('erp', { governance: { env: governanceEnv, urls: { worker: 'http://127.0.0.1:18011' } } });
 */
export function devWiring(service: string, peers: Readonly<Record<string, StartedPeer>>): Record<string, string> {
  return DEV_WIRING[service]?.env(peers) ?? {};
}

function peerUrl(peer: StartedPeer | undefined, name: string, listener: string): string {
  const url = peer?.urls[listener];
  if (url === undefined) throw new Error(`Cannot wire to ${name}: its ${listener} listener is not up`);
  return url;
}

function peerEnv(peer: StartedPeer | undefined, name: string, variable: string): string {
  const value = peer?.env[variable];
  if (value === undefined) throw new Error(`Cannot wire to ${name}: its dev environment has no ${variable}`);
  return value;
}
