// scan_and_fix: reads open issues from a Gitea-compatible API (or --issues-file), filters and
// orders them, and runs --executor-cmd on each under a time limit of at least 90 s, recording
// each outcome as a JSON line. --dry-run shows the plan and runs nothing. scripts/scan_and_fix.sh
// is the seed's name for it.

import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defineCommand, EXIT_FAILED, EXIT_OK, readConfig, usageError } from '../../src/kernel/index.ts';
import { MIN_EXECUTOR_TIMEOUT_SECONDS, runExecutor } from './executor.ts';
import type { Outcome } from './executor.ts';
import { fetchIssues, readIssuesFile } from './issues.ts';
import type { Issue } from './issues.ts';
import { DEFAULT_EXCLUDE_LABELS, DEFAULT_SEVERITY_ORDER, selectIssues } from './select.ts';

const list = (text: string) => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

/** --base-url (or https://--host) without its credentials, which are returned apart and never shown. */
function apiOf(baseUrl: string | undefined, host: string | undefined): { baseUrl: string; user: string | undefined; password: string | undefined } {
  const base = baseUrl ?? (host === undefined ? undefined : `https://${host}`);
  if (base === undefined) usageError('Give --base-url or --host (a Gitea-compatible API), or --issues-file');
  const shown = base.replace(/\/\/[^@/?#]*@/, '//***@');
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) usageError(`--base-url "${shown}" is not an http(s) URL`);
  const url = new URL(base);
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  if (url.search !== '' || url.hash !== '') usageError(`--base-url "${url.origin}${url.pathname}" must not carry a query or fragment`);
  return { baseUrl: url.href.replace(/\/+$/, ''), user, password };
}

export const scanAndFixCommand = defineCommand({
  name: 'scan_and_fix',
  summary: 'Runs an executor command on each open issue of a Gitea-compatible repository (or an issues file), filtered and ordered by severity',
  description: [
    'Issues: GET <base-url>/api/v1/repos/<repo-owner>/<repo-name>/issues (open, not pull requests, every page: Link rel="next",',
    'else X-Total-Count, else until an empty page), authenticated with',
    'SCAN_AND_FIX_TOKEN (or SCAN_AND_FIX_TOKEN_FILE) as "Authorization: token", or HTTP Basic with --user; or --issues-file.',
    'The executor runs as sh -c CMD with the issue JSON on stdin and SCAN_ISSUE_NUMBER, SCAN_ISSUE_TITLE, SCAN_ISSUE_URL,',
    `SCAN_ISSUE_LABELS set; it is killed after --executor-timeout seconds (at least ${MIN_EXECUTOR_TIMEOUT_SECONDS}). Each outcome is appended`,
    'to --outcomes as one JSON line. Exit 1 when an executor failed or timed out.',
  ].join('\n'),
  options: {
    issue: { type: 'string', description: 'Work on this issue number only (exit 1 when the repository or file has no such issue)', valueName: 'N' },
    'dry-run': { type: 'boolean', description: 'Show what would run; run and record nothing' },
    'max-issues': { type: 'string', description: 'At most N issues (0 = all)', default: '0', valueName: 'N' },
    since: { type: 'string', description: 'Only issues updated at or after this ISO 8601 time', valueName: 'TIME' },
    labels: { type: 'string', description: 'Only issues carrying all of these labels (comma-separated)', valueName: 'LIST' },
    'exclude-labels': { type: 'string', description: 'Skip issues carrying any of these labels', default: DEFAULT_EXCLUDE_LABELS.join(','), valueName: 'LIST' },
    'severity-order': { type: 'string', description: 'Severity labels, most urgent first (severity/<s>, priority/<s> or <s>)', default: DEFAULT_SEVERITY_ORDER.join(','), valueName: 'LIST' },
    host: { type: 'string', description: 'Gitea host; the base URL is https://HOST unless --base-url is given', valueName: 'HOST' },
    user: { type: 'string', description: 'Gitea login: authenticate with HTTP Basic USER:token instead of "Authorization: token"', valueName: 'USER' },
    'repo-owner': { type: 'string', description: 'Repository owner (default: --user)', valueName: 'OWNER' },
    'repo-name': { type: 'string', description: 'Repository name', valueName: 'NAME' },
    'base-url': { type: 'string', description: 'Base URL of the Gitea-compatible API (without /api/v1); credentials in it are used and never shown', valueName: 'URL' },
    'issues-file': { type: 'string', description: 'Read issues from this JSON file (an array of Gitea issue objects) instead of the API (not with --base-url or --host)', valueName: 'FILE' },
    'executor-cmd': { type: 'string', description: 'Command run per issue (required unless --dry-run)', valueName: 'CMD' },
    'executor-timeout': { type: 'string', description: `Seconds before an executor is killed (at least ${MIN_EXECUTOR_TIMEOUT_SECONDS})`, default: String(MIN_EXECUTOR_TIMEOUT_SECONDS), valueName: 'S' },
    outcomes: { type: 'string', description: 'JSON-lines file the outcomes are appended to (default: $AIRLOCK_DATA_DIR/scan_and_fix-outcomes.jsonl)', valueName: 'FILE' },
  },
  async run({ values, json, print, printJson, io }) {
    const whole = (text: string, flag: string, min: number) => {
      if (!/^\d{1,9}$/.test(text) || Number(text) < min) usageError(`${flag} must be a whole number of at least ${min}, not "${text}"`);
      return Number(text);
    };
    const maxIssues = whole(values['max-issues'], '--max-issues', 0);
    const only = values.issue === undefined ? undefined : whole(values.issue, '--issue', 1);
    const timeoutSeconds = whole(values['executor-timeout'], '--executor-timeout', MIN_EXECUTOR_TIMEOUT_SECONDS);
    if (values.since !== undefined && Number.isNaN(Date.parse(values.since))) usageError(`--since "${values.since}" is not an ISO 8601 time`);
    const dryRun = values['dry-run'] === true;
    if (!dryRun && values['executor-cmd'] === undefined) usageError('Give --executor-cmd, or --dry-run to only show the plan');
    const severityOrder = list(values['severity-order']);
    if (severityOrder.length === 0) usageError('--severity-order names no severity');

    let issues: Issue[];
    let source: string;
    if (values['issues-file'] !== undefined) {
      const api = (['base-url', 'host', 'repo-owner', 'repo-name'] as const).filter((flag) => values[flag] !== undefined);
      if (api.length > 0) usageError(`Give --issues-file or the API (${api.map((f) => `--${f}`).join(', ')}), not both: which issues would be scanned is otherwise unclear`);
      issues = readIssuesFile(values['issues-file']);
      if (only !== undefined) issues = issues.filter((i) => i.number === only);
      source = values['issues-file'];
    } else {
      const api = apiOf(values['base-url'], values.host);
      const owner = values['repo-owner'] ?? values.user ?? api.user;
      if (owner === undefined || values['repo-name'] === undefined) usageError('Give --repo-owner (or --user) and --repo-name');
      const configured = readConfig({ SCAN_AND_FIX_TOKEN: { type: 'secret', description: 'Gitea API token' } }, io.env).SCAN_AND_FIX_TOKEN;
      // Credentials written in --base-url are used as curl would (user:password as HTTP Basic, a
      // lone user part as the token) unless --user or SCAN_AND_FIX_TOKEN say otherwise; they are
      // never printed, logged or recorded.
      const token = configured ?? api.password ?? (api.user !== undefined && values.user === undefined ? api.user : undefined);
      const user = values.user ?? (configured === undefined && api.password !== undefined ? api.user : undefined);
      issues = (await fetchIssues({ baseUrl: api.baseUrl, owner, repo: values['repo-name'], token, user, since: values.since, timeoutMs: 30_000 }, only)) ?? [];
      source = `${api.baseUrl}/${owner}/${values['repo-name']}`;
    }
    if (only !== undefined && issues.length === 0) {
      const said = `Issue #${only} is not in ${source}: nothing to work on`;
      if (json) printJson({ ok: false, dry_run: dryRun, source, error: said, selected: [], excluded: [], outcomes: [] });
      else io.stderr.write(`scan_and_fix: ${said}\n`);
      return EXIT_FAILED;
    }
    const { selected, excluded } = selectIssues(issues, {
      labels: values.labels === undefined ? [] : list(values.labels),
      excludeLabels: list(values['exclude-labels']),
      since: values.since,
      severityOrder,
      maxIssues,
    });

    const outcomes: Outcome[] = [];
    if (!dryRun) {
      const file = values.outcomes ?? join(io.env['AIRLOCK_DATA_DIR'] ?? './var', 'scan_and_fix-outcomes.jsonl');
      mkdirSync(dirname(file), { recursive: true });
      for (const issue of selected) {
        if (!json) print(`#${issue.number} ${issue.title}: running the executor`);
        const outcome = await runExecutor(values['executor-cmd']!, issue, { timeoutMs: timeoutSeconds * 1000, env: io.env });
        outcomes.push(outcome);
        appendFileSync(file, `${JSON.stringify({ source, ...outcome })}\n`);
        if (!json) print(`#${issue.number}: ${outcome.outcome} (exit ${outcome.exit_code}, ${outcome.duration_ms} ms)`);
      }
    }
    const ok = outcomes.every((o) => o.outcome === 'succeeded');
    if (json) {
      printJson({ ok, dry_run: dryRun, source, executor_timeout_seconds: timeoutSeconds, selected: selected.map((i) => ({ number: i.number, title: i.title, severity: i.severity ?? null, labels: i.labels })), excluded, outcomes });
    } else {
      if (dryRun) for (const i of selected) print(`would run on #${i.number} [${i.severity ?? 'no severity'}] ${i.title}`);
      for (const e of excluded) print(`skipped #${e.number}: ${e.reason}`);
      print(`${dryRun ? 'dry run: ' : ''}${selected.length} selected, ${excluded.length} skipped${dryRun ? '' : `, ${outcomes.filter((o) => o.outcome !== 'succeeded').length} not succeeded`}`);
    }
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

