// verify_isolation_domain_walls: deterministic verification of the isolation-domain walls with no
// live dependency. --check builds a graph with edges across every pair of domains in a temporary
// control database and proves that nothing crosses; --db audits an existing control database
// read-only. Exit 0 when every check passes, 1 naming each failure, 2 on usage or a missing file.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCommand, EXIT_FAILED, EXIT_OK, main, usageError } from '../src/kernel/index.ts';
import type { Check } from './_semantic/check-report.ts';
import { formatChecks, report } from './_semantic/check-report.ts';
import { auditIsolationWalls, verifyIsolationWalls } from './_semantic/isolation-walls.ts';
import { openReadOnlyQuietly } from './_semantic/read-only-database.ts';

const command = defineCommand({
  name: 'verify_isolation_domain_walls',
  summary: 'Verifies that graph reads never cross an isolation-domain wall (deterministic, no live dependency)',
  description: [
    '--check: in a temporary control database, ingests three nodes per (tenant, domain) compartment for two tenants and all',
    'sixteen domains, an edge inside each compartment, an edge to every other domain and one to the other tenant, plus',
    'records with a missing, empty or unknown isolation_domain_ref; runs the reconciliation worker code; then proves that',
    'every compartment read returns exactly its own nodes and edges, that the wall drops crossing edges planted behind the',
    'worker, that the CHECK constraints refuse an unknown domain, that the bad records are QUARANTINED with no domain',
    'applied, and that every explanation trace has an isolation_domain_wall step. The temporary database is removed.',
    '--db FILE: audits an existing control database read-only (CHECK constraints, every compartment read).',
  ].join('\n'),
  options: {
    check: { type: 'boolean', description: 'Run the deterministic self-contained verification' },
    db: { type: 'string', valueName: 'FILE', description: 'Audit this control database (semantic.sqlite) read-only' },
  },
  async run({ values, json, print, printJson }) {
    if (values.check !== true && values.db === undefined) usageError('Nothing to verify: give --check, --db FILE, or both');
    const checks: Check[] = [];
    const counts: Record<string, Record<string, number>> = {};
    if (values.check === true) {
      const dir = mkdtempSync(join(tmpdir(), 'airlock-walls-'));
      try {
        const result = await verifyIsolationWalls(join(dir, 'semantic.sqlite'));
        checks.push(...result.checks);
        counts['check'] = result.counts;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    if (values.db !== undefined) {
      const sqlite = openReadOnlyQuietly(values.db);
      try {
        const result = auditIsolationWalls(sqlite);
        checks.push(...result.checks.map((c) => ({ ...c, name: `db:${c.name}` })));
        counts['db'] = result.counts;
      } finally {
        sqlite.close();
      }
    }
    const result = report(checks, { counts });
    if (json) printJson(result);
    else {
      for (const line of formatChecks(checks)) print(line);
      if (counts['check']) print(`built ${counts['check']['compartments']} compartments, ${counts['check']['nodes']} nodes, ${counts['check']['edges']} edges (${counts['check']['hidden_edges']} held hidden)`);
    }
    return result.ok ? EXIT_OK : EXIT_FAILED;
  },
});

await main(command);
