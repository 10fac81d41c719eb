// The ERP service itself (src/erp) over a temporary data directory with 1000 Employees and Users
// of identity truth loaded at start, answering identity_projections.workboard_access_fact with
// Frappe token auth (ERP_API_KEYS from the scenario). Prints the kernel's listening line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, runService } from '../../src/kernel/index.ts';
import { loadErpConfig } from '../../src/erp/config.ts';
import { applyIdentityLoad } from '../../src/erp/identity-projections/identity-truth.ts';
import { createErpService } from '../../src/erp/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'airlock-bench-erp-identity-'));
const service = await runService(async () => {
  const erp = await createErpService(loadErpConfig({ ...process.env, AIRLOCK_DATA_DIR: dir, ERP_LISTEN: '127.0.0.1:0' }), { log: createLogger({ name: 'erp', level: 'error' }) });
  const people = Array.from({ length: 1000 }, (_, i) => i);
  await erp.store.write((sqlite, tx) => applyIdentityLoad(sqlite, tx, {
    employees: people.map((i) => ({ name: `HR-EMP-${String(i).padStart(5, '0')}`, employee_name: `Person ${i}`, status: 'Active', user_id: `u${i}@example.test`, project_manager_projects: [], special_posture: null })),
    users: people.map((i) => ({ name: `u${i}@example.test`, enabled: 1, user_type: 'System User', roles: ['Workboard User'] })),
    observedAt: new Date().toISOString(),
  }, 'bench', new Date()));
  return erp;
});
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
void service;
