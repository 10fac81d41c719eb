// Which issues scan_and_fix works on, in which order: required labels (all), excluded labels
// (any), updated since, ordered by severity label then number, at most --max-issues (0 = all).

import type { Issue } from './issues.ts';

export const DEFAULT_EXCLUDE_LABELS = ['blocked-external', 'quality-blocked'];
export const DEFAULT_SEVERITY_ORDER = ['critical', 'high', 'medium', 'low'];

export interface Selection {
  selected: (Issue & { severity: string | undefined })[];
  excluded: { number: number; reason: string }[];
}

export interface SelectOptions {
  labels: readonly string[];
  excludeLabels: readonly string[];
  since: string | undefined;
  severityOrder: readonly string[];
  maxIssues: number;
}

/** The issue's severity: a label `severity/<s>`, `severity:<s>`, `priority/<s>` or `<s>` itself, in the order's words. */
export function severityOf(issue: Issue, order: readonly string[]): string | undefined {
  const lower = issue.labels.map((l) => l.toLowerCase());
  for (const level of order) {
    const l = level.toLowerCase();
    if (lower.some((label) => label === l || label === `severity/${l}` || label === `severity:${l}` || label === `priority/${l}` || label === `priority:${l}`)) return level;
  }
  return undefined;
}

export function selectIssues(issues: readonly Issue[], options: SelectOptions): Selection {
  const excluded: Selection['excluded'] = [];
  const kept: Selection['selected'] = [];
  const since = options.since === undefined ? undefined : Date.parse(options.since);
  for (const issue of issues) {
    const has = new Set(issue.labels.map((l) => l.toLowerCase()));
    const blocked = options.excludeLabels.find((l) => has.has(l.toLowerCase()));
    const missing = options.labels.find((l) => !has.has(l.toLowerCase()));
    if (issue.pull_request) excluded.push({ number: issue.number, reason: 'is a pull request' });
    else if (issue.state !== 'open') excluded.push({ number: issue.number, reason: `state is ${issue.state}` });
    else if (blocked !== undefined) excluded.push({ number: issue.number, reason: `has excluded label "${blocked}"` });
    else if (missing !== undefined) excluded.push({ number: issue.number, reason: `lacks label "${missing}"` });
    else if (since !== undefined && (issue.updated_at === undefined || Date.parse(issue.updated_at) < since)) excluded.push({ number: issue.number, reason: `not updated since ${options.since}` });
    else kept.push({ ...issue, severity: severityOf(issue, options.severityOrder) });
  }
  const rank = (s: string | undefined) => (s === undefined ? options.severityOrder.length : options.severityOrder.indexOf(s));
  kept.sort((a, b) => rank(a.severity) - rank(b.severity) || a.number - b.number);
  const selected = options.maxIssues > 0 ? kept.slice(0, options.maxIssues) : kept;
  for (const issue of kept.slice(selected.length)) excluded.push({ number: issue.number, reason: `beyond --max-issues ${options.maxIssues}` });
  return { selected, excluded };
}
