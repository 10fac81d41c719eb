// The bus every messaging executable talks to: NATS when NATS_URL is set, else the embedded bus
// on node:sqlite. Both keep the same contract (test/messaging/bus-contract.test.ts): publish()
// resolves only once the bus holds the message, subscribers see each Nats-Msg-Id at most once.

export const MSG_ID_HEADER = 'Nats-Msg-Id';

export type BusKind = 'nats' | 'embedded';

export interface BusMessage {
  subject: string;
  headers: Readonly<Record<string, string>>;
  payload: Buffer;
}

export interface BusHealth {
  kind: BusKind;
  connected: boolean;
  /** Where: the NATS server URL without credentials, or the database path. */
  target: string;
  max_payload: number;
  /** What "held" means: JetStream's file store, the embedded bus's database, or only the NATS server's memory (core NATS). */
  persistence: 'jetstream' | 'sqlite' | 'core';
  reconnects: number;
  last_error: string | undefined;
}

export interface BusSubscription {
  unsubscribe(): void;
}

/** A durable subscription: unsubscribe() resolves once the acknowledgements of what was delivered are confirmed. */
export interface DurableSubscription {
  unsubscribe(): Promise<void>;
}

export interface PublishOptions {
  headers?: Readonly<Record<string, string>>;
}

export interface Bus {
  readonly kind: BusKind;
  /** Resolves once the bus holds the message (NATS: the server answered PING after it; embedded: committed). */
  publish(subject: string, payload: Uint8Array, options?: PublishOptions): Promise<void>;
  /** Delivers matching messages (`*` and `>` wildcards) published after the subscription is active; repeats of a Nats-Msg-Id are dropped. */
  subscribe(subject: string, onMessage: (message: BusMessage) => void): BusSubscription;
  /**
   * A subscription that survives the subscriber's and the server's restarts: what arrived while it
   * was away is delivered when it is back (NATS with JetStream only; otherwise bus_unavailable).
   */
  subscribeDurable(subject: string, durable: string, onMessage: (message: BusMessage) => void): Promise<DurableSubscription>;
  /** Resolves once every subscription made so far is active. */
  ready(): Promise<void>;
  health(): BusHealth;
  close(): Promise<void>;
}
