// export_host_runtime_snapshot: a read-only JSON snapshot of the host runtime on stdout: service
// versions, stack contract, control-database schema version and integrity, memory lane, rollback
// window and legacy-retirement readback. It writes nothing but its output: the database is
// opened read-only and nothing else is created. Exit 1 when a part it read fails its check.

import { defineCommand, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main } from '../src/kernel/index.ts';
import { check } from './_semantic/check-report.ts';
import type { Check } from './_semantic/check-report.ts';
import { Unreachable } from './_semantic/http-client.ts';
import { configuredMemoryLane, databaseReadback, legacyRetirement, rollbackWindow, serviceVersions, stackReadback } from './_semantic/host-snapshot.ts';
import { readInstallRoot } from './_semantic/install-root.ts';
import { objectOf } from './_semantic/json-file.ts';
import { LIVE_OPTIONS, liveClient, requiredConsumerToken } from './_semantic/live-target.ts';

const CONSUMER = 'host-runtime-snapshot-export';

const command = defineCommand({
  name: 'export_host_runtime_snapshot',
  summary: 'Prints a read-only JSON snapshot of the host runtime (versions, stack contract, database, memory lane, rollback window, legacy retirement)',
  description: [
    'Reads --root (stack contract, dist/package-metadata.json, install-state.json, contracts) and the control database',
    '<data dir>/semantic.sqlite read-only. The memory lane is the lane posture at SEMANTIC_ACTIVATION_STAGE; with --check-live it',
    `is read from the running API's status through the consumer "${CONSUMER}", with the running version. The rollback window is`,
    'the releases install_memory.sh retained under <prefix>/rollback/. The legacy-retirement readback is the memory-to-graph',
    'migration gate of ts01_consumer_matrix. Missing evidence is "unavailable", never zero. The snapshot is printed even when',
    'a part fails its check (schema integrity, evidence chain, bundle hash, live readback); the exit code is then 1.',
  ].join('\n'),
  options: {
    root: { type: 'string', default: '.', valueName: 'DIR', description: 'Checkout or install prefix' },
    'data-dir': { type: 'string', valueName: 'DIR', description: 'Directory of semantic.sqlite (default: $AIRLOCK_DATA_DIR, else ./var)' },
    'check-live': { type: 'boolean', description: 'Add the running semantic API\'s version, stage and lane posture' },
    ...LIVE_OPTIONS,
  },
  async run({ values, json, io, print, printJson }) {
    const root = readInstallRoot(values.root);
    const dataDir = values['data-dir'] ?? io.env['AIRLOCK_DATA_DIR'] ?? './var';
    const versions = serviceVersions(root);
    const database = databaseReadback(dataDir);
    const rollback = rollbackWindow(values.root);
    const checks: Check[] = [check('bundles', versions.reasons), check('database', database.reasons), check('rollback_window', rollback.reasons)];
    let memoryLane = configuredMemoryLane(io.env);
    let live: Record<string, unknown> = { status: 'unavailable', reason: 'not requested (--check-live)' };
    if (values['check-live']) {
      const client = liveClient(root, values);
      const token = requiredConsumerToken(CONSUMER, io.env, values);
      try {
        const answer = await client.send('GET', '/api/v1/semantic/runtime/status', { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
        const body = objectOf(answer.json);
        checks.push(check('live_status', answer.status === 200 ? [] : [`GET /api/v1/semantic/runtime/status answered ${answer.status}`]));
        if (answer.status === 200) {
          live = { status: 'available', base_url: client.baseUrl, version: body['version'] ?? null, activation_stage: body['activation_stage'] ?? null };
          const posture = objectOf(body['graph_search_lane_posture']);
          memoryLane = { source: 'live', stage: posture['stage'] ?? body['activation_stage'] ?? null, lanes: posture['lanes'] ?? null, graph_memory_runtime_profile: body['graph_memory_runtime_profile'] ?? null };
        } else live = { status: 'unavailable', reason: `the runtime status answered ${answer.status}` };
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error;
        io.stderr.write(`export_host_runtime_snapshot: ${error.message}\n`);
        return EXIT_USAGE;
      }
    }
    const ok = checks.every((c) => c.ok);
    const snapshot = {
      snapshot: 'airlock_host_runtime_snapshot',
      version: 1,
      ok,
      root: values.root,
      service_versions: { ...versions.readback, live },
      stack_contract: stackReadback(root),
      database: database.readback,
      memory_lane: memoryLane,
      rollback_window: rollback.readback,
      legacy_retirement: legacyRetirement(values.root),
      checks,
    };
    if (json) printJson(snapshot);
    else print(JSON.stringify(snapshot, null, 2));
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
