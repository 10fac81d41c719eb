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

/** Asked per page; Gitea answers at most its MAX_RESPONSE_ITEMS (50 by default, often 30), so a short page is not the end. */
const PAGE = 50;

/**
 * Open issues (not pull requests) from the API, every page; or the one issue `only` (undefined
 * when the repository has no such issue). The end of the list is where the server says it is:
 * the last page by its `Link` header (rel="next" is followed), else the `X-Total-Count` reached,
 * else an empty page. Never a short page: Gitea caps the page size below what was asked.
 */
export async function fetchIssues(source: ApiSource, only?: number): Promise<Issue[] | undefined> {
  const repoUrl = `${source.baseUrl}/api/v1/repos/${encodeURIComponent(source.owner)}/${encodeURIComponent(source.repo)}`;
  if (only !== undefined) {
    const one = await getJson(`${repoUrl}/issues/${only}`, source, { notFound: true });
    return one === NOT_FOUND ? undefined : [toIssue(one.body, `issue ${only}`)];
  }
  const query = new URLSearchParams({ state: 'open', type: 'issues', page: '1', limit: String(PAGE) });
  if (source.since !== undefined) query.set('since', source.since);
  const byNumber = new Map<number, Issue>();
  let url: string | undefined = `${repoUrl}/issues?${query}`;
  let listed = 0;
  for (let page = 1; url !== undefined; page++) {
    if (page > MAX_PAGES) throw new AirlockError('environment', `${repoUrl}/issues has more than ${MAX_PAGES} pages: stopped without scanning the rest (narrow it with --since or --labels)`);
    const answer = await getJson(url, source);
    if (answer === NOT_FOUND || !Array.isArray(answer.body)) throw new AirlockError('environment', `${repoUrl}/issues did not answer a JSON array`);
    const batch = answer.body as unknown[];
    listed += batch.length;
    for (const [i, raw] of batch.entries()) {
      if (typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>)['pull_request']) continue;
      const issue = toIssue(raw, `page ${page} issue ${i}`);
      byNumber.set(issue.number, issue); // An issue that moved between pages while we read is kept once.
    }
    url = nextPage(answer.headers, { url, repoUrl, page, listed, empty: batch.length === 0 });
  }
  return [...byNumber.values()];
}

/** The next page's URL, or undefined at the end of the list. */
function nextPage(headers: Headers, at: { url: string; repoUrl: string; page: number; listed: number; empty: boolean }): string | undefined {
  if (at.empty) return undefined;
  const link = headers.get('link');
  if (link !== null) {
    const next = /<([^>]*)>\s*;[^,]*\brel="?next"?/i.exec(link)?.[1];
    if (next === undefined) return undefined;
    const resolved = new URL(next, at.url);
    // The token goes with every request: it must not be sent to another host than --base-url's.
    if (resolved.origin !== new URL(at.repoUrl).origin) throw new AirlockError('environment', `${at.repoUrl}/issues links its next page on another origin (${resolved.origin}): not followed`);
    return resolved.href;
  }
  const total = Number(headers.get('x-total-count') ?? Number.NaN);
  if (Number.isInteger(total) && at.listed >= total) return undefined;
  const following = new URL(at.url);
  following.searchParams.set('page', String(at.page + 1));
  return following.href;
}

const NOT_FOUND = Symbol('not found');

async function getJson(url: string, source: ApiSource, options: { notFound?: boolean } = {}): Promise<{ body: unknown; headers: Headers } | typeof NOT_FOUND> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (source.token !== undefined) {
    headers['authorization'] = source.user !== undefined ? `Basic ${Buffer.from(`${source.user}:${source.token}`).toString('base64')}` : `token ${source.token}`;
  }
  const shown = url.split('?')[0];
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(source.timeoutMs), redirect: 'error' });
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${source.timeoutMs} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new AirlockError('environment', `Cannot reach ${shown}: ${reason}`);
  }
  const text = await res.text();
  if (res.status === 404 && options.notFound) return NOT_FOUND;
  if (!res.ok) throw new AirlockError('environment', `${shown} answered ${res.status}${res.status === 401 || res.status === 403 ? ': check SCAN_AND_FIX_TOKEN and --user' : ''}`);
  try {
    return { body: JSON.parse(text), headers: res.headers };
  } catch {
    throw new AirlockError('environment', `${shown} did not answer JSON`);
  }
}
