// Where the store meets evidence replication: the settings (given, or from the environment), the
// service name (the database file's name, e.g. erp for var/erp.sqlite), and the replicator whose
// afterCommit() the group committer calls after each COMMIT.

import { basename } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { replicationConfigFromEnv } from '../replication/config.ts';
import type { ReplicationConfig } from '../replication/config.ts';
import { createEvidenceReplicator } from '../replication/evidence-replicator.ts';
import type { EvidenceReplicator } from '../replication/evidence-replicator.ts';
import { createLogger } from '../log.ts';
import type { Logger } from '../log.ts';

export interface ReplicationOptions {
  /** Settings; undefined reads AIRLOCK_EVIDENCE_* from the environment; false turns replication off. */
  config?: ReplicationConfig | false;
  /** The service whose subjects the rows go to; default the database file's name without ".sqlite". */
  service?: string;
  /** Default: JSON lines on stderr (logger `evidence.replication`), so why replication stopped is always said. */
  log?: Logger;
}

/** The replicator for the database at `path`, or undefined when replication is off (always for ":memory:"). */
export function startReplication(sqlite: DatabaseSync, path: string, options: ReplicationOptions = {}): EvidenceReplicator | undefined {
  if (options.config === false) return undefined;
  const config = options.config ?? (path === ':memory:' ? undefined : replicationConfigFromEnv(process.env));
  if (config === undefined) return undefined;
  const service = options.service ?? basename(path).replace(/\.sqlite3?$|\.db$/, '');
  // Services open their store without a logger: the replicator's own lines (stopped for good, a
  // failed attempt, holes refilled) would otherwise go nowhere, and async mode says nothing else.
  const secrets = config.servers.flatMap((s) => [s.pass, s.token]).filter((v): v is string => v !== undefined);
  const log = options.log ?? createLogger({ name: 'evidence.replication', service, secrets });
  return createEvidenceReplicator(sqlite, { service, config, log });
}
