// Naming series (Frappe's "PREFIX-.YYYY.-#####"): each DocType and year counts from 00001, one
// number per name taken, a number taken in a rolled-back write is taken again, and a series a
// restore derived continues after the highest name handed out.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { nextName } from '../../src/erp/database/documents.ts';
import { openErpDatabase } from '../../src/erp/database/open-erp-database.ts';

const IN_2026 = new Date(Date.UTC(2026, 5, 1));
const IN_2027 = new Date(Date.UTC(2027, 0, 1));

async function open(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-erp-naming-'));
  const store = await openErpDatabase(join(dir, 'erp.sqlite'), { now: () => IN_2026 });
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

test('each DocType and year counts from 00001, one number per name', async (t) => {
  const store = await open(t);
  const names = await store.write((sqlite) => [
    nextName(sqlite, 'Integration Event', IN_2026),
    nextName(sqlite, 'Revenue Event', IN_2026),
    nextName(sqlite, 'Integration Event', IN_2026),
    nextName(sqlite, 'Integration Event', IN_2027),
    nextName(sqlite, 'Revenue Event', IN_2026),
    nextName(sqlite, 'Not A DocType', IN_2026),
  ]);
  assert.deepEqual(names, ['INT-EVT-2026-00001', 'REV-EVT-2026-00001', 'INT-EVT-2026-00002', 'INT-EVT-2027-00001', 'REV-EVT-2026-00002', 'DOC-2026-00001']);
  assert.equal(await store.write((sqlite) => nextName(sqlite, 'Integration Event', IN_2026)), 'INT-EVT-2026-00003', 'the count is stored, not kept in memory');
  const rows = store.sqlite.prepare('SELECT prefix, current FROM naming_series ORDER BY prefix').all().map((row) => ({ ...row }));
  assert.deepEqual(rows, [
    { prefix: 'DOC-2026-', current: 1 },
    { prefix: 'INT-EVT-2026-', current: 3 },
    { prefix: 'INT-EVT-2027-', current: 1 },
    { prefix: 'REV-EVT-2026-', current: 2 },
  ]);
});

test('a name taken by a write that failed is handed out again; a series continues from its stored count', async (t) => {
  const store = await open(t);
  await assert.rejects(store.write((sqlite) => {
    nextName(sqlite, 'Lead', IN_2026);
    throw new Error('the effect failed');
  }));
  assert.equal(await store.write((sqlite) => nextName(sqlite, 'Lead', IN_2026)), 'CRM-LEAD-2026-00001');
  store.sqlite.prepare("INSERT INTO naming_series (prefix, current) VALUES ('SUP-INT-2026-', 41)").run();
  assert.equal(await store.write((sqlite) => nextName(sqlite, 'Supplier Intake', IN_2026)), 'SUP-INT-2026-00042');
});
