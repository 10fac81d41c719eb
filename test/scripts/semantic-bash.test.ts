// The seed-000 shell surfaces, run with bash against the bundles built once for npm test, with a PATH
// that starts with node_modules/.bin (Node 26). Services and upstreams are real HTTP on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { sharedBuild } from '../helpers/shared-build.ts';
import { CONSUMER_TOKENS, OPERATOR_TOKEN, startTestService } from '../semantic/fixtures/semantic-service.ts';
import { listCommands } from '../../scripts/_semantic/command-inventory.ts';
import { ROOT, tempDir } from './fixtures/semantic-root.ts';

const OUTDIR = await sharedBuild();
const BIN = join(OUTDIR, 'bin');
const PATH = `${join(ROOT, 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`;

interface BashResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json(): any;
}

function bash(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<BashResult> {
  const child = spawn('bash', [join(ROOT, 'scripts', script), ...args], {
    env: { PATH, HOME: process.env['HOME'] ?? '', AIRLOCK_BIN_DIR: BIN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) })));
}

async function listen(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

function treeState(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).sort().map((name) => {
    const stat = statSync(join(dir, name));
    return `${name} ${stat.isDirectory() ? 'dir' : `${stat.size} ${stat.mtimeMs} ${(stat.mode & 0o777).toString(8)}`}`;
  });
}

const SCRIPTS = ['bootstrap.sh', 'install_memory.sh', 'reapply_after_runtime_update.sh', 'plugin_smoke_test.sh', 'vector_store_checks.sh', 'governance-selfcheck.sh'];

test('every seed-000 shell script answers --help with its usage, and refuses an unknown argument with 2', async () => {
  for (const script of SCRIPTS) {
    const help = await bash(script, ['--help']);
    assert.equal(help.code, 0, `${script} --help: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^Usage: ${script.replace('.', '\\.')} `), script);
    assert.match(help.stdout, /--json/, `${script} documents --json`);
    if (script === 'vector_store_checks.sh') continue;
    const unknown = await bash(script, ['--no-such-option']);
    assert.equal(unknown.code, 2, script);
    assert.match(unknown.stderr, /unknown argument "--no-such-option"/);
  }
});

test('bootstrap.sh writes the configuration with 0600 secrets, keeps it on a second run, replaces it with --force', async (t) => {
  const prefix = tempDir(t);
  const first = await bash('bootstrap.sh', ['--prefix', prefix, '--json']);
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(first.json(), { ok: true, written: true, config: `${prefix}/etc/airlock.env`, data_dir: `${prefix}/var`, secrets: `${prefix}/etc/secrets` });
  const env = readFileSync(join(prefix, 'etc', 'airlock.env'), 'utf8');
  for (const line of [`AIRLOCK_DATA_DIR=${prefix}/var`, 'SEMANTIC_LISTEN=127.0.0.1:18020', 'GOVERNANCE_PLATFORM_LISTEN=127.0.0.1:18010', 'GOVERNANCE_WORKER_LISTEN=127.0.0.1:18011',
    `SEMANTIC_OPERATOR_TOKEN_FILE=${prefix}/etc/secrets/semantic-operator-token`, `SEMANTIC_CONSUMER_TOKENS_FILE=${prefix}/etc/secrets/semantic-consumer-tokens.json`, 'SEMANTIC_ACTIVATION_STAGE=S0']) {
    assert.ok(env.split('\n').includes(line), `airlock.env has ${line}`);
  }
  assert.doesNotMatch(env, /^SEMANTIC_PROJECTION_CASE_ALLOWLIST=/m, 'projection verification stays fail-closed');
  const secrets = join(prefix, 'etc', 'secrets');
  assert.equal(modeOf(secrets), '700');
  for (const file of readdirSync(secrets)) assert.equal(modeOf(join(secrets, file)), '600', file);
  assert.equal(modeOf(join(prefix, 'etc', 'airlock.env')), '600');
  const tokens = JSON.parse(readFileSync(join(secrets, 'semantic-consumer-tokens.json'), 'utf8'));
  assert.deepEqual(Object.keys(tokens), ['live-runtime-contract-check', 'host-runtime-snapshot-export', 'governance-status-bundle-export']);
  const operator = readFileSync(join(secrets, 'semantic-operator-token'), 'utf8');
  assert.match(operator, /^[A-Za-z0-9_-]{32}$/);
  const check = spawn(process.execPath, [join(BIN, 'check_semantic_cdc_matrix.mjs'), '--root', ROOT, '--tokens-file', join(secrets, 'semantic-consumer-tokens.json')]);
  assert.equal(await new Promise((resolve) => check.on('close', resolve)), 0, 'the generated tokens pass the matrix check');

  chmodSync(join(secrets, 'semantic-operator-token'), 0o644);
  const kept = await bash('bootstrap.sh', ['--prefix', prefix]);
  assert.equal(kept.code, 0);
  assert.match(kept.stdout, /^kept the existing configuration /);
  assert.equal(readFileSync(join(secrets, 'semantic-operator-token'), 'utf8'), operator);
  assert.equal(modeOf(join(secrets, 'semantic-operator-token')), '600', 'a loosened mode is put back');
  const forced = await bash('bootstrap.sh', ['--prefix', prefix, '--force']);
  assert.equal(forced.code, 0);
  assert.notEqual(readFileSync(join(secrets, 'semantic-operator-token'), 'utf8'), operator);
  assert.equal((await bash('bootstrap.sh', ['--prefix', 'relative/dir'])).code, 2);
});

test('the shell scripts refuse a node older than 24 and fall back to a standalone binary', async (t) => {
  // /usr/bin holds the tools bash needs; whatever node it has is not the pinned Node 26.
  const oldNode = tempDir(t);
  writeFileSync(join(oldNode, 'node'), '#!/usr/bin/env bash\n[ "$1" = -p ] && { echo 20; exit 0; }\nexit 1\n');
  chmodSync(join(oldNode, 'node'), 0o755);
  const path = `${oldNode}:/usr/bin:/bin`;
  const refused = await bash('bootstrap.sh', ['--prefix', tempDir(t)], { PATH: path });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /cannot run "export-governance-metadata": need node >= 24 on PATH and .*export-governance-metadata\.mjs, or the standalone binary .*\/export-governance-metadata/);
  const sea = tempDir(t);
  writeFileSync(join(sea, 'export-governance-metadata'), '#!/usr/bin/env bash\nprintf "executable\\tsemantic\\tsemantic-api\\tapi\\tdist/bin/semantic-api.mjs\\t-\\tSEMANTIC_LISTEN=127.0.0.1:18020\\nconsumer\\tsemantic\\tlive-runtime-contract-check\\tadmitted\\n"\n');
  chmodSync(join(sea, 'export-governance-metadata'), 0o755);
  const prefix = tempDir(t);
  const standalone = await bash('bootstrap.sh', ['--prefix', prefix], { PATH: path, AIRLOCK_SEA_DIR: sea });
  assert.equal(standalone.code, 0, standalone.stderr);
  assert.match(readFileSync(join(prefix, 'etc', 'airlock.env'), 'utf8'), /^SEMANTIC_LISTEN=127\.0\.0\.1:18020$/m);
});

async function install(prefix: string, ...extra: string[]): Promise<BashResult> {
  return bash('install_memory.sh', ['--prefix', prefix, '--from', ROOT, '--dist', OUTDIR, '--node', process.execPath, ...extra]);
}

test('install_memory.sh installs bundles, contracts, configuration and units, and a second run changes nothing', async (t) => {
  const prefix = tempDir(t);
  const first = await install(prefix, '--json');
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const result = first.json();
  assert.equal(result.ok, true);
  assert.ok(result.changed.includes('dist/bin/semantic-api.mjs'));
  assert.deepEqual(result.units, STACK_UNITS);
  for (const path of ['dist/package-metadata.json', 'configs/stack-contract.json', 'governance-manifest.json', 'contracts/api/semantic_cdc_v1.json', 'scripts/bootstrap.sh', 'scripts/_airlock.sh', 'etc/airlock.env', 'install-state.json', 'README.md']) {
    assert.ok(existsSync(join(prefix, path)), path);
  }
  const unit = readFileSync(join(prefix, 'systemd', 'airlock-governance-api-control-api.service'), 'utf8');
  assert.match(unit, new RegExp(`^ExecStart=${process.execPath} ${prefix}/dist/bin/governance-api\\.mjs --role control-api$`, 'm'));
  assert.match(unit, new RegExp(`^EnvironmentFile=-${prefix}/etc/airlock\\.env$`, 'm'));
  for (const hardening of ['User=airlock', 'NoNewPrivileges=yes', 'ProtectSystem=strict', `ReadWritePaths=${prefix}/var`, 'IPAddressDeny=any', 'CapabilityBoundingSet=']) {
    assert.ok(unit.split('\n').includes(hardening), `the unit lacks ${hardening}`);
  }
  const state = JSON.parse(readFileSync(join(prefix, 'install-state.json'), 'utf8'));
  assert.deepEqual([state.current.version, state.rollback], [JSON.parse(readFileSync(join(OUTDIR, 'package-metadata.json'), 'utf8')).version, []]);

  const before = treeState(prefix);
  const second = await install(prefix, '--json');
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(second.json().changed, []);
  assert.deepEqual(treeState(prefix), before, 'nothing rewritten, not even a timestamp');
  assert.match((await install(prefix)).stdout, /^install_memory: 0 changed, \d+ unchanged under /m);
});

test('install_memory.sh --enable copies the units and enables them through systemctl', async (t) => {
  const prefix = tempDir(t);
  const fake = tempDir(t);
  writeFileSync(join(fake, 'systemctl'), `#!/usr/bin/env bash\necho "$*" >> ${join(fake, 'calls')}\n`);
  // Stand-ins, so the test records the user the units need instead of adding it to this host.
  writeFileSync(join(fake, 'getent'), '#!/usr/bin/env bash\nexit 2\n');
  writeFileSync(join(fake, 'useradd'), `#!/usr/bin/env bash\necho "useradd \${@: -1}" >> ${join(fake, 'calls')}\n`);
  for (const stub of ['systemctl', 'getent', 'useradd']) chmodSync(join(fake, stub), 0o755);
  const units = join(tempDir(t), 'units');
  const result = await bash('install_memory.sh', ['--prefix', prefix, '--from', ROOT, '--dist', OUTDIR, '--node', process.execPath, '--enable', '--unit-dir', units], { PATH: `${fake}:${PATH}` });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(readdirSync(units).sort(), UNIT_FILES);
  assert.deepEqual(readFileSync(join(fake, 'calls'), 'utf8').trim().split('\n'), [
    'useradd airlock',
    'daemon-reload',
    `enable --now ${STACK_UNITS.join(' ')}`,
    ...(TIMERS.length > 0 ? [`enable --now ${TIMERS.join(' ')}`] : []),
  ]);
});

test('install_memory.sh keeps the previous release in the rollback window, which the snapshot reads intact', async (t) => {
  const prefix = tempDir(t);
  assert.equal((await install(prefix)).code, 0);
  const next = tempDir(t);
  cpSync(OUTDIR, next, { recursive: true });
  const metadata = JSON.parse(readFileSync(join(next, 'package-metadata.json'), 'utf8'));
  const previous = metadata.version;
  metadata.version = 'v0.9.0';
  writeFileSync(join(next, 'package-metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  const upgraded = await bash('install_memory.sh', ['--prefix', prefix, '--from', ROOT, '--dist', next, '--node', process.execPath, '--json']);
  assert.equal(upgraded.code, 0, upgraded.stdout + upgraded.stderr);
  assert.ok(upgraded.json().changed.includes(`rollback/${previous}/dist`));
  const state = JSON.parse(readFileSync(join(prefix, 'install-state.json'), 'utf8'));
  assert.equal(state.current.version, 'v0.9.0');
  assert.deepEqual(state.rollback.map((r: { version: string; path: string }) => [r.version, r.path]), [[previous, `rollback/${previous}`]]);
  const snapshot = spawn(process.execPath, [join(BIN, 'export_host_runtime_snapshot.mjs'), '--root', prefix, '--data-dir', join(prefix, 'var')]);
  let text = '';
  snapshot.stdout.on('data', (chunk) => (text += chunk));
  assert.equal(await new Promise((resolve) => snapshot.on('close', resolve)), 0, text);
  assert.deepEqual(JSON.parse(text).rollback_window.rollback.map((r: { version: string; intact: boolean }) => [r.version, r.intact]), [[previous, true]]);
});

test('install_memory.sh exits 2 without a build to install', async (t) => {
  const result = await bash('install_memory.sh', ['--prefix', tempDir(t), '--from', ROOT, '--dist', tempDir(t)]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /package-metadata\.json" is missing \(npm run build makes dist\/\)/);
});

test('reapply_after_runtime_update.sh restores units and secret modes, and exits 1 while a bundle drifts', async (t) => {
  const prefix = tempDir(t);
  assert.equal((await install(prefix)).code, 0);
  rmSync(join(prefix, 'systemd', 'airlock-semantic-worker.service'));
  chmodSync(join(prefix, 'etc', 'secrets', 'semantic-consumer-tokens.json'), 0o644);
  const restored = await bash('reapply_after_runtime_update.sh', ['--prefix', prefix, '--node', process.execPath]);
  assert.equal(restored.code, 0, restored.stdout + restored.stderr);
  assert.match(restored.stdout, /^re-applied: systemd\/airlock-semantic-worker\.service$/m);
  assert.match(restored.stdout, /^all 4 checks passed$/m);
  assert.equal(modeOf(join(prefix, 'etc', 'secrets', 'semantic-consumer-tokens.json')), '600');

  appendFileSync(join(prefix, 'dist', 'bin', 'semantic-api.mjs'), '// changed by a runtime update\n');
  const drifted = await bash('reapply_after_runtime_update.sh', ['--prefix', prefix, '--node', process.execPath]);
  assert.equal(drifted.code, 1);
  assert.match(drifted.stdout, /file "dist\/bin\/semantic-api\.mjs": package-metadata says sha256 .*; installed file says sha256/);
  const fixed = await bash('reapply_after_runtime_update.sh', ['--prefix', prefix, '--from', ROOT, '--dist', OUTDIR, '--node', process.execPath, '--json']);
  assert.equal(fixed.code, 0, fixed.stdout);
  assert.equal(fixed.json().ok, true);
  assert.equal((await bash('reapply_after_runtime_update.sh', ['--prefix', tempDir(t)])).code, 2);
});

function tokenEnv(t: TestContext): Record<string, string> {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify(CONSUMER_TOKENS));
  return { SEMANTIC_OPERATOR_TOKEN: OPERATOR_TOKEN, SEMANTIC_CONSUMER_TOKENS_FILE: join(dir, 'tokens.json') };
}

test('plugin_smoke_test.sh passes against the running API within its request budget', async (t) => {
  const service = await startTestService(t);
  const result = await bash('plugin_smoke_test.sh', ['--base-url', service.url, '--max-requests', '12', '--json'], tokenEnv(t));
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const report = result.json();
  assert.deepEqual([report.ok, report.timed_out, report.max_requests], [true, false, 12]);
  assert.equal(report.result.mode, 'smoke');
  assert.ok(report.result.requests <= 12);
  const text = await bash('plugin_smoke_test.sh', ['--base-url', service.url], tokenEnv(t));
  assert.match(text.stdout, /^smoke test passed against http:\/\/127\.0\.0\.1:\d+ \(at most 20 requests\)$/m);
});

test('plugin_smoke_test.sh fails when the budget, the time or the service falls short', async (t) => {
  const service = await startTestService(t);
  const env = tokenEnv(t);
  const budget = await bash('plugin_smoke_test.sh', ['--base-url', service.url, '--max-requests', '2'], env);
  assert.equal(budget.code, 1);
  assert.match(budget.stdout, /Request budget of 2 spent before/);
  const wrong = await bash('plugin_smoke_test.sh', ['--base-url', service.url], { ...env, SEMANTIC_OPERATOR_TOKEN: 'not-the-operator-token-000000000' });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /expected 200, got 401/);
  // A double that answers correctly but slowly: the time limit stops the run.
  const timers = new Set<NodeJS.Timeout>();
  t.after(() => timers.forEach((timer) => clearTimeout(timer)));
  const slow = await listen(t, (req, res, body) => {
    const forward = async () => {
      const answer = await fetch(`${service.url}${req.url}`, { method: req.method!, headers: req.headers as Record<string, string>, ...(body && { body }) });
      res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)))).end(Buffer.from(await answer.arrayBuffer()));
    };
    // The smoke run is killed mid-request: the forwarded request's failure ends this connection.
    timers.add(setTimeout(() => void forward().catch((error: Error) => res.destroy(error)), 700));
  });
  const timed = await bash('plugin_smoke_test.sh', ['--base-url', slow, '--timeout', '2', '--json'], env);
  assert.equal(timed.code, 1);
  assert.deepEqual([timed.json().timed_out, timed.json().result], [true, null]);
  const closed = await bash('plugin_smoke_test.sh', ['--base-url', 'http://127.0.0.1:9'], env);
  assert.equal(closed.code, 2);
  assert.equal((await bash('plugin_smoke_test.sh', ['--max-requests', '0'])).code, 2);
});

/** A loopback double of a Qdrant-compatible vector store holding one collection. */
async function vectorStore(t: TestContext, options: { status?: string; size?: number; points?: number; hits?: unknown[]; apiKey?: string } = {}): Promise<{ url: string; searches: unknown[] }> {
  const searches: unknown[] = [];
  const size = options.size ?? 4;
  const url = await listen(t, (req, res, body) => {
    const send = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (options.apiKey !== undefined && req.headers['api-key'] !== options.apiKey) return send(403, { status: { error: 'forbidden' } });
    if (req.method === 'GET' && req.url === '/collections/memory') {
      return send(200, { result: { status: options.status ?? 'green', points_count: options.points ?? 2, config: { params: { vectors: { size, distance: 'Cosine' } } } }, status: 'ok', time: 0.001 });
    }
    if (req.method === 'POST' && req.url === '/collections/memory/points/search') {
      const request = JSON.parse(body);
      searches.push(request);
      if (!Array.isArray(request.vector) || request.vector.length !== size) return send(400, { status: { error: 'wrong vector size' } });
      return send(200, { result: options.hits ?? [{ id: 1, score: 0.93 }, { id: 'b2', score: 0.41 }], status: 'ok', time: 0.001 });
    }
    send(404, { status: { error: 'Not found: Collection does not exist' } });
  });
  return { url, searches };
}

test('vector_store_checks.sh verifies a collection and a search against a Qdrant-compatible API', async (t) => {
  const store = await vectorStore(t, { apiKey: 'vector-store-key' });
  const keyFile = join(tempDir(t), 'key');
  writeFileSync(keyFile, 'vector-store-key\n');
  const result = await bash('vector_store_checks.sh', ['--url', store.url, '--collection', 'memory', '--vector-size', '4', '--api-key-file', keyFile, '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.deepEqual(result.json().collection, { name: 'memory', status: 'green', vector_size: 4, vector_name: null, points_count: 2, search_hits: 2 });
  assert.deepEqual(store.searches, [{ vector: [1, 0, 0, 0], limit: 3, with_payload: false, with_vector: false }]);
  const envFile = join(tempDir(t), 'airlock.env');
  writeFileSync(envFile, `SEMANTIC_VECTOR_STORE_URL=${store.url}\n`);
  const fromEnv = await bash('vector_store_checks.sh', ['--env-file', envFile, '--collection', 'memory', '--api-key-file', keyFile]);
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.match(fromEnv.stdout, /^all 2 checks passed$/m);
});

test('vector_store_checks.sh fails a red, missing, mis-sized or empty collection, and exits 2 when unreachable', async (t) => {
  const cases: [Parameters<typeof vectorStore>[1], string[], RegExp][] = [
    [{ status: 'red' }, [], /collection "memory" has status "red", expected green, yellow, grey/],
    [{}, ['--vector-size', '8'], /collection "memory" holds vectors of size 4, expected 8/],
    [{ hits: [] }, [], /search returned nothing from a collection of 2 points/],
    [{ hits: [{ id: 1 }] }, [], /search returned a point without an id and a numeric score/],
  ];
  for (const [options, extra, reason] of cases) {
    const store = await vectorStore(t, options);
    const result = await bash('vector_store_checks.sh', ['--url', store.url, '--collection', 'memory', ...extra]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, reason);
  }
  const store = await vectorStore(t);
  const missing = await bash('vector_store_checks.sh', ['--url', store.url, '--collection', 'absent']);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /GET \/collections\/absent answered 404/);
  assert.equal((await bash('vector_store_checks.sh', ['--url', 'http://127.0.0.1:9', '--collection', 'memory'])).code, 2);
  assert.equal((await bash('vector_store_checks.sh', ['--url', store.url])).code, 2);
});

/** The README text check_docs_contract needs (requested from the lead for the real README.md). */
/** One unit per executable of the stack contract, as install_memory.sh names them (role suffix when it passes arguments). */
const STACK_SERVICES = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')).services as {
  service: string;
  executables: { name: string; role: string; args?: string[] }[];
  healthchecks?: { name: string }[];
}[];
const STACK_UNITS: string[] = STACK_SERVICES.flatMap((s) => s.executables.filter((e) => !e.role.startsWith('dev-')).map((e) => `airlock-${e.name}${e.args?.length ? `-${e.role}` : ''}.service`));
/** Each healthcheck of a service adds a oneshot unit and the timer that starts it. */
const HEALTH_UNITS: string[] = STACK_SERVICES.flatMap((s) => (s.healthchecks ?? []).map((h) => `airlock-${s.service}-health-${h.name}`));
const TIMERS: string[] = HEALTH_UNITS.map((u) => `${u}.timer`).sort();
const UNIT_FILES: string[] = [...STACK_UNITS, ...HEALTH_UNITS.flatMap((u) => [`${u}.service`, `${u}.timer`])].sort();
const README_FILE_SURFACES = readFileSync(join(import.meta.dirname, 'fixtures', 'readme-file-surfaces.md'), 'utf8');

/**
 * A checkout of the semantic service alone, so that the selfcheck's result depends on this
 * issue's files only: the semantic contracts, manifest and stack contract entries, the QA
 * registry with the test files it names, docs/semantic.md and docs/commands.md, a README made of
 * the requested text, src/semantic, and an empty source file for each other command docs/commands.md lists.
 */
function seed000Checkout(t: TestContext): string {
  const copy = tempDir(t);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    writeFileSync(join(copy, path), text);
  };
  const copyFile = (path: string) => write(path, readFileSync(join(ROOT, path), 'utf8'));
  for (const file of readdirSync(join(ROOT, 'contracts')).filter((f) => f.startsWith('semantic_'))) copyFile(`contracts/${file}`);
  for (const file of readdirSync(join(ROOT, 'contracts', 'api')).filter((f) => f.startsWith('semantic_'))) copyFile(`contracts/api/${file}`);
  for (const path of ['configs/stack-contract.json', 'governance-manifest.json']) {
    const doc = JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
    doc.services = doc.services.filter((service: { service: string }) => service.service === 'semantic');
    write(path, `${JSON.stringify(doc, null, 2)}\n`);
  }
  // The QA registry of the semantic module alone: other modules' services are not in this checkout.
  const registry = JSON.parse(readFileSync(join(ROOT, 'contracts', 'qa_feature_registry_v1.json'), 'utf8'));
  registry.modules = registry.modules.filter((m: { module: string }) => m.module === 'semantic');
  registry.features = registry.features.filter((f: { module: string }) => f.module === 'semantic');
  write('contracts/qa_feature_registry_v1.json', `${JSON.stringify(registry, null, 2)}\n`);
  for (const file of new Set<string>(registry.features.flatMap((f: { tests: { file: string }[] }) => f.tests.map((test) => test.file)))) copyFile(file);
  for (const path of ['docs/semantic.md', 'docs/commands.md', 'contracts/governance/memory_runtime_claims_v1.json', 'toolchain/node-sha256.json']) copyFile(path);
  cpSync(join(ROOT, 'src', 'semantic'), join(copy, 'src', 'semantic'), { recursive: true });
  const commands = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
  for (const command of listCommands(ROOT).filter((c) => commands.includes(`\`${c.name}`) && !existsSync(join(copy, c.source)))) write(command.source, '');
  // What docs/commands.md links to, as stubs: their content belongs to other issues.
  const linked = new Set([...commands.matchAll(/`((?:docs|src)\/[^`]+\.md)`/g)].map((m) => m[1]!));
  for (const path of linked) if (!existsSync(join(copy, path))) write(path, '# stub\n');
  write('README.md', `# Airlock (fixture)\n${README_FILE_SURFACES}`);
  return copy;
}

test('governance-selfcheck.sh passes on a checkout whose README names the file surfaces, and reports each step with --json', async (t) => {
  const copy = seed000Checkout(t);
  const text = await bash('governance-selfcheck.sh', ['--root', copy]);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /^selfcheck passed: 7 steps$/m);
  const json = await bash('governance-selfcheck.sh', ['--root', copy, '--json']);
  assert.equal(json.code, 0);
  const report = json.json();
  assert.deepEqual(report.steps.map((s: { step: string; exit_code: number }) => [s.step, s.exit_code]), [
    ['check_contract_schemas', 0], ['check_semantic_cdc_matrix', 0], ['verify_isolation_domain_walls', 0], ['check_docs_contract', 0],
    ['check_module_features_contract', 0], ['check_runtime_materialization_drift', 0], ['export-governance-metadata', 0],
  ]);
  assert.equal(report.steps[3].result.ok, true);
});

test('governance-selfcheck.sh exits 1 naming the step that failed', async (t) => {
  const copy = seed000Checkout(t);
  const cdc = join(copy, 'contracts', 'api', 'semantic_cdc_v1.json');
  const doc = JSON.parse(readFileSync(cdc, 'utf8'));
  doc.ts01_consumer_matrix.consumers[4].claims_green = true;
  writeFileSync(cdc, JSON.stringify(doc));
  writeFileSync(join(copy, 'scripts', 'undocumented_check.ts'), '');
  const result = await bash('governance-selfcheck.sh', ['--root', copy]);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /^FAIL check_semantic_cdc_matrix \(exit 1\)$/m);
  assert.match(result.stdout, /^FAIL check_docs_contract \(exit 1\)$/m);
  assert.match(result.stdout, /command "undocumented_check" is not listed in docs\/commands\.md/);
  assert.match(result.stdout, /^selfcheck FAILED: 3 failed, 0 could not run$/m);
  assert.equal((await bash('governance-selfcheck.sh', ['--root', join(copy, 'absent')])).code, 2);
});

test('the selfcheck installed by install_memory.sh passes on its own prefix', async (t) => {
  const prefix = tempDir(t);
  const installed = await install(prefix);
  assert.equal(installed.code, 0, installed.stdout + installed.stderr);
  const child = spawn('bash', [join(prefix, 'scripts', 'governance-selfcheck.sh'), '--root', prefix, '--json'], {
    env: { PATH, HOME: process.env['HOME'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.resume();
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const result = JSON.parse(stdout) as { ok: boolean; steps: { step: string; exit_code: number; result: { checks?: { name: string; ok: boolean; reasons: string[] }[] } | null }[] };
  const failed = result.steps.filter((s) => s.exit_code !== 0).map((s) => `${s.step}: ${JSON.stringify(s.result?.checks?.filter((c) => !c.ok))}`);
  assert.deepEqual(failed, []);
  assert.equal(code, 0);
  assert.equal(result.ok, true);
});
