import { test, before } from 'node:test';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import assert from 'node:assert/strict';
import { sendJson } from '../helpers/http.ts';
import { AUTH, serviceOnTempRoot, bearer, evidenceRows, startGovernance } from './_service.ts';
import type { RunningGovernance } from './_service.ts';
import { rootEnv, tempRoot } from './_fixtures.ts';

let url: string;

let running: RunningGovernance;

/** A loopback port nothing listens on (taken, then released). */
let closedPort = 0;
before(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});

/** Verify commands a tool's manifest ships, as the stack contract lists them: one green, one red, one that hangs. */
const VERIFY = { ok: 'node dist/bin/tool-verify-ok.mjs', fails: 'node dist/bin/tool-verify-fails.mjs', hangs: 'node dist/bin/tool-verify-hangs.mjs', unbuilt: 'node dist/bin/tool-verify-unbuilt.mjs' };

/** Governance verifiers that read or try to write, each given the platform listener's default address as the contract writes it. */
const DEFAULT_PLATFORM = 'http://127.0.0.1:18010';
const VERIFIER = {
  reads: `node dist/bin/tool-verify-reads.mjs --base-url ${DEFAULT_PLATFORM}`,
  writesFile: 'node dist/bin/tool-verify-writes-file.mjs',
  writesSqlite: 'node dist/bin/tool-verify-writes-sqlite.mjs',
  posts: `node dist/bin/tool-verify-posts.mjs --base-url ${DEFAULT_PLATFORM}`,
  api: 'node dist/bin/governance-api.mjs --role platform-api',
};
/** The semantic service's declared verify commands, as its manifest writes them. */
const SEMANTIC_WORKER = 'node dist/bin/semantic-worker.mjs --once --json';
/** A file a command leaves in the data directory if it ran outside the sandbox. */
const RAN_MARKER = 'verify-command-ran';
const WRITES_MARKER = `import { writeFileSync } from 'node:fs'; writeFileSync(process.env.AIRLOCK_DATA_DIR + '/${RAN_MARKER}', 'ran');\n`;

serviceOnTempRoot(
  (started) => {
    running = started;
    url = `${running.worker}/api/v1/tools/admission/dry-run`;
  },
  {
    env: { GOVERNANCE_DRY_RUN_VERIFY_TIMEOUT_MS: '1500', GOVERNANCE_DRY_RUN_PROBE_TIMEOUT_MS: '1000' },
    prepare: (root) => {
      root.editJson('configs/stack-contract.json', (contract) => {
        contract.services[0].verify.push(...Object.values(VERIFY), ...Object.values(VERIFIER));
        contract.services.push({ service: 'semantic', executables: [{ name: 'semantic-worker', role: 'worker', listeners: [] }], verify: [SEMANTIC_WORKER] });
      });
      root.editJson('governance-manifest.json', (manifest) => { manifest.services.push({ service: 'semantic', identity: { owner: 'semantic' }, executables: ['semantic-worker'], consumed_surfaces: [], exposed_surfaces: [{ listener: 'main', method: 'POST', path: '/api/v1/semantic/projection-verification/runs', auth: 'projection' }] }); });
      root.write('dist/bin/semantic-worker.mjs', WRITES_MARKER);
      root.write('dist/bin/governance-api.mjs', WRITES_MARKER);
      root.write('dist/bin/tool-verify-writes-file.mjs', `${WRITES_MARKER}process.exit(0);\n`);
      root.write('dist/bin/tool-verify-writes-sqlite.mjs', [
        "import { DatabaseSync } from 'node:sqlite';",
        "try { new DatabaseSync(process.env.AIRLOCK_DATA_DIR + '/governance.sqlite').exec('CREATE TABLE verifier_was_here (x)'); } catch (error) { console.error(String(error)); }",
        'process.exit(0);',
      ].join('\n'));
      root.write('dist/bin/tool-verify-reads.mjs', [
        "const base = process.argv[process.argv.indexOf('--base-url') + 1];",
        "const answer = await fetch(base + '/api/v1/contracts/registry');",
        "const body = await answer.json();",
        "process.exit(answer.status === 200 && Array.isArray(body.artifacts) ? 0 : 4);",
      ].join('\n'));
      root.write('dist/bin/tool-verify-posts.mjs', [
        "const base = process.argv[process.argv.indexOf('--base-url') + 1];",
        "await fetch(base + '/api/v1/events/outbox/admission', { method: 'POST', body: '{}' }).catch(() => undefined);",
        'process.exit(0);',
      ].join('\n'));
      root.write('dist/bin/tool-verify-ok.mjs', 'process.exit(0);\n');
      root.write('dist/bin/tool-verify-fails.mjs', 'console.error("registry unreachable"); process.exit(3);\n');
      root.write('dist/bin/tool-verify-hangs.mjs', 'setTimeout(() => {}, 60_000);\n');
    },
  },
);

/** A payload that passes every step on a consistent root; each bad case breaks it in one place. */
function payload(): any {
  return {
    identity: { tool_name: 'governance_contract_read', owner: 'governance' },
    classification: { capability_class: 'read_only', runtime_kind: 'http', release_channel: 'stable', lifecycle_stage: 'active' },
    contract_families: [{ family: 'contracts', usage: 'producer' }, { family: 'planning', usage: 'producer' }],
    compatibility: { mode: 'backward', notes: 'additive changes only' },
    lifecycle: { stage: 'active', deprecation_policy: 'a _v2 artifact is published beside _v1 for one release' },
    verify: { entrypoint: VERIFY.ok, live_target: `${running.platform}/api/v1/contracts/registry` },
    readiness_targets: ['/api/v1/governance/readiness', '/api/v1/signoff/readiness'],
    boundaries: { exclusions: ['no writes'], fail_closed_conditions: ['artifact invalid'] },
    docs_evidence: {
      entrypoint: 'docs/governance.md', tool_profile: '#tool-profile', integrations: '#integrations', capabilities: '#capabilities',
      api: '#api', oss_inventory: '#oss-inventory', compatibility_posture: '#compatibility-posture', verify_metadata: '#verify-metadata',
    },
  };
}

interface Result {
  dry_run: boolean;
  admitted: boolean;
  verdict: string;
  steps: { step: number; name: string; verdict: string; reasons: string[] }[];
  checklist: { item: string; step: number; verdict: string; reasons: string[] }[];
  blocking_drift: { kind: string; detail: string }[];
}

async function dryRun(body: unknown): Promise<Result> {
  const response = await sendJson(url, body, { headers: AUTH });
  assert.equal(response.status, 200, response.text);
  return response.json() as Result;
}

test('POST /api/v1/tools/admission/dry-run is green on a consistent payload: six steps, a verdict per mandatory item, nothing admitted', async () => {
  const before = await evidenceRows(running);
  const result = await dryRun(payload());
  assert.equal(result.verdict, 'green', JSON.stringify(result.checklist, null, 1));
  assert.deepEqual([result.dry_run, result.admitted], [true, false]);
  assert.deepEqual(result.steps.map((s) => s.name), ['validate', 'compatibility', 'matrix', 'docs', 'verify', 'drift']);
  assert.equal(result.checklist.length, 6);
  assert.ok(result.checklist.every((c) => c.verdict === 'pass' && c.step >= 1 && c.step <= 6));
  assert.deepEqual(result.blocking_drift, []);
  assert.equal((await evidenceRows(running))['admission_reviews'], (before['admission_reviews'] ?? 0) + 1);
});

const ITEM = {
  identity: 'tool identity and capability class',
  docs: 'documentation entrypoint plus tool profile, integrations, capabilities, API and OSS inventory',
  matrix: 'explicit producer/consumer declarations',
  compatibility: 'compatibility mode and lifecycle posture',
  verify: 'verify entrypoint, readiness refs and live verification target',
};

// [case, change to the payload, the failing item, a reason it must give, is it blocking drift]
const RED: [string, (p: any) => void, string | string[], RegExp, boolean][] = [
  ['the capability class contradicts the tool-action registry', (p) => { p.classification.capability_class = 'guarded_write'; }, ITEM.identity, /registers "governance_contract_read" as "read_only"/, true],
  ['a family is not in the matrix', (p) => { p.contract_families.push({ family: 'teleport', usage: 'consumer' }); }, ITEM.matrix, /"teleport" is not in the producer\/consumer matrix/, false],
  ['a consumer declaration contradicts the manifest', (p) => { p.contract_families = [{ family: 'contracts', usage: 'consumer' }]; }, ITEM.matrix, /declares no consumed surface/, true],
  ['the owner is no service and claims to produce', (p) => { p.identity.owner = 'someone-else'; }, [ITEM.matrix, ITEM.verify], /is no service of governance-manifest\.json/, false],
  ['the docs entrypoint is missing', (p) => { p.docs_evidence.entrypoint = 'docs/nothing.md'; }, ITEM.docs, /does not exist/, false],
  ['the docs entrypoint leaves the root', (p) => { p.docs_evidence.entrypoint = '../secrets.md'; }, ITEM.docs, /not a Markdown path under the install root/, false],
  ['a docs evidence field is empty', (p) => { p.docs_evidence.oss_inventory = ' '; }, ITEM.docs, /names no "oss_inventory"/, false],
  ['the lifecycle contradicts the classification', (p) => { p.lifecycle.stage = 'deprecated'; }, ITEM.compatibility, /contradicts the classification/, true],
  ['the proposed schema breaks its family', (p) => { p.compatibility = { mode: 'backward', family: 'planning', proposed_schema: { type: 'string' } }; }, ITEM.compatibility, /backward against planning_v1/, false],
  ['the verify entrypoint is not declared', (p) => { p.verify.entrypoint = 'bash run-anything.sh'; }, ITEM.verify, /not a verify command of configs\/stack-contract\.json/, true],
  ['a readiness target is not a route', (p) => { p.readiness_targets.push('/api/v1/nowhere/readiness'); }, ITEM.verify, /not a GET route/, false],
  ['the live target is not loopback', (p) => { p.verify.live_target = 'http://10.1.2.3:18010/api/v1/contracts/registry'; }, ITEM.verify, /not on a loopback host/, false],
  ['nothing listens at the live target', (p) => { p.verify.live_target = `http://127.0.0.1:${closedPort}/api/v1/contracts/registry`; }, ITEM.verify, /live target "http:\/\/127\.0\.0\.1:\d+\/api\/v1\/contracts\/registry" is unreachable \(ECONNREFUSED\)/, false],
  ['the live target answers not 2xx', (p) => { p.verify.live_target = `${running.platform}/api/v1/projections/workboard-unified-access/readiness`; }, ITEM.verify, /answers 503, not 2xx/, false],
  ['a path live target answers not 2xx', (p) => { p.verify.live_target = '/api/v1/projections/workboard-unified-access/readiness'; }, ITEM.verify, /answers 503, not 2xx/, false],
  ['the shipped verify command fails', (p) => { p.verify.entrypoint = VERIFY.fails; }, ITEM.verify, /exited 3: registry unreachable/, false],
  ['the shipped verify command overruns its time limit', (p) => { p.verify.entrypoint = VERIFY.hangs; }, ITEM.verify, /did not finish within 1500 ms/, false],
  ['the verify command is declared but not shipped in this install', (p) => { p.verify.entrypoint = VERIFY.unbuilt; }, ITEM.verify, /not shipped in this install/, false],
  ['the entrypoint is a command line of the payload, not the contract\'s', (p) => { p.verify.entrypoint = 'node -e process.exit(0)'; }, ITEM.verify, /not a verify command of configs\/stack-contract\.json/, true],
];

for (const [name, change, item, reason, blocking] of RED) {
  test(`admission dry-run is red when ${name}`, async () => {
    const body = payload();
    change(body);
    const result = await dryRun(body);
    assert.equal(result.verdict, 'red');
    const failing = result.checklist.filter((c) => c.verdict === 'fail');
    assert.deepEqual(failing.map((c) => c.item), [item].flat(), JSON.stringify(result.checklist, null, 1));
    assert.ok(failing[0]!.reasons.some((r) => reason.test(r)), failing[0]!.reasons.join('\n'));
    assert.equal(result.blocking_drift.some((d) => d.kind === 'admission_contradiction'), blocking);
    assert.equal(result.admitted, false);
  });
}

test('admission dry-run is red when the live surfaces drift: a seeded contradiction blocks, named in blocking_drift', async () => {
  const drifted = tempRoot();
  drifted.editJson('contracts/governance/identity_contracts_v1.json', (a) => { a.content['surface-admission'].routes.push('/api/v1/contracts/nowhere'); });
  const other = await startGovernance({ role: 'control-api', env: rootEnv(drifted.root) });
  try {
    const response = await sendJson(`${other.worker}/api/v1/tools/admission/dry-run`, payload(), { headers: AUTH });
    const result = response.json() as Result;
    assert.equal(result.verdict, 'red');
    assert.ok(result.blocking_drift.some((d) => d.kind === 'route_ref_unresolved'));
    assert.equal(result.checklist.find((c) => c.item === 'a checklist verdict for every mandatory item')?.verdict, 'fail');
  } finally {
    await other.stop();
    drifted.cleanup();
  }
});

test('admission dry-run refuses bad input before anything else: 422 with pointers, 403 for another lane, 401 without a token', async () => {
  const before = await evidenceRows(running);
  const missing = payload();
  delete missing.identity;
  const bad = await sendJson(url, missing, { headers: AUTH });
  assert.equal(bad.status, 422);
  assert.ok((bad.json() as { errors: { pointer: string }[] }).errors.length > 0);
  const wrongEnum = payload();
  wrongEnum.classification.runtime_kind = 'mainframe';
  assert.equal((await sendJson(url, wrongEnum, { headers: AUTH })).status, 422);
  assert.equal((await sendJson(url, payload(), { headers: bearer('mail_producer') })).status, 401, 'the worker gate opens another lane\'s token only on its own routes');
  assert.equal((await sendJson(url, payload(), {})).status, 401);
  assert.equal((await evidenceRows(running))['admission_reviews'] ?? 0, before['admission_reviews'] ?? 0, 'refused requests leave no review');
});

/** The verify item's reasons of a dry run. */
function verifyReasons(result: Result): string[] {
  return result.checklist.find((c) => c.item === ITEM.verify)!.reasons;
}

test('admission dry-run runs the tool\'s verifier against the listener the service bound, not the contract\'s default address', async () => {
  const body = payload();
  body.verify.entrypoint = VERIFIER.reads;
  const result = await dryRun(body);
  assert.equal(result.verdict, 'green', verifyReasons(result).join('\n'));
});

test('admission dry-run: a verify command of another service is blocking drift and never runs', async () => {
  const body = payload();
  body.verify.entrypoint = SEMANTIC_WORKER;
  const result = await dryRun(body);
  assert.equal(result.verdict, 'red');
  assert.ok(result.blocking_drift.some((d) => d.kind === 'admission_contradiction' && /a verify command of service "semantic", not of the tool's own service "governance"/.test(d.detail)), JSON.stringify(result.blocking_drift));
  assert.equal(existsSync(join(running.dataDir, RAN_MARKER)), false, 'the other service\'s command ran');
});

test('admission dry-run: a service\'s own worker or API is no verifier, and never runs', async () => {
  const semantic = payload();
  Object.assign(semantic.identity, { tool_name: 'semantic_projection_verification', owner: 'semantic' });
  semantic.classification.capability_class = 'verification';
  semantic.verify.entrypoint = SEMANTIC_WORKER;
  const governance = payload();
  governance.verify.entrypoint = VERIFIER.api;
  for (const [body, reason] of [[semantic, /runs "semantic-worker", the worker of service "semantic": a service's own executable is no verifier/], [governance, /runs "governance-api", the platform-api of service "governance"/]] as const) {
    const result = await dryRun(body);
    assert.equal(result.verdict, 'red');
    assert.ok(verifyReasons(result).some((r) => reason.test(r)), verifyReasons(result).join('\n'));
  }
  assert.equal(existsSync(join(running.dataDir, RAN_MARKER)), false, 'a service executable ran as a verifier');
});

test('admission dry-run: a verifier that writes (a file, a database, an HTTP write) fails step 5 and changes nothing', async () => {
  const before = await evidenceRows(running);
  const cases: [string, RegExp][] = [
    [VERIFIER.writesFile, /is no read-only verifier: it tried to write \(.*ERR_ACCESS_DENIED/],
    [VERIFIER.writesSqlite, /is no read-only verifier: it tried to write \(.*readonly database/],
    [VERIFIER.posts, /is no read-only verifier: it sent POST \/api\/v1\/events\/outbox\/admission/],
  ];
  for (const [entrypoint, reason] of cases) {
    const body = payload();
    body.verify.entrypoint = entrypoint;
    const result = await dryRun(body);
    assert.equal(result.verdict, 'red', entrypoint);
    assert.ok(verifyReasons(result).some((r) => reason.test(r)), verifyReasons(result).join('\n'));
  }
  assert.equal(existsSync(join(running.dataDir, RAN_MARKER)), false, 'the verifier wrote a file');
  const database = new DatabaseSync(join(running.dataDir, 'governance.sqlite'), { readOnly: true });
  try {
    assert.equal(database.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'verifier_was_here'").get()!['n'], 0, 'the verifier wrote the database');
  } finally {
    database.close();
  }
  const after = await evidenceRows(running);
  assert.equal(after['outbox_records'], (before['outbox_records'] ?? 0) + cases.length, 'only the three reviews\' own outbox events were recorded');
});
