// Issue 24: governance checks its evidence chains on every readiness probe and evidence read;
// each check verifies only the rows appended since the previous one, never the whole history.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkEvidenceChains, hostObservations, openGovernanceDatabase } from '../../src/governance/database.ts';

test('checkEvidenceChains() verifies new rows only: a row verified before is not read again, a bad new row fails', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-gov-chains-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = openGovernanceDatabase(dir);
  t.after(() => store.close());
  const observe = (n: number) => store.append(hostObservations, { probe: 'disk', subject: `s${n}`, payload: { n } });
  for (let n = 1; n <= 3; n++) await observe(n);
  assert.equal(checkEvidenceChains(store).ok, true);
  await observe(4);
  const second = checkEvidenceChains(store);
  assert.deepEqual([second.ok, second.tables.find((table) => table.table === 'host_observations')?.rows], [true, 4]);
  // Rows 1-4 were verified: changing one behind the triggers' back is for the offline verifier to find.
  store.sqlite.exec(`DROP TRIGGER host_observations_no_update; UPDATE host_observations SET payload = '{"n":9}' WHERE seq = 2`);
  assert.equal(checkEvidenceChains(store).ok, true);
  store.sqlite.exec(`INSERT INTO host_observations (seq, recorded_at, probe, subject, payload, sha256, prev_sha256) VALUES (5, '2026-01-01T00:00:00.000Z', 'disk', 's5', '{"n":5}', '${'0'.repeat(64)}', '${'0'.repeat(64)}')`);
  const broken = checkEvidenceChains(store);
  assert.equal(broken.ok, false);
  assert.match(broken.reasons.join('\n'), /evidence table "host_observations" seq 5: prev_sha256 does not match/);
});
