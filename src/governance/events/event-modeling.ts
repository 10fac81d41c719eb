// The event-modeling standard-health report: every event the catalogs name is checked against
// the standard's naming pattern and field rule, computed from the artifacts, not written.

import { json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { artifactMember } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export interface StandardHealthReport {
  standard: string;
  checked: number;
  violations: { name: string; source: string; problem: string }[];
}

/** The report, or undefined when the event-modeling artifact is not valid. */
export function standardHealthReport(runtime: GovernanceRuntime): StandardHealthReport | undefined {
  const standard = artifactMember(runtime, 'event_modeling/standard');
  const catalog = artifactMember(runtime, 'event_modeling/catalog');
  if (!standard || !catalog) return undefined;
  const pattern = new RegExp(String(standard['event_name_pattern']));
  const violations: StandardHealthReport['violations'] = [];
  let checked = 0;
  for (const event of catalog['events'] as { name: string; fields: string[]; producer: string }[]) {
    checked++;
    if (!pattern.test(event.name)) violations.push({ name: event.name, source: 'event_modeling/catalog', problem: `does not match ${pattern.source}` });
    if (event.fields.length === 0) violations.push({ name: event.name, source: 'event_modeling/catalog', problem: 'lists no fields' });
  }
  const planning = artifactMember(runtime, 'planning/events-catalog');
  for (const name of (planning?.['events'] ?? []) as string[]) {
    checked++;
    if (!pattern.test(name)) violations.push({ name, source: 'planning/events-catalog', problem: `does not match ${pattern.source}` });
  }
  return { standard: pattern.source, checked, violations };
}

export function standardHealthReply(runtime: GovernanceRuntime): Reply {
  const report = standardHealthReport(runtime)!;
  return json({ member: 'standard-health-report', projection_state: 'published', healthy: report.violations.length === 0, ...report });
}
