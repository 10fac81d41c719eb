// Where scan_and_fix gets its issues: a Gitea-compatible REST API (GET /api/v1/repos/{owner}/
// {repo}/issues, paged, or one issue by number) or a JSON file of the same issue objects.

import { AirlockError, readFileBounded } from '../../src/kernel/index.ts';

export interface Issue {
  number: number;
  title: string;
  body: string;
  url: string;
  labels: string[];
  updated_at: string | undefined;
  state: string;
  /** Gitea lists pull requests among issues (with a pull_request object); they are never worked on. */
  pull_request: boolean;
}

export interface ApiSource {
  baseUrl: string;
  owner: string;
  repo: string;
  token: string | undefined;
  user: string | undefined;
  since: string | undefined;
  timeoutMs: number;
}

const PAGE = 50;
/** An issues file of 10,000 issues with long bodies stays far below this; /dev/zero must not hang. */
const MAX_ISSUES_FILE_BYTES = 64 * 1024 * 1024;
const MAX_PAGES = 200;

/** Normalizes one Gitea issue object; throws for a shape that is not an issue. */
export function toIssue(raw: unknown, where: string): Issue {
  if (typeof raw !== 'object' || raw === null) throw new AirlockError('environment', `${where}: an issue must be a JSON object`);
  const o = raw as Record<string, unknown>;
  if (typeof o['number'] !== 'number' || !Number.isInteger(o['number']) || typeof o['title'] !== 'string') throw new AirlockError('environment', `${where}: an issue needs a whole "number" and a string "title"`);
  const labels = Array.isArray(o['labels']) ? o['labels'].map((l) => (typeof l === 'string' ? l : typeof l === 'object' && l !== null ? String((l as Record<string, unknown>)['name'] ?? '') : '')).filter((l) => l !== '') : [];
  return {
    number: o['number'],
    title: o['title'],
    body: typeof o['body'] === 'string' ? o['body'] : '',
    url: typeof o['html_url'] === 'string' ? o['html_url'] : typeof o['url'] === 'string' ? o['url'] : '',
    labels,
    updated_at: typeof o['updated_at'] === 'string' ? o['updated_at'] : undefined,
    state: typeof o['state'] === 'string' ? o['state'] : 'open',
    pull_request: typeof o['pull_request'] === 'object' && o['pull_request'] !== null,
  };
}

export function readIssuesFile(path: string): Issue[] {
  const loaded = readFileBounded(path, MAX_ISSUES_FILE_BYTES);
  if (!loaded.ok && loaded.reason === 'unreadable') throw new AirlockError('environment', `Cannot read --issues-file "${path}": ${loaded.code}`);
  if (!loaded.ok) throw new AirlockError('environment', `--issues-file "${path}" is larger than ${MAX_ISSUES_FILE_BYTES} bytes: not an issues export`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(loaded.bytes.toString('utf8'));
  } catch (error) {
    throw new AirlockError('environment', `Cannot read --issues-file "${path}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as Record<string, unknown> | null)?.['issues'];
  if (!Array.isArray(list)) throw new AirlockError('environment', `--issues-file "${path}" must hold a JSON array of issues (or {"issues": [...]})`);
  return list.map((raw, i) => toIssue(raw, `--issues-file issue ${i}`));
}

/** Open issues (not pull requests) from the API, all pages; or the one issue `only`. */
export async function fetchIssues(source: ApiSource, only?: number): Promise<Issue[]> {
  const repoUrl = `${source.baseUrl}/api/v1/repos/${encodeURIComponent(source.owner)}/${encodeURIComponent(source.repo)}`;
  if (only !== undefined) return [toIssue(await getJson(`${repoUrl}/issues/${only}`, source), `issue ${only}`)];
  const issues: Issue[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const query = new URLSearchParams({ state: 'open', type: 'issues', page: String(page), limit: String(PAGE) });
    if (source.since !== undefined) query.set('since', source.since);
    const batch = await getJson(`${repoUrl}/issues?${query}`, source);
    if (!Array.isArray(batch)) throw new AirlockError('environment', `${repoUrl}/issues did not answer a JSON array`);
    for (const [i, raw] of batch.entries()) {
      if (typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>)['pull_request']) continue;
      issues.push(toIssue(raw, `page ${page} issue ${i}`));
    }
    if (batch.length < PAGE) break;
  }
  return issues;
}

async function getJson(url: string, source: ApiSource): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (source.token !== undefined) {
    headers['authorization'] = source.user !== undefined ? `Basic ${Buffer.from(`${source.user}:${source.token}`).toString('base64')}` : `token ${source.token}`;
  }
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(source.timeoutMs) });
  } catch (error) {
    throw new AirlockError('environment', `Cannot reach ${url.split('?')[0]}: ${(error as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new AirlockError('environment', `${url.split('?')[0]} answered ${res.status}${res.status === 401 || res.status === 403 ? ': check SCAN_AND_FIX_TOKEN and --user' : ''}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new AirlockError('environment', `${url.split('?')[0]} did not answer JSON`);
  }
}
