import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { FIXTURES, fixtureReceipt } from '../../src/semantic/index.ts';
import { evaluateRetrievalGate } from '../../scripts/_semantic/retrieval-gates.ts';
import { runScript, tempDir } from './fixtures/semantic-root.ts';

function completeReceipt(): Record<string, any> {
  return {
    receipt: 'semantic_retrieval_gate_runtime_owner',
    version: 1,
    stage: 'S1_read_only',
    runtime_owner: 'runtime-team',
    environment: 'host-a',
    source_id: 'src-42',
    run_id: 'run-7',
    receipt_id: 'rcpt-7-1',
    redaction_posture: 'redacted',
    composed_result: { executed: true, reference: 'sha256:5d41402abc4b2a76b9719d911017c592' },
    metrics: { retrieval_quality_score: 0.82, retrieval_p95_latency_ms: 140, retrieval_error_rate: 0, warm_cache_hit_ratio: 0.9 },
  };
}

function writeJson(t: TestContext, value: unknown, name = 'receipt.json'): string {
  const file = join(tempDir(t), name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

test('verify_ts05_retrieval_gates promotes a complete runtime-owner receipt at S1_read_only', (t) => {
  const file = writeJson(t, completeReceipt());
  const text = runScript('verify_ts05_retrieval_gates', ['--stage', 'S1_read_only', '--runtime-owner-receipt-file', file]);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /^PROMOTED: runtime evidence from the runtime-owner receipt$/m);
  const json = runScript('verify_ts05_retrieval_gates', ['--runtime-owner-receipt-file', file, '--json'], { env: { SEMANTIC_ACTIVATION_STAGE: 'S1_read_only' } });
  assert.equal(json.code, 0);
  const verdict = json.json();
  assert.deepEqual([verdict['ok'], verdict['evaluated'], verdict['promoted'], verdict['missing']], [true, true, true, []]);
  assert.deepEqual((verdict['metrics'] as Record<string, unknown>)['retrieval_error_rate'], { status: 'available', value: 0 }, 'a measured zero is a value');
  assert.equal((verdict['identity'] as Record<string, unknown>)['composed_result_reference'], 'sha256:5d41402abc4b2a76b9719d911017c592');
});

const INCOMPLETE: [string, (r: Record<string, any>) => void, string][] = [
  ['no runtime_owner', (r) => delete r.runtime_owner, 'runtime_owner'],
  ['an empty environment', (r) => (r.environment = ' '), 'environment'],
  ['no source_id', (r) => delete r.source_id, 'source_id'],
  ['no run_id', (r) => delete r.run_id, 'run_id'],
  ['no receipt_id', (r) => delete r.receipt_id, 'receipt_id'],
  ['no redaction_posture', (r) => delete r.redaction_posture, 'redaction_posture'],
  ['a redaction posture that redacts nothing', (r) => (r.redaction_posture = 'none'), 'redaction_posture "none" is not admitted (redacted, hashed, no_content)'],
  ['a composed result that was not executed', (r) => (r.composed_result.executed = false), 'composed_result with executed: true and a reference'],
  ['a composed result without reference', (r) => delete r.composed_result.reference, 'composed_result with executed: true and a reference'],
  ['a missing metric', (r) => delete r.metrics.warm_cache_hit_ratio, 'metric "warm_cache_hit_ratio" unavailable: metric "warm_cache_hit_ratio" is absent from the runtime-owner receipt'],
  ['a negative metric', (r) => (r.metrics.retrieval_error_rate = -1), 'metric "retrieval_error_rate" unavailable: metric "retrieval_error_rate" is not a finite non-negative number in the runtime-owner receipt'],
  ['a receipt of another stage', (r) => (r.stage = 'stage_2'), 'receipt stage "stage_2": only a S1_read_only receipt is evaluated'],
  ['no stage', (r) => delete r.stage, 'receipt stage missing: only a S1_read_only receipt is evaluated'],
  ['another kind', (r) => (r.receipt = 'semantic_retrieval_gate_fixture'), 'receipt kind "semantic_retrieval_gate_fixture": expected "semantic_retrieval_gate_runtime_owner"'],
  ['no kind', (r) => delete r.receipt, 'receipt kind missing: expected "semantic_retrieval_gate_runtime_owner"'],
  ['another version', (r) => (r.version = 2), 'receipt version 2: expected 1'],
  ['a version as text', (r) => (r.version = '1'), 'receipt version "1": expected 1'],
  ['no version', (r) => delete r.version, 'receipt version missing: expected 1'],
];

for (const [name, change, item] of INCOMPLETE) {
  test(`verify_ts05_retrieval_gates does not promote a receipt with ${name}`, (t) => {
    const receipt = completeReceipt();
    change(receipt);
    const result = runScript('verify_ts05_retrieval_gates', ['--stage', 'S1_read_only', '--runtime-owner-receipt-file', writeJson(t, receipt), '--json']);
    assert.equal(result.code, 1);
    const verdict = result.json();
    assert.equal(verdict['promoted'], false);
    assert.deepEqual(verdict['missing'], [item]);
  });
}

test('verify_ts05_retrieval_gates evaluates nothing outside S1_read_only, and missing metrics stay unavailable', (t) => {
  const file = writeJson(t, completeReceipt());
  for (const stage of ['S0', 'stage_2']) {
    const result = runScript('verify_ts05_retrieval_gates', ['--stage', stage, '--runtime-owner-receipt-file', file, '--json']);
    assert.equal(result.code, 1);
    const verdict = result.json();
    assert.deepEqual([verdict['evaluated'], verdict['promoted'], verdict['missing']], [false, false, [`stage is ${stage}: a runtime-owner receipt is evaluated only at S1_read_only`]]);
    for (const value of Object.values(verdict['metrics'] as Record<string, { status: string }>)) assert.equal(value.status, 'unavailable');
  }
  const none = runScript('verify_ts05_retrieval_gates', ['--stage', 'S1_read_only']);
  assert.equal(none.code, 1);
  assert.match(none.stdout, /^ {2}- runtime-owner receipt \(--runtime-owner-receipt-file\)$/m);
  assert.match(none.stdout, /^ {2}retrieval_quality_score: unavailable \(runtime-owner receipt has no metrics object\)$/m);
});

test('evaluateRetrievalGate() never promotes S0 fixture fields, even next to a complete identity', () => {
  const definition = FIXTURES.find((f) => f.name === 'retrieval-gate')!;
  const fixture = fixtureReceipt(definition, { fixture_id: 'retrieval-gate.hybrid-001', scenario: 'hybrid_nominal' }, {
    stage: 'S1_read_only', canaryTenantId: undefined, runtimeArtifact: () => ({ ok: false, reason: 'none' }),
  });
  const verdict = evaluateRetrievalGate({ stage: 'S1_read_only', receipt: { ...completeReceipt(), ...fixture, composed_result_executed: true } });
  assert.equal(verdict.promoted, false);
  assert.ok(verdict.missing.includes('S0 fixture fields never promote runtime evidence (synthetic, fixture, composed_result_executed, promotes_runtime_evidence, stage S0)'), verdict.missing.join('\n'));
  const marked = evaluateRetrievalGate({ stage: 'S1_read_only', receipt: { ...completeReceipt(), stage: 'S0' } });
  assert.deepEqual(marked.missing, ['S0 fixture fields never promote runtime evidence (stage S0)']);
});

test('verify_ts05_retrieval_gates --metrics-file is parsed, said to be deprecated, and never promotes', (t) => {
  const metrics = writeJson(t, completeReceipt().metrics, 'metrics.json');
  const result = runScript('verify_ts05_retrieval_gates', ['--stage', 'S1_read_only', '--metrics-file', metrics, '--json']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /--metrics-file is deprecated: its metrics are reported but never promote evidence/);
  const verdict = result.json();
  assert.equal(verdict['promoted'], false);
  assert.deepEqual((verdict['deprecated_metrics_file'] as { promotes: boolean; metrics: Record<string, unknown> }).promotes, false);
  assert.deepEqual((verdict['deprecated_metrics_file'] as { metrics: Record<string, unknown> }).metrics['retrieval_p95_latency_ms'], { status: 'available', value: 140 });
  assert.equal((verdict['deprecations'] as string[]).length, 1);
  // With a complete receipt beside it the receipt promotes; the metrics file adds nothing.
  const both = runScript('verify_ts05_retrieval_gates', ['--stage', 'S1_read_only', '--metrics-file', metrics, '--runtime-owner-receipt-file', writeJson(t, completeReceipt())]);
  assert.equal(both.code, 0);
  assert.match(both.stdout, /--metrics-file parsed \(deprecated\): never promotes/);
  const broken = runScript('verify_ts05_retrieval_gates', ['--metrics-file', writeJson(t, '{"retrieval', 'broken.json')]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /Cannot read metrics file ".*broken\.json": not JSON/);
});

test('verify_ts05_retrieval_gates exits 2 for an unknown stage or a missing receipt file', (t) => {
  const stage = runScript('verify_ts05_retrieval_gates', ['--stage', 'S9']);
  assert.equal(stage.code, 2);
  assert.match(stage.stderr, /Unknown stage "S9": use S0, S1_read_only, stage_2/);
  const missing = runScript('verify_ts05_retrieval_gates', ['--runtime-owner-receipt-file', join(tempDir(t), 'absent.json')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /Cannot read runtime-owner receipt ".*absent\.json": ENOENT/);
});
