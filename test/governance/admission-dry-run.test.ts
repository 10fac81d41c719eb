import { test, before } from 'node:test';
import { createServer } from 'node:net';
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

serviceOnTempRoot(
  (started) => {
    running = started;
    url = `${running.worker}/api/v1/tools/admission/dry-run`;
  },
  {
    env: { GOVERNANCE_DRY_RUN_VERIFY_TIMEOUT_MS: '1500', GOVERNANCE_DRY_RUN_PROBE_TIMEOUT_MS: '1000' },
    prepare: (root) => {
      root.editJson('configs/stack-contract.json', (contract) => { contract.services[0].verify.push(...Object.values(VERIFY)); });
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
const RED: [string, (p: any) => void, string, RegExp, boolean][] = [
  ['the capability class contradicts the tool-action registry', (p) => { p.classification.capability_class = 'guarded_write'; }, ITEM.identity, /registers "governance_contract_read" as "read_only"/, true],
  ['a family is not in the matrix', (p) => { p.contract_families.push({ family: 'teleport', usage: 'consumer' }); }, ITEM.matrix, /"teleport" is not in the producer\/consumer matrix/, false],
  ['a consumer declaration contradicts the manifest', (p) => { p.contract_families = [{ family: 'contracts', usage: 'consumer' }]; }, ITEM.matrix, /declares no consumed surface/, true],
  ['the owner is no service and claims to produce', (p) => { p.identity.owner = 'someone-else'; }, ITEM.matrix, /is no service of governance-manifest\.json/, false],
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
    assert.deepEqual(failing.map((c) => c.item), [item], JSON.stringify(result.checklist, null, 1));
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
