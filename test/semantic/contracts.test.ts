import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CDC_CONTRACT, CONSUMER_MATRIX, checkCdcMatrix, consumerAdmission } from '../../src/semantic/cdc-matrix.ts';
import { manifest } from '../../src/semantic/manifest.ts';
import { ISOLATION_DOMAINS_CONTRACT, ISOLATION_DOMAIN_REFS, checkIsolationDomainsContract, isIsolationDomain } from '../../src/semantic/isolation-domains.ts';

test('the isolation-domains contract lists fifteen baseline domains plus customer_relationship', () => {
  assert.deepEqual(checkIsolationDomainsContract(ISOLATION_DOMAINS_CONTRACT), { ok: true, reasons: [] });
  assert.equal(ISOLATION_DOMAIN_REFS.length, 16);
  assert.equal(ISOLATION_DOMAIN_REFS.at(-1), 'customer_relationship');
  assert.ok(isIsolationDomain('customer_relationship') && !isIsolationDomain('default') && !isIsolationDomain(undefined));
});

test('checkIsolationDomainsContract() names each defect', () => {
  const doc = structuredClone(ISOLATION_DOMAINS_CONTRACT) as { baseline: { ref: string }[]; governed_extensions: { ref: string }[] };
  doc.baseline[1]!.ref = doc.baseline[0]!.ref;
  doc.baseline.push({ ref: 'Bad Ref' });
  doc.governed_extensions = [];
  assert.deepEqual(checkIsolationDomainsContract(doc).reasons, [
    'baseline lists 16 domains, expected 15',
    'governed_extensions does not list "customer_relationship"',
    'domain "Bad Ref" is not a lower-case identifier',
    'domain "identity_access" is listed twice',
  ]);
});

test('the CDC matrix admits exactly three consumers and gates four', () => {
  assert.deepEqual(checkCdcMatrix(CDC_CONTRACT), { ok: true, reasons: [] });
  assert.deepEqual(CONSUMER_MATRIX.filter((c) => c.status === 'admitted').map((c) => c.consumer), ['live-runtime-contract-check', 'host-runtime-snapshot-export', 'governance-status-bundle-export']);
  assert.deepEqual(CONSUMER_MATRIX.filter((c) => c.status === 'downstream_gated').map((c) => c.consumer), ['governance-service', 'erp-workflow-service', 'agent-context-service', 'memory-to-graph-migration']);
});

test('checkCdcMatrix() refuses a gated entry that admits an endpoint or claims green, and surfaces no route serves', () => {
  const doc = structuredClone(CDC_CONTRACT) as { ts01_consumer_matrix: { consumers: Record<string, unknown>[] } };
  const consumers = doc.ts01_consumer_matrix.consumers;
  consumers[3]!['surfaces'] = [{ method: 'GET', path: '/api/v1/semantic/runtime/status' }];
  consumers[4]!['claims_green'] = true;
  consumers.push({ ...consumers[0], consumer: 'fourth' });
  assert.deepEqual(checkCdcMatrix(doc, [{ method: 'GET', path: '/api/v1/semantic/runtime/status' }]).reasons, [
    'consumer "live-runtime-contract-check" lists GET /api/v1/semantic/context/readback, which no route serves',
    'consumer "host-runtime-snapshot-export" lists GET /api/v1/semantic/context/readback, which no route serves',
    'consumer "governance-status-bundle-export" lists GET /api/v1/semantic/context/readback, which no route serves',
    'downstream-gated consumer "governance-service" must admit no endpoint, but lists 1',
    'downstream-gated consumer "erp-workflow-service" must not claim a green result',
    'consumer "fourth" lists GET /api/v1/semantic/context/readback, which no route serves',
    '4 consumers are admitted, expected exactly 3',
  ]);
  assert.deepEqual(checkCdcMatrix({}).reasons, ['ts01_consumer_matrix.consumers is missing or not a list']);
});

test('consumerAdmission() admits listed surfaces only and gates downstream entries', () => {
  const status = { method: 'GET', path: '/api/v1/semantic/runtime/status' };
  assert.deepEqual(consumerAdmission('live-runtime-contract-check', status), { admitted: true, consumer: 'live-runtime-contract-check' });
  assert.deepEqual(consumerAdmission('agent-context-service', status), { admitted: false, reason: 'downstream_gated', consumer: 'agent-context-service' });
  assert.deepEqual(consumerAdmission('nobody', status), { admitted: false, reason: 'unknown_consumer', consumer: 'nobody' });
  assert.equal(consumerAdmission('live-runtime-contract-check', { method: 'POST', path: status.path }).admitted, false);
});

test('the semantic manifest declares only read-only verify commands: no executable of the service (the worker writes the live database)', () => {
  const executables = manifest.executables.map((e) => `dist/bin/${e.name}.mjs`);
  for (const command of manifest.verify) {
    assert.ok(!executables.some((bundle) => command.split(/\s+/).includes(bundle)), `"${command}" runs a service executable`);
    assert.match(command, /^(curl -fsS http:\/\/127\.0\.0\.1:\d+\/\S+|node dist\/bin\/[a-z_]+\.mjs)$/, command);
  }
});
