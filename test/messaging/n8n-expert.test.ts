// n8n_expert against a valid export and one broken in one place per check.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { n8nExpertCommand } from '../../scripts/_n8n/command.ts';
import { runCaptured } from '../helpers/run-command.ts';

const GOOD = JSON.parse(readFileSync(new URL('./fixtures/n8n-good.json', import.meta.url), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'airlock-n8n-'));

async function run(...docs: unknown[]): Promise<{ status: number; body: { ok: boolean; findings: { check: string; message: string }[] } }> {
  const files = docs.map((doc, i) => {
    const file = join(dir, `wf-${Math.random().toString(36).slice(2)}-${i}.json`);
    writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return file;
  });
  const out = await runCaptured(n8nExpertCommand, ['check', ...files, '--json']);
  return { status: out.status, body: out.json };
}

function broken(change: (doc: any) => void): unknown {
  const doc = structuredClone(GOOD);
  change(doc);
  return doc;
}

test('n8n_expert passes a valid export (exit 0)', async () => {
  const { status, body } = await run(GOOD);
  assert.equal(status, 0);
  assert.deepEqual(body.findings, []);
});

const cases: [string, (doc: any) => void, string][] = [
  ['a repeated node name', (d) => d.nodes.push({ ...d.nodes[1], id: '9' }), 'node_names_unique'],
  ['a connection to a missing node', (d) => (d.connections.Sign.main[0][0].node = 'Gone'), 'connections_resolve'],
  ['connections from a missing node', (d) => (d.connections.Ghost = { main: [[{ node: 'Sign', type: 'main', index: 0 }]] }), 'connections_resolve'],
  ['an inline Authorization header', (d) => d.nodes[2].parameters.headerParameters.parameters.push({ name: 'Authorization', value: 'Bearer abc123' }), 'no_inline_credentials'],
  ['an inline password parameter', (d) => (d.nodes[1].parameters.password = 'hunter2'), 'no_inline_credentials'],
  ['a URL with a password', (d) => (d.nodes[1].parameters.endpoint = 'https://user:pw@example.org/'), 'no_inline_credentials'],
  ['an unsigned callback', (d) => (d.nodes[2].parameters.headerParameters.parameters = []), 'callbacks_signed'],
  ['a fixed X-Signature', (d) => (d.nodes[2].parameters.headerParameters.parameters[0].value = 'v1=deadbeef'), 'callbacks_signed'],
];
for (const [what, change, check] of cases) {
  test(`n8n_expert finds ${what} (${check}, exit 1)`, async () => {
    const { status, body } = await run(broken(change));
    assert.equal(status, 1);
    assert.deepEqual([...new Set(body.findings.map((f) => f.check))], [check]);
  });
}

test('n8n_expert: an expression reading the environment is not an inline credential', async () => {
  const { status } = await run(broken((d) => d.nodes[2].parameters.headerParameters.parameters.push({ name: 'Authorization', value: '={{ $env.ERP_TOKEN }}' })));
  assert.equal(status, 0);
});

test('n8n_expert: the same webhook path in two exports is a finding', async () => {
  const { status, body } = await run(GOOD, broken((d) => (d.name = 'Copy')));
  assert.equal(status, 1);
  assert.deepEqual(body.findings.map((f) => f.check), ['webhook_paths_unique']);
});

test('n8n_expert exits 2 for a file that is not JSON, not a workflow export, or missing', async () => {
  assert.equal((await run('{not json')).status, 2);
  assert.equal((await run({ name: 'x' })).status, 2);
  assert.equal((await run({ nodes: [{ name: 1 }] })).status, 2);
  assert.equal((await runCaptured(n8nExpertCommand, [join(dir, 'missing.json')])).status, 2);
  assert.equal((await runCaptured(n8nExpertCommand, [])).status, 2);
});

test('n8n_expert on an endless file (/dev/zero) or a directory exits 2 with one clear line, without reading it whole', async () => {
  for (const [file, said] of [['/dev/zero', /"\/dev\/zero" is larger than 16777216 bytes/], [dir, /EISDIR/]] as const) {
    const out = await runCaptured(n8nExpertCommand, ['check', file]);
    assert.equal(out.status, 2, out.stdout);
    assert.match(out.stderr, said);
  }
});

// The shapes current n8n writes: `n8n export:workflow --all` (a JSON array of workflows with their
// metadata), HTTP Request v4.2 with JSON headers (`specifyHeaders: "json"`, `jsonHeaders`), and
// expression values that hold no placeholder ("=Bearer sk-...", a literal once evaluated).
const EXPORT_ALL = JSON.parse(readFileSync(new URL('./fixtures/n8n-export-all.json', import.meta.url), 'utf8')) as any[];

test('n8n_expert reads the JSON array of `n8n export:workflow --all` and names each workflow in its findings', async () => {
  const { status, body } = await run(EXPORT_ALL);
  assert.equal(status, 1);
  const findings = body.findings as { check: string; file: string; node?: string; message: string }[];
  assert.deepEqual(findings.map((f) => [f.check, f.file.replace(/^.*\//, '').replace(/^wf-\w+-/, ''), f.node]), [
    ['no_inline_credentials', '0.json[1]', 'Summarize'],
    ['no_inline_credentials', '0.json[1]', 'Fetch tickets'],
  ]);
  assert.match(findings[0]!.message, /jsonHeaders \("Authorization"\)/);
});

test('n8n_expert: a clean `export:workflow --all` array passes, with its callback signed in jsonHeaders (exit 0)', async () => {
  const { status, body } = await run([EXPORT_ALL[0]]);
  assert.deepEqual(body.findings, []);
  assert.equal(status, 0);
});

const currentShapes: [string, (wf: any) => void, string][] = [
  ['"=Bearer sk-..." in a header list (an expression without placeholders is a literal)', (wf) => (wf.nodes[2].parameters.headerParameters = { parameters: [{ name: 'Authorization', value: '=Bearer sk-abc123' }] }), 'no_inline_credentials'],
  ['a literal token in jsonHeaders', (wf) => (wf.nodes[2].parameters.jsonHeaders = '={\n  "X-Signature": "{{ $json.signature }}",\n  "X-Signature-Timestamp": "{{ $json.ts }}",\n  "X-API-Key": "k-123456"\n}'), 'no_inline_credentials'],
  ['a literal token in v1 headerParametersJson', (wf) => (wf.nodes[2].parameters.headerParametersJson = '{"Authorization": "Bearer abc"}'), 'no_inline_credentials'],
  ['a fixed X-Signature in jsonHeaders', (wf) => (wf.nodes[2].parameters.jsonHeaders = '={"X-Signature": "v1=deadbeef", "X-Signature-Timestamp": "{{ $json.ts }}"}'), 'callbacks_signed'],
  ['"=v1=deadbeef" as X-Signature (no placeholder: fixed)', (wf) => (wf.nodes[2].parameters.jsonHeaders = '={"X-Signature": "=v1=deadbeef", "X-Signature-Timestamp": "{{ $json.ts }}"}'), 'callbacks_signed'],
  ['a callback without its signature headers in jsonHeaders', (wf) => (wf.nodes[2].parameters.jsonHeaders = '={"X-Signature-Timestamp": "{{ $json.ts }}"}'), 'callbacks_signed'],
];
for (const [what, change, check] of currentShapes) {
  test(`n8n_expert finds ${what} (${check}, exit 1)`, async () => {
    const wf = structuredClone(EXPORT_ALL[0]);
    change(wf);
    const { status, body } = await run([wf]);
    assert.equal(status, 1);
    assert.deepEqual([...new Set(body.findings.map((f) => f.check))], [check]);
  });
}

test('n8n_expert: an empty export array, or an array holding a non-workflow, is not a workflow export (exit 2)', async () => {
  for (const doc of [[], [EXPORT_ALL[0], { id: 'x' }], [1]]) {
    const out = await runCaptured(n8nExpertCommand, ['check', writeDoc(doc)]);
    assert.equal(out.status, 2, JSON.stringify(doc));
  }
});

function writeDoc(doc: unknown): string {
  const file = join(dir, `doc-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}
