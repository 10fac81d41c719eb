// A kernel route that verifies a house-scheme signature over the raw body, parses the JSON and
// appends it as hash-chained evidence through group commit (synchronous=FULL) before answering.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, defineEvidenceTable, json, openDatabase, runService } from '../../src/kernel/index.ts';

const SECRET = process.env['BENCH_INTAKE_SECRET'] ?? 'bench-intake-secret';
const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-intake-'));
const intake = defineEvidenceTable({ name: 'intake', columns: { subject: 'text' } });
const store = openDatabase(join(dir, 'intake.sqlite'), { evidenceTables: [intake] });

await runService(() => createService({
  name: 'bench-signed-intake',
  version: '0.0.0',
  routes: [{
    method: 'POST', path: '/api/v1/intake', auth: 'none', summary: 'Signed intake',
    request: {}, signature: { scheme: 'house', secrets: () => [SECRET] },
    handler: async (c) => {
      const body = c.body as { subject?: unknown };
      const row = await store.append(intake, { subject: String(body.subject ?? 'unknown'), payload: body as never });
      return json({ accepted: true, seq: row.seq }, { status: 202 });
    },
  }],
  onClose: async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  },
}));
