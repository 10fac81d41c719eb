// Starts the governance service in-process for tests: a temporary data directory, port 0 on
// both listeners, a known operator token, and captured log records.

import { before, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/kernel/index.ts';
import type { Service, Store } from '../../src/kernel/index.ts';
import { readGovernanceConfig } from '../../src/governance/config.ts';
import { createGovernanceService } from '../../src/governance/service.ts';
import type { GovernanceServiceOptions } from '../../src/governance/service.ts';
import type { GovernanceRuntime } from '../../src/governance/runtime.ts';
import { stepCounter } from '../helpers/sqlite-steps.ts';
import type { StepCounter } from '../helpers/sqlite-steps.ts';
import { rootEnv, tempRoot } from './_fixtures.ts';
import type { TempRoot } from './_fixtures.ts';

export const OPERATOR_TOKEN = 'test-operator-token-0001';
export const AUTH = { authorization: `Bearer ${OPERATOR_TOKEN}` };

/** One token per lane, as startGovernance() configures them. */
export const LANE_TOKENS = {
  operator: OPERATOR_TOKEN,
  bff: 'test-bff-token-0001',
  mail_producer: 'test-mail-producer-token-0001',
  mail_consumer: 'test-mail-consumer-token-0001',
  entitlement_producer: 'test-entitlement-producer-token-0001',
  entitlement_consumer: 'test-entitlement-consumer-token-0001',
} as const;
export type TestLane = keyof typeof LANE_TOKENS;

/** The Authorization header of a lane. */
export function bearer(lane: TestLane): { authorization: string } {
  return { authorization: `Bearer ${LANE_TOKENS[lane]}` };
}

export const GIT_HOST_SECRET = 'test-git-host-secret-0001';

export interface RunningGovernance {
  service: Service;
  platform: string | undefined;
  worker: string | undefined;
  dataDir: string;
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** Both listeners on free ports, and every lane's token and the git-host secret of these tests. */
export function listenerEnv(): Record<string, string> {
  return {
    GOVERNANCE_PLATFORM_LISTEN: '127.0.0.1:0',
    GOVERNANCE_WORKER_LISTEN: '127.0.0.1:0',
    GOVERNANCE_OPERATOR_TOKEN: OPERATOR_TOKEN,
    GOVERNANCE_BFF_TOKEN: LANE_TOKENS.bff,
    GOVERNANCE_MAIL_PRODUCER_TOKEN: LANE_TOKENS.mail_producer,
    GOVERNANCE_MAIL_CONSUMER_TOKEN: LANE_TOKENS.mail_consumer,
    GOVERNANCE_ENTITLEMENT_PRODUCER_TOKEN: LANE_TOKENS.entitlement_producer,
    GOVERNANCE_ENTITLEMENT_CONSUMER_TOKEN: LANE_TOKENS.entitlement_consumer,
    GOVERNANCE_GIT_HOST_WEBHOOK_SECRET: GIT_HOST_SECRET,
  };
}

export async function startGovernance(
  options: { role?: string; env?: Record<string, string>; dataDir?: string; service?: GovernanceServiceOptions } = {},
): Promise<RunningGovernance> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'airlock-governance-'));
  const lines: string[] = [];
  const log = createLogger({ name: 'governance', service: 'governance', write: (line) => void lines.push(line) });
  const config = readGovernanceConfig({
    argv: options.role ? ['--role', options.role] : [],
    env: {
      AIRLOCK_DATA_DIR: dataDir,
      ...listenerEnv(),
      ...options.env,
    },
  });
  const service = await createGovernanceService(config, { log, version: '0.0.0-test', ...options.service });
  const listening = await service.listen();
  const url = (name: string) => listening.find((l) => l.listener === name)?.url;
  return {
    service,
    platform: url('platform'),
    worker: url('worker'),
    dataDir,
    get logs() {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    async stop() {
      await service.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Rows per evidence table, as GET /api/v1/tools/runtime-evidence reports them. */
export async function evidenceRows(running: RunningGovernance): Promise<Record<string, number>> {
  const { send } = await import('../helpers/http.ts');
  const body = (await send(`${running.platform ?? running.worker}/api/v1/tools/runtime-evidence`, { headers: AUTH })).json() as { tables: { table: string; rows: number }[] };
  return Object.fromEntries(body.tables.map((t) => [t.table, t.rows]));
}

/**
 * Registers hooks that start the service (role test) on a temporary install root before the
 * file's tests and stop it after them; `ready` receives it once it listens (root-level `before`
 * hooks may run concurrently, so a second hook cannot wait for this one).
 */
export function serviceOnTempRoot(
  ready: (running: RunningGovernance, root: TempRoot) => void,
  options: { env?: Record<string, string>; service?: GovernanceServiceOptions; prepare?: (root: TempRoot) => void } = {},
): void {
  let running: RunningGovernance | undefined;
  let root: TempRoot | undefined;
  before(async () => {
    root = tempRoot();
    options.prepare?.(root);
    running = await startGovernance({ role: 'test', env: { ...rootEnv(root.root), ...options.env }, ...(options.service && { service: options.service }) });
    ready(running, root);
  });
  after(async () => {
    await running?.stop();
    root?.cleanup();
  });
}

/** A governance service (role test) with its store and a SQLite step counter on its writer connection. */
export async function startCountingGovernance(): Promise<{ running: RunningGovernance; store: Store; steps: StepCounter }> {
  let runtime: GovernanceRuntime | undefined;
  const running = await startGovernance({ role: 'test', service: { inspect: (r) => (runtime = r) } });
  const store = runtime!.store;
  return { running, store, steps: stepCounter(store.sqlite) };
}
