import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAdmissionSource, renderMaterialized } from '../../scripts/_materialize/admission-source.ts';

function valid() {
  return {
    version: 1,
    admissions: [
      { sender: 'ops@example.org', scopes: ['mail_management.write', 'mail_management.read'], note: 'operators' },
      { sender: 'example.com', scopes: ['mail_management.read'] },
    ],
  };
}

test('checkAdmissionSource() accepts a valid source, sorting senders and scopes and keeping notes', () => {
  assert.deepEqual(checkAdmissionSource(JSON.stringify(valid())), {
    ok: true,
    admissions: [
      { sender: 'example.com', kind: 'domain', scopes: ['mail_management.read'] },
      { sender: 'ops@example.org', kind: 'mailbox', scopes: ['mail_management.read', 'mail_management.write'], note: 'operators' },
    ],
  });
});

// Each case breaks the valid source in one place: [case, change, reason].
const BROKEN: [string, (s: ReturnType<typeof valid>) => unknown, string][] = [
  ['an unknown top-level key', (s) => ({ ...s, extra: true }), '/extra: unknown property'],
  ['a wrong version', (s) => ({ ...s, version: '1' }), '/version: must be 1, got "1"'],
  ['admissions not an array', (s) => ({ ...s, admissions: {} }), '/admissions: must be an array'],
  ['an entry that is not an object', (s) => ({ ...s, admissions: ['x'] }), '/admissions/0: must be an object'],
  ['an uppercase domain', (s) => ({ ...s, admissions: [{ sender: 'Example.com', scopes: ['a'] }] }), '/admissions/0/sender: must be a lowercase domain ("example.org") or mailbox ("ops@example.org"), got "Example.com"'],
  ['a single-label domain', (s) => ({ ...s, admissions: [{ sender: 'localhost', scopes: ['a'] }] }), '/admissions/0/sender: must be a lowercase domain ("example.org") or mailbox ("ops@example.org"), got "localhost"'],
  ['a mailbox with two @', (s) => ({ ...s, admissions: [{ sender: 'a@b@example.org', scopes: ['a'] }] }), '/admissions/0/sender: must be a lowercase domain ("example.org") or mailbox ("ops@example.org"), got "a@b@example.org"'],
  ['a duplicate sender', (s) => ({ ...s, admissions: [s.admissions[1], s.admissions[1]] }), '/admissions/1/sender: "example.com" is admitted twice'],
  ['empty scopes', (s) => ({ ...s, admissions: [{ sender: 'example.com', scopes: [] }] }), '/admissions/0/scopes: must be a non-empty array'],
  ['a malformed scope', (s) => ({ ...s, admissions: [{ sender: 'example.com', scopes: ['Mail Read'] }] }), '/admissions/0/scopes/0: must be a scope name like "mail_management.read", got "Mail Read"'],
  ['a repeated scope', (s) => ({ ...s, admissions: [{ sender: 'example.com', scopes: ['a.b', 'a.b'] }] }), '/admissions/0/scopes/1: "a.b" is listed twice'],
  ['a note that is not text', (s) => ({ ...s, admissions: [{ sender: 'example.com', scopes: ['a'], note: 1 }] }), '/admissions/0/note: must be a string'],
  ['an unknown entry key with a slash', (s) => ({ ...s, admissions: [{ sender: 'example.com', scopes: ['a'], 'x/y': 1 }] }), '/admissions/0/x~1y: unknown property'],
];

for (const [name, change, reason] of BROKEN) {
  test(`checkAdmissionSource() refuses ${name}`, () => {
    assert.deepEqual(checkAdmissionSource(JSON.stringify(change(valid()))), { ok: false, reasons: [reason] });
  });
}

test('checkAdmissionSource() refuses text that is not a JSON object', () => {
  assert.deepEqual(checkAdmissionSource('[]'), { ok: false, reasons: ['Source must be a JSON object'] });
  const notJson = checkAdmissionSource('{');
  assert.equal(notJson.ok, false);
  assert.match(!notJson.ok ? notJson.reasons[0]! : '', /^Source is not JSON: /);
});

test('renderMaterialized() is a pure function of admissions and source', () => {
  const checked = checkAdmissionSource(JSON.stringify(valid()));
  assert.ok(checked.ok);
  const source = { commit: 'a'.repeat(40), path: 'configs/mail-admission.json', sha256: 'b'.repeat(64) };
  const text = renderMaterialized(checked.admissions, source);
  assert.equal(text, renderMaterialized(checked.admissions, source));
  assert.ok(text.endsWith('}\n'));
  assert.deepEqual(JSON.parse(text), { format: 'airlock.mail_admission.v1', source, admissions: checked.admissions });
});
