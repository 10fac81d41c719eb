// scan_and_fix against a Gitea-compatible API double and an issues file: every option the seed
// lists, the 90 s executor floor, outcomes recorded, and --dry-run running nothing.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { scanAndFixCommand } from '../../scripts/_scan/command.ts';
import { runExecutor } from '../../scripts/_scan/executor.ts';
import { runCaptured } from '../helpers/run-command.ts';
import { startGiteaDouble } from './_gitea-double.ts';
import type { GiteaDouble } from './_gitea-double.ts';
import { startEndlessServer } from '../helpers/endless-server.ts';

const issue = (number: number, labels: string[], extra: Record<string, unknown> = {}) => ({ number, title: `Issue ${number}`, body: '', html_url: `http://git/x/${number}`, state: 'open', labels: labels.map((name) => ({ name })), updated_at: '2026-11-20T00:00:00Z', ...extra });
const ISSUES = [
  issue(1, ['severity/low']),
  issue(2, ['severity/critical']),
  issue(3, ['blocked-external', 'severity/critical']),
  issue(4, ['quality-blocked']),
  issue(5, ['high', 'bug']),
  issue(6, [], { updated_at: '2026-01-01T00:00:00Z' }),
  issue(7, ['bug'], { pull_request: { merged: false } }),
];

async function scan(args: string[], env: Record<string, string> = {}): Promise<{ status: number; json: any; stdout: string; stderr: string }> {
  const { SCAN_AND_FIX_TOKEN: _drop, ...base } = process.env;
  return runCaptured(scanAndFixCommand, [...args, '--json'], { ...base, ...env });
}

describe('scan_and_fix', () => {
  let gitea: GiteaDouble;
  let dir: string;
  let api: string[];
  before(async () => {
    gitea = await startGiteaDouble({ owner: 'ops', repo: 'airlock', token: 'gitea-token', issues: ISSUES });
    dir = mkdtempSync(join(tmpdir(), 'airlock-scan-'));
    api = ['--base-url', gitea.url, '--repo-owner', 'ops', '--repo-name', 'airlock'];
  });
  after(() => gitea.close());

  test('--dry-run orders by severity, skips the default excluded labels and pull requests, and runs nothing', async () => {
    const marker = join(dir, 'ran');
    const { status, json } = await scan([...api, '--dry-run', '--executor-cmd', `touch ${marker}`], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
    assert.equal(status, 0);
    assert.deepEqual(json.selected.map((i: any) => i.number), [2, 5, 1, 6]);
    assert.deepEqual(json.excluded.map((e: any) => e.number).sort(), [3, 4]);
    assert.equal(existsSync(marker), false);
    assert.deepEqual(json.outcomes, []);
  });

  test('--labels, --exclude-labels, --since, --severity-order and --max-issues filter and order', async () => {
    const env = { SCAN_AND_FIX_TOKEN: 'gitea-token' };
    assert.deepEqual((await scan([...api, '--dry-run', '--labels', 'bug'], env)).json.selected.map((i: any) => i.number), [5]);
    assert.deepEqual((await scan([...api, '--dry-run', '--exclude-labels', ''], env)).json.selected.map((i: any) => i.number), [2, 3, 5, 1, 4, 6]);
    assert.deepEqual((await scan([...api, '--dry-run', '--since', '2026-06-01T00:00:00Z'], env)).json.selected.map((i: any) => i.number), [2, 5, 1]);
    assert.deepEqual((await scan([...api, '--dry-run', '--severity-order', 'low,critical'], env)).json.selected.map((i: any) => i.number), [1, 2, 5, 6]);
    assert.deepEqual((await scan([...api, '--dry-run', '--max-issues', '2'], env)).json.selected.map((i: any) => i.number), [2, 5]);
    assert.deepEqual((await scan([...api, '--dry-run', '--issue', '5'], env)).json.selected.map((i: any) => i.number), [5]);
  });

  test('--host, --user: HTTP Basic with the token; a wrong token is exit 2', async () => {
    const withUser = await scan(['--base-url', gitea.url, '--user', 'ops', '--repo-name', 'airlock', '--dry-run'], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
    assert.equal(withUser.status, 0);
    const wrong = await scan([...api, '--dry-run'], { SCAN_AND_FIX_TOKEN: 'nope' });
    assert.equal(wrong.status, 2);
    assert.ok(!wrong.stderr.includes('nope'));
    const unreachable = await scan(['--host', '127.0.0.1:1', '--repo-owner', 'o', '--repo-name', 'r', '--dry-run']);
    assert.equal(unreachable.status, 2);
  });

  test('the executor runs on each selected issue with the issue on stdin; outcomes are recorded; a failure is exit 1', async () => {
    const file = join(dir, 'issues.json');
    writeFileSync(file, JSON.stringify(ISSUES.slice(0, 2)));
    const outcomes = join(dir, 'outcomes.jsonl');
    const cmd = `cat > ${dir}/stdin-$SCAN_ISSUE_NUMBER.json; [ "$SCAN_ISSUE_NUMBER" != 1 ]`;
    const { status, json } = await scan(['--issues-file', file, '--executor-cmd', cmd, '--outcomes', outcomes]);
    assert.equal(status, 1);
    assert.deepEqual(json.outcomes.map((o: any) => [o.number, o.outcome]), [[2, 'succeeded'], [1, 'failed']]);
    assert.equal(JSON.parse(readFileSync(join(dir, 'stdin-2.json'), 'utf8')).number, 2);
    assert.equal(readFileSync(outcomes, 'utf8').trim().split('\n').length, 2);
  });

  test('an executor time limit below 90 s is refused (exit 2); bad numbers and missing options too', async () => {
    const file = join(dir, 'issues.json');
    for (const args of [
      ['--issues-file', file, '--executor-cmd', 'true', '--executor-timeout', '89'],
      ['--issues-file', file, '--executor-cmd', 'true', '--max-issues', '-1'],
      ['--issues-file', file, '--executor-cmd', 'true', '--since', 'yesterday'],
      ['--issues-file', file],
      ['--dry-run'],
      ['--base-url', gitea.url, '--dry-run'],
      ['--issues-file', join(dir, 'missing.json'), '--dry-run'],
    ]) assert.equal((await scan(args)).status, 2, args.join(' '));
  });

  test('runExecutor() kills an executor (and its children) at the time limit', async () => {
    const outcome = await runExecutor('sleep 30 & sleep 30', { number: 9, title: 't', body: '', url: '', labels: [], updated_at: undefined, state: 'open', pull_request: false }, { timeoutMs: 200, env: process.env });
    assert.equal(outcome.outcome, 'timed_out');
    assert.ok(outcome.duration_ms < 5000);
  });

  test('scan_and_fix --help lists every option of the seed, with its defaults', async () => {
    const help = await runCaptured(scanAndFixCommand, ['--help']);
    assert.equal(help.status, 0);
    for (const flag of ['--issue', '--dry-run', '--max-issues', '--since', '--labels', '--exclude-labels', '--severity-order', '--host', '--user', '--repo-owner', '--repo-name', '--base-url', '--issues-file', '--executor-cmd']) assert.ok(help.stdout.includes(`${flag} `) || help.stdout.includes(`${flag}\n`), flag);
    assert.match(help.stdout, /--max-issues N\s+At most N issues \(0 = all\) \(default: 0\)/);
    assert.match(help.stdout, /default: blocked-external,quality-blocked/);
  });

  test('scan_and_fix.sh without bundles says how to build them (exit 2)', () => {
    const run = spawnSync('bash', ['scripts/scan_and_fix.sh', '--dry-run'], { encoding: 'utf8', env: { ...process.env, AIRLOCK_BIN_DIR: join(dir, 'no-bundles'), AIRLOCK_SEA_DIR: join(dir, 'no-sea') } });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /scan_and_fix/);
  });
});

test('--issues-file: pull requests in the file are skipped, as from the API (Gitea lists them among issues)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-scan-file-'));
  const file = join(dir, 'issues.json');
  writeFileSync(file, JSON.stringify(ISSUES));
  const { SCAN_AND_FIX_TOKEN: _drop, ...base } = process.env;
  const { status, json } = await runCaptured(scanAndFixCommand, ['--issues-file', file, '--dry-run', '--json'], base);
  assert.equal(status, 0);
  assert.deepEqual(json.selected.map((i: any) => i.number), [2, 5, 1, 6]);
  assert.deepEqual(json.excluded.find((e: any) => e.number === 7), { number: 7, reason: 'is a pull request' });
});

test('--issues-file on an endless file (/dev/zero) exits 2 with a clear line instead of hanging', async () => {
  const { SCAN_AND_FIX_TOKEN: _drop, ...base } = process.env;
  const { status, stderr } = await runCaptured(scanAndFixCommand, ['--issues-file', '/dev/zero', '--dry-run'], base);
  assert.equal(status, 2);
  assert.match(stderr, /--issues-file "\/dev\/zero" is larger than/);
});

describe('scan_and_fix reads every page, whatever the server caps a page at', () => {
  const many = Array.from({ length: 65 }, (_, i) => issue(i + 1, []));
  for (const paging of ['link+total', 'link', 'total', 'none'] as const) {
    test(`a Gitea capped at 30 per page with paging headers "${paging}": all 65 issues are scanned`, async () => {
      const gitea = await startGiteaDouble({ owner: 'ops', repo: 'airlock', token: 'gitea-token', issues: many, maxLimit: 30, paging });
      try {
        const result = await scan(['--base-url', gitea.url, '--repo-owner', 'ops', '--repo-name', 'airlock', '--dry-run'], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
        assert.equal(result.status, 0, result.stderr);
        assert.deepEqual(result.json.selected.map((i: any) => i.number), many.map((i) => i.number));
      } finally {
        await gitea.close();
      }
    });
  }
});

describe('scan_and_fix reads on past a full page that paging headers call the last', () => {
  // 100 issues and 40 pull requests listed, headers counting the 100 issues alone (Gitea 1.9).
  const listed = Array.from({ length: 140 }, (_, i) => (i % 7 === 3 ? { ...issue(i + 1, []), pull_request: { merged: false } } : issue(i + 1, [])));
  const issues = listed.filter((i) => !('pull_request' in i)).map((i) => i['number']);
  for (const paging of ['link+total', 'link', 'total'] as const) {
    test(`headers "${paging}" counting fewer than the list holds: every issue is still scanned`, async () => {
      const gitea = await startGiteaDouble({ owner: 'ops', repo: 'airlock', token: 'gitea-token', issues: listed, maxLimit: 30, paging, headerCount: 100 });
      try {
        const result = await scan(['--base-url', gitea.url, '--repo-owner', 'ops', '--repo-name', 'airlock', '--dry-run'], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
        assert.equal(result.status, 0, result.stderr);
        assert.deepEqual(result.json.selected.map((i: any) => i.number), issues);
      } finally {
        await gitea.close();
      }
    });
  }
});

test('an endless answer from the API is exit 2 once it passes 32 MiB, not memory until the 30 s timeout', async (t) => {
  const flood = await startEndlessServer();
  t.after(flood.close);
  const started = Date.now();
  const result = await scan(['--base-url', flood.url, '--repo-owner', 'ops', '--repo-name', 'airlock', '--dry-run'], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
  assert.equal(result.status, 2);
  assert.match(result.stderr, /answered more than 33554432 bytes/);
  assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
});

test('a Link rel="next" on another origin is not followed (the token would go there): exit 2, no silent cut', async () => {
  const many = Array.from({ length: 65 }, (_, i) => issue(i + 1, []));
  const gitea = await startGiteaDouble({ owner: 'ops', repo: 'airlock', token: 'gitea-token', issues: many, maxLimit: 30, linkOrigin: 'http://elsewhere.invalid' });
  try {
    const result = await scan(['--base-url', gitea.url, '--repo-owner', 'ops', '--repo-name', 'airlock', '--dry-run'], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /links its next page on another origin \(http:\/\/elsewhere\.invalid\): not followed/);
    assert.equal(gitea.requests.length, 1);
  } finally {
    await gitea.close();
  }
});

describe('scan_and_fix usage errors, missing issues and credentials', () => {
  let gitea: GiteaDouble;
  let dir: string;
  before(async () => {
    gitea = await startGiteaDouble({ owner: 'ops', repo: 'airlock', token: 'gitea-token', issues: ISSUES, user: 'ops' });
    dir = mkdtempSync(join(tmpdir(), 'airlock-scan-'));
    writeFileSync(join(dir, 'issues.json'), JSON.stringify(ISSUES));
  });
  after(() => gitea.close());

  test('--issues-file together with --base-url (or --host) is a usage error (exit 2)', async () => {
    for (const api of [['--base-url', gitea.url], ['--host', 'git.example']]) {
      const result = await scan(['--issues-file', join(dir, 'issues.json'), ...api, '--repo-owner', 'ops', '--repo-name', 'airlock', '--dry-run']);
      assert.equal(result.status, 2);
      assert.match(result.json.error.message, /Give --issues-file or the API .*not both/);
    }
  });

  test('--max-issues -1 says what is wrong with the number (exit 2)', async () => {
    for (const args of [['--max-issues', '-1'], ['--max-issues=-1']]) {
      const result = await runCaptured(scanAndFixCommand, ['--issues-file', join(dir, 'issues.json'), '--dry-run', ...args], {});
      assert.equal(result.status, 2);
      assert.match(result.stderr, /--max-issues must be a whole number of at least 0, not "-1"/);
    }
  });

  test('--issue N that the repository or the file does not have says so and exits 1', async () => {
    const fromApi = await runCaptured(scanAndFixCommand, ['--base-url', gitea.url, '--user', 'ops', '--repo-name', 'airlock', '--issue', '99', '--dry-run'], { SCAN_AND_FIX_TOKEN: 'gitea-token' });
    assert.equal(fromApi.status, 1, fromApi.stderr);
    assert.match(fromApi.stderr, /Issue #99 is not in http:\/\/127\.0\.0\.1:\d+\/ops\/airlock/);
    const fromFile = await scan(['--issues-file', join(dir, 'issues.json'), '--issue', '99', '--dry-run']);
    assert.equal(fromFile.status, 1);
    assert.match(fromFile.json.error, /Issue #99 is not in/);
  });

  test('credentials written in --base-url are used (as curl would) and never appear in the output', async () => {
    const withCredentials = gitea.url.replace('http://', 'http://ops:gitea-token@');
    const result = await scan(['--base-url', withCredentials, '--repo-name', 'airlock', '--dry-run']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.json.selected.length, 4);
    const outcomes = join(dir, 'outcomes.jsonl');
    const ran = await scan(['--base-url', withCredentials, '--repo-name', 'airlock', '--issue', '2', '--executor-cmd', 'true', '--outcomes', outcomes]);
    assert.equal(ran.status, 0, ran.stderr);
    const failures = await Promise.all([
      runCaptured(scanAndFixCommand, ['--base-url', 'http://ops:gitea-token@127.0.0.1:1', '--repo-name', 'r', '--dry-run'], {}),
      runCaptured(scanAndFixCommand, ['--base-url', 'ftp://ops:gitea-token@127.0.0.1', '--repo-name', 'r', '--dry-run'], {}),
      runCaptured(scanAndFixCommand, ['--base-url', withCredentials, '--repo-name', 'airlock', '--issue', '99', '--dry-run'], {}),
    ]);
    assert.deepEqual(failures.map((f) => f.status), [2, 2, 1]);
    for (const text of [result.stdout, result.stderr, ran.stdout, ran.stderr, readFileSync(outcomes, 'utf8'), ...failures.flatMap((f) => [f.stdout, f.stderr])]) {
      assert.doesNotMatch(text, /gitea-token/);
    }
  });
});
