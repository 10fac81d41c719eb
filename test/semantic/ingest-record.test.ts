import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideIngestRecord } from '../../src/semantic/ingest-record.ts';
import { tenantHash } from '../../src/semantic/tenant-hash.ts';
import { edgeRecord, nodeRecord } from './fixtures/semantic-fixtures.ts';

test('decideIngestRecord() merges a valid node with its declared domain and the tenant only as a hash', () => {
  const decision = decideIngestRecord(JSON.stringify(nodeRecord()));
  assert.equal(decision.state, 'MERGED');
  if (decision.state !== 'MERGED') return;
  assert.deepEqual(decision.merge, {
    kind: 'node', recordId: 'r-node-1', tenantHash: tenantHash('tenant-a'), domain: 'payments', nodeId: 'n1', label: 'Payment', properties: '{"amount":10}',
  });
  assert.match(decision.merge.tenantHash, /^[0-9a-f]{64}$/);
});

test('decideIngestRecord() merges a valid edge', () => {
  const decision = decideIngestRecord(JSON.stringify(edgeRecord({ isolation_domain_ref: 'customer_relationship' })));
  assert.equal(decision.state, 'MERGED');
  assert.equal(decision.state === 'MERGED' && decision.merge.domain, 'customer_relationship');
});

test('decideIngestRecord() quarantines with a reason and applies no permissive default', () => {
  const table: [string, string, string | null][] = [
    ['not json', 'record_malformed', null],
    ['[1, 2]', 'record_malformed', null],
    [JSON.stringify(nodeRecord({ isolation_domain_ref: undefined })), 'isolation_domain_ref_missing', 'r-node-1'],
    [JSON.stringify(nodeRecord({ isolation_domain_ref: null })), 'isolation_domain_ref_missing', 'r-node-1'],
    [JSON.stringify(nodeRecord({ isolation_domain_ref: '' })), 'isolation_domain_ref_missing', 'r-node-1'],
    [JSON.stringify(nodeRecord({ isolation_domain_ref: 'default' })), 'isolation_domain_ref_unknown', 'r-node-1'],
    [JSON.stringify(nodeRecord({ isolation_domain_ref: 'Payments' })), 'isolation_domain_ref_unknown', 'r-node-1'],
    [JSON.stringify(nodeRecord({ isolation_domain_ref: 7 })), 'isolation_domain_ref_unknown', 'r-node-1'],
    [JSON.stringify(nodeRecord({ label: undefined })), 'record_invalid', 'r-node-1'],
    [JSON.stringify(nodeRecord({ from: 'n1' })), 'record_invalid', 'r-node-1'],
    [JSON.stringify(nodeRecord({ extra: true })), 'record_invalid', 'r-node-1'],
    [JSON.stringify(edgeRecord({ relation: 'Has Spaces' })), 'record_invalid', 'r-edge-1'],
    [JSON.stringify(nodeRecord({ kind: 'blob' })), 'record_invalid', 'r-node-1'],
    [JSON.stringify(nodeRecord({ tenant_id: undefined })), 'record_invalid', 'r-node-1'],
  ];
  for (const [text, reason, recordId] of table) {
    const decision = decideIngestRecord(text);
    assert.equal(decision.state, 'QUARANTINED', text);
    if (decision.state !== 'QUARANTINED') continue;
    assert.equal(decision.reason, reason, text);
    assert.equal(decision.recordId, recordId, text);
    assert.ok(decision.detail.length > 0);
  }
});

test('decideIngestRecord() quarantines values storage would change: lone surrogates, non-finite and inexact numbers', () => {
  const cases: [string, string][] = [
    [JSON.stringify(nodeRecord()).replace('"tenant-a"', '"tenant-a\\ud800"'), '/tenant_id'],
    [JSON.stringify(nodeRecord()).replace('"amount":10', '"amount":1e400'), '/properties/amount'],
    [JSON.stringify(nodeRecord()).replace('"amount":10', '"amount":12345678901234567890'), '/properties/amount'],
  ];
  for (const [text, pointer] of cases) {
    const decision = decideIngestRecord(text);
    assert.equal(decision.state, 'QUARANTINED', text);
    assert.ok(decision.state === 'QUARANTINED' && decision.reason === 'record_invalid', text);
    assert.ok(decision.state === 'QUARANTINED' && decision.detail.includes(`"${pointer}"`), `${text}: ${JSON.stringify(decision)}`);
  }
});

test('tenantHash() refuses an ill-formed id instead of merging it with another', () => {
  assert.throws(() => tenantHash('acme\ud800'), /not well-formed Unicode/);
  assert.notEqual(tenantHash('acme\ufffd'), tenantHash('acme'));
});
