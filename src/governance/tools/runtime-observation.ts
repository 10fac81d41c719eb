// Live observations of this host and process (tools family, persistence): read at request
// time, classified by the host-pressure policy, and never allowed to change contract truth.

import { availableParallelism, freemem, loadavg, totalmem, uptime } from 'node:os';
import { basename } from 'node:path';
import { json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { checkDatabase, checkEvidenceChains, GOVERNANCE_MIGRATIONS } from '../database.ts';
import { artifactMember } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

const started = Date.now();

type Level = 'normal' | 'elevated' | 'critical';

function classify(value: number, threshold: { elevated: number; critical: number }): Level {
  return value >= threshold.critical ? 'critical' : value >= threshold.elevated ? 'elevated' : 'normal';
}

export function hostSnapshotReply(runtime: GovernanceRuntime): Reply {
  const policy = artifactMember(runtime, 'tools_runtime/host-pressure-policy')!;
  const thresholds = policy['thresholds'] as Record<'load_per_cpu' | 'memory_used_ratio', { elevated: number; critical: number }>;
  const cpus = availableParallelism();
  const loadPerCpu = Math.round((loadavg()[0]! / cpus) * 1000) / 1000;
  const memoryUsed = Math.round((1 - freemem() / totalmem()) * 1000) / 1000;
  const levels = [classify(loadPerCpu, thresholds.load_per_cpu), classify(memoryUsed, thresholds.memory_used_ratio)];
  return json({
    observed_at: new Date(runtime.now()).toISOString(),
    cpus,
    load_average_1m: loadavg()[0],
    load_per_cpu: loadPerCpu,
    memory_used_ratio: memoryUsed,
    host_uptime_seconds: Math.round(uptime()),
    pressure: levels.includes('critical') ? 'critical' : levels.includes('elevated') ? 'elevated' : 'normal',
    effect: policy['effect'],
  });
}

export function runtimeStatusReply(runtime: GovernanceRuntime): Reply {
  const database = checkDatabase(runtime.store);
  return json({
    deployment_role: runtime.config.role,
    listeners: Object.keys(runtime.config.listeners),
    version: runtime.version,
    process_uptime_seconds: Math.round((Date.now() - started) / 1000),
    database: { ok: database.ok, user_version: database.userVersion ?? null, reasons: database.reasons },
    artifacts_failing_closed: [...runtime.artifacts.artifacts.values()].filter((a) => a.state !== 'valid').map((a) => a.id),
  });
}

export function runtimeEvidenceReply(runtime: GovernanceRuntime): Reply {
  const chains = checkEvidenceChains(runtime.store);
  return json({ verified: chains.ok, tables: chains.tables, problems: chains.reasons });
}

export function databaseReply(runtime: GovernanceRuntime): Reply {
  const database = checkDatabase(runtime.store);
  const chains = checkEvidenceChains(runtime.store);
  const pragma = (name: string) => runtime.store.sqlite.prepare(`PRAGMA ${name}`).get()?.[name] ?? null;
  return json({
    file: basename(runtime.store.path),
    reachable: database.userVersion !== undefined,
    migrated: database.ok,
    user_version: database.userVersion ?? null,
    expected_user_version: GOVERNANCE_MIGRATIONS.length,
    journal_mode: pragma('journal_mode'),
    synchronous: pragma('synchronous'),
    evidence_tables: chains.tables,
    problems: [...database.reasons, ...chains.reasons],
  });
}
