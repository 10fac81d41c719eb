import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { send } from '../helpers/http.ts';
import { loadArtifacts } from '../../src/governance/contracts/artifacts.ts';
import { READ_ROUTES } from '../../src/governance/routes.ts';
import { routeArtifacts } from '../../src/governance/routing/read-route.ts';
import { startGovernance } from './_service.ts';
import { REPO, rootEnv, tempRoot } from './_fixtures.ts';

const DIR = 'contracts/governance';

test('loadArtifacts() validates every committed artifact against its own schema', () => {
  const set = loadArtifacts(join(REPO, DIR));
  const problems = [...set.artifacts.values()].filter((a) => a.state !== 'valid').map((a) => `${a.file}: ${a.reasons.join('; ')}`);
  assert.deepEqual(problems, []);
  assert.deepEqual([...set.schemas.values()].filter((s) => !s.ok).map((s) => s.reasons), []);
  for (const artifact of set.artifacts.values()) {
    assert.equal(artifact.schemaId, `urn:airlock:governance:schema:${artifact.id}_v1`, `${artifact.id} has a schema of its own`);
    assert.match(artifact.version!, /^1\.\d+\.\d+$/);
  }
  const used = new Set(READ_ROUTES.flatMap(routeArtifacts));
  assert.deepEqual([...set.artifacts.keys()].filter((id) => !used.has(id)), [], 'every artifact is read by some route');
});

// One valid root per case, broken in one place.
const BROKEN: [string, (root: ReturnType<typeof tempRoot>) => void, RegExp][] = [
  ['a member fails its schema', (r) => r.editJson(`${DIR}/acp_contracts_v1.json`, (a) => { a.content['tool-action-registry'].tools[0].capability_class = 'superuser'; }), /\/content\/tool-action-registry\/tools\/0\/capability_class/],
  ['a required member is gone', (r) => r.editJson(`${DIR}/acp_contracts_v1.json`, (a) => { delete a.content['skill-pack-events']; }), /missing required property "skill-pack-events"/],
  ['the file is not JSON', (r) => r.write(`${DIR}/acp_contracts_v1.json`, '{"artifact_id": '), /is not JSON/],
  ['the version contradicts the _v1 name', (r) => r.editJson(`${DIR}/acp_contracts_v1.json`, (a) => { a.version = '2.0.0'; }), /does not match the file's _v1 name/],
  ['the artifact_id contradicts the file name', (r) => r.editJson(`${DIR}/acp_contracts_v1.json`, (a) => { a.artifact_id = 'acp_other'; }), /artifact_id must be "acp_contracts"/],
  ['it names another artifact\'s schema', (r) => r.editJson(`${DIR}/acp_contracts_v1.json`, (a) => { a.schema = 'urn:airlock:governance:schema:artifact_envelope_v1'; }), /schema must be "urn:airlock:governance:schema:acp_contracts_v1"/],
  ['its schema is missing', (r) => r.remove(`${DIR}/schemas/acp_contracts_v1.schema.json`), /does not resolve to any file/],
  ['its schema references a schema that is broken', (r) => r.write(`${DIR}/schemas/artifact_envelope_v1.schema.json`, '{'), /artifact_envelope_v1|unusable|does not compile/],
];

for (const [name, breakIt, reason] of BROKEN) {
  test(`loadArtifacts() marks an artifact invalid when ${name}`, () => {
    const root = tempRoot();
    try {
      breakIt(root);
      const artifact = loadArtifacts(join(root.root, DIR)).get('acp_contracts');
      assert.equal(artifact.state, 'invalid');
      assert.match(artifact.reasons.join('\n'), reason);
    } finally {
      root.cleanup();
    }
  });
}

test('a broken artifact fails its routes closed (503, marker, reason) on both listeners; the rest keeps publishing', async () => {
  const root = tempRoot();
  root.editJson(`${DIR}/acp_contracts_v1.json`, (a) => { a.content['tool-action-registry'].tools[0].state = 'green'; });
  const running = await startGovernance({ role: 'test', env: rootEnv(root.root) });
  try {
    const affected = READ_ROUTES.filter((r) => r.gate !== false && routeArtifacts(r).includes('acp_contracts') && !r.path.includes(':'));
    assert.ok(affected.length >= 7, `${affected.length} routes read acp_contracts`);
    for (const read of affected) {
      for (const [base, headers] of [[running.platform, {}], [running.worker, { authorization: 'Bearer test-operator-token-0001' }]] as const) {
        const response = await send(`${base}${read.path}`, { headers });
        assert.equal(response.status, 503, read.path);
        const body = response.json() as Record<string, unknown>;
        assert.equal(body['projection_state'], 'fail_closed');
        assert.equal(body['reason'], 'artifact_invalid');
        assert.equal(body['artifact_id'], 'acp_contracts');
        assert.match(String((body['errors'] as string[])[0]), /tools\/0\/state/);
        assert.doesNotMatch(response.text, /governance_contract_read/, 'no detail of the broken artifact leaks');
      }
    }
    assert.equal((await send(`${running.platform}/api/v1/governance/posture`)).status, 200, 'other artifacts still publish');
    const health = (await send(`${running.platform}/health`)).json() as { status: string; checks: Record<string, { output?: string }[]> };
    assert.equal(health.status, 'warn');
    assert.match(String(health.checks['artifacts:valid']?.[0]?.output), /acp_contracts/);
    const signoff = await send(`${running.platform}/api/v1/signoff/readiness`);
    assert.equal(signoff.status, 503);
    const registry = (await send(`${running.platform}/api/v1/contracts/registry`)).json() as { artifacts: { id: string; state: string }[] };
    assert.equal(registry.artifacts.find((a) => a.id === 'acp_contracts')?.state, 'invalid');
    const drift = (await send(`${running.platform}/api/v1/contracts/drift`)).json() as { drift: { kind: string; subject: string }[] };
    assert.ok(drift.drift.some((d) => d.kind === 'artifact_invalid' && d.subject === 'acp_contracts'));
    assert.ok(running.logs.some((r) => r['msg'] === 'contract artifact fails closed' && r['artifact'] === 'acp_contracts'));
  } finally {
    await running.stop();
    root.cleanup();
  }
});

test('a missing artifact fails its routes closed with reason artifact_missing', async () => {
  const root = tempRoot();
  root.remove(`${DIR}/combinations_v1.json`);
  const running = await startGovernance({ role: 'platform-api', env: rootEnv(root.root) });
  try {
    const response = await send(`${running.platform}/api/v1/combinations/profiles`);
    assert.equal(response.status, 503);
    assert.deepEqual([(response.json() as Record<string, unknown>)['reason'], (response.json() as Record<string, unknown>)['projection_state']], ['artifact_missing', 'fail_closed']);
    const health = (await send(`${running.platform}/health`)).json() as { status: string; checks: Record<string, { status: string; output?: string }[]> };
    assert.equal(health.status, 'warn', 'a deleted artifact shows in /health too');
    assert.match(health.checks['artifacts:valid']![0]!.output ?? '', /combinations/);
  } finally {
    await running.stop();
    root.cleanup();
  }
});

test('the envelope schema names exactly the checks the service can run', async () => {
  const { CHECK_NAMES } = await import('../../src/governance/platform/checks.ts');
  const { readFileSync } = await import('node:fs');
  const envelope = JSON.parse(readFileSync(join(REPO, DIR, 'schemas', 'artifact_envelope_v1.schema.json'), 'utf8'));
  assert.deepEqual([...envelope.$defs.check_ref.enum].sort(), [...CHECK_NAMES].sort());
});
