import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateUnits, PEERS_MARKER, PLACEHOLDERS, probeCommand, serviceUser } from '../../delivery/units.ts';
import { exposure, hasSystemdAnalyze, INSTALL_HINT, verifyUnits } from './systemd.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const STACK = JSON.parse(readFileSync(join(ROOT, 'configs', 'stack-contract.json'), 'utf8')) as { services: { service: string; executables: unknown[]; healthchecks?: unknown[] }[] };
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'governance-manifest.json'), 'utf8')) as { services: { service: string; dependencies: unknown[] }[] };

/** The project's stack contract plus a service with healthchecks and a worker that uses no network. */
function contracts() {
  const stack = structuredClone(STACK);
  stack.services.push({
    service: 'demo',
    executables: [
      { name: 'demo-api', role: 'api', listeners: [{ name: 'main', port: 18990, env: 'DEMO_LISTEN' }] },
      { name: 'demo-worker', role: 'worker', listeners: [] },
    ],
    healthchecks: [
      { name: 'api', probe: 'http://127.0.0.1:18990/healthz', intervals: { default: 30, low_cpu: 120 }, timeoutSeconds: 5, retries: 2, startPeriodSeconds: 60 },
      { name: 'queue', probe: 'node dist/bin/demo-worker.mjs --once --json', intervals: { default: 300 } },
    ],
  });
  const manifest = structuredClone(MANIFEST);
  manifest.services.push({ service: 'demo', dependencies: [{ kind: 'sqlite' }] });
  return { stack, manifest };
}

const PATHS = { prefix: '/opt/airlock', dataDir: '/var/lib/airlock' };

test('one unit per executable and role of every service in the stack contract', () => {
  const units = generateUnits(STACK, MANIFEST, PATHS).map((u) => u.file);
  const expected = STACK.services.flatMap((s) => [
    ...(s.executables as { name: string; role: string; args?: string[] }[]).filter((e) => !e.role.startsWith('dev-')).map((e) => (e.args ? `airlock-${e.name}-${e.role}.service` : `airlock-${e.name}.service`)),
    ...((s['healthchecks'] ?? []) as { name: string }[]).flatMap((h) => [`airlock-${s.service}-health-${h.name}.service`, `airlock-${s.service}-health-${h.name}.timer`]),
  ]);
  assert.deepEqual(units, [...expected].sort());
  assert.ok(units.includes('airlock-governance-api-platform-api.service') && units.includes('airlock-semantic-worker.service'));
});

test('each unit runs airlock from the prefix as its service user, writing only its data directory', () => {
  const { stack, manifest } = contracts();
  for (const unit of generateUnits(stack, manifest, PATHS).filter((u) => u.file.endsWith('.service'))) {
    const service = /Description=Airlock (\S+):/.exec(unit.text)?.[1] as string;
    const lines = unit.text.split('\n');
    const has = (line: string) => assert.ok(lines.includes(line), `${unit.file} lacks ${line}`);
    has(`User=${serviceUser(service)}`);
    has(`ReadWritePaths=/var/lib/airlock/${service}`);
    has(`Environment=AIRLOCK_DATA_DIR=/var/lib/airlock/${service}`);
    for (const line of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'PrivateTmp=yes', 'PrivateDevices=yes', 'IPAddressAllow=localhost', 'IPAddressDeny=any', 'CapabilityBoundingSet=', 'SystemCallFilter=@system-service']) has(line);
    assert.match(unit.text, /^ExecStart=\/opt\/airlock\/bin\/airlock /m);
    assert.equal(lines.filter((l) => l.startsWith('ReadWritePaths=')).length, 1);
  }
});

test('address families: internet for listeners and networked dependencies, none but AF_UNIX otherwise', () => {
  const { stack, manifest } = contracts();
  const units = new Map(generateUnits(stack, manifest, PATHS).map((u) => [u.file, u.text]));
  assert.match(units.get('airlock-demo-api.service') ?? '', /^RestrictAddressFamilies=AF_INET AF_INET6$/m);
  assert.match(units.get('airlock-demo-worker.service') ?? '', /^RestrictAddressFamilies=AF_UNIX$/m);
  assert.match(units.get('airlock-semantic-worker.service') ?? '', /^RestrictAddressFamilies=AF_INET AF_INET6$/m, 'semantic declares HTTP dependencies');
  manifest.services.find((m) => m.service === 'demo')?.dependencies.push({ kind: 'nats' });
  const withBus = new Map(generateUnits(stack, manifest, PATHS).map((u) => [u.file, u.text]));
  assert.match(withBus.get('airlock-demo-worker.service') ?? '', /^RestrictAddressFamilies=AF_INET AF_INET6$/m, 'a bus dependency is reached over a socket');
});

test('the units of services with network peers (messaging to NATS, erp to its agent runtime, content to its OpenID provider) carry the --allow-ip marker; others and healthchecks do not', () => {
  const { stack, manifest } = contracts();
  const units = generateUnits(stack, manifest, PATHS);
  const marked = (file: string) => (units.find((u) => u.file === file)?.text ?? '').split('\n').includes(PEERS_MARKER);
  for (const file of ['airlock-messaging-api.service', 'airlock-erp-api.service', 'airlock-content-api.service', 'airlock-semantic-worker.service', 'airlock-agent-context-api.service']) assert.ok(marked(file), file);
  for (const file of ['airlock-demo-api.service', 'airlock-demo-worker.service', 'airlock-erp-health-gateway.service']) assert.ok(!marked(file), file);
  for (const unit of units.filter((u) => marked(u.file))) assert.match(unit.text, /^IPAddressAllow=localhost\nIPAddressDeny=any\n# Peers off loopback: /m, unit.file);
});

test('a timer and a oneshot service per declared healthcheck, with the declared numbers', () => {
  const { stack, manifest } = contracts();
  const units = new Map(generateUnits(stack, manifest, PATHS).map((u) => [u.file, u.text]));
  const timer = units.get('airlock-demo-health-api.timer') ?? '';
  assert.match(timer, /^OnUnitActiveSec=30s$/m);
  assert.match(timer, /^OnActiveSec=60s$/m);
  assert.match(timer, /^# profile low_cpu: OnUnitActiveSec=120s$/m);
  assert.match(timer, /^Unit=airlock-demo-health-api\.service$/m);
  const check = units.get('airlock-demo-health-api.service') ?? '';
  assert.match(check, /^Type=oneshot$/m);
  assert.match(check, /^ExecStart=\/opt\/airlock\/bin\/airlock healthcheck --url http:\/\/127\.0\.0\.1:18990\/healthz --timeout 5 --retries 2$/m);
  assert.doesNotMatch(check, /\[Install\]/, 'started by its timer only');
  assert.match(units.get('airlock-demo-health-queue.service') ?? '', /^ExecStart=\/opt\/airlock\/bin\/airlock demo-worker --once --json$/m);
  assert.match(units.get('airlock-demo-health-queue.timer') ?? '', /^OnActiveSec=300s$/m);
});

test('probe commands: curl and bare URLs go to airlock healthcheck, other commands to /bin/sh', () => {
  const base = { name: 'x', intervals: { default: 10 } };
  assert.equal(probeCommand({ ...base, probe: 'curl -fsS http://127.0.0.1:1/healthz' }, PATHS), '/opt/airlock/bin/airlock healthcheck --url http://127.0.0.1:1/healthz --timeout 10 --retries 0');
  assert.equal(probeCommand({ ...base, probe: 'pg_isready -h 127.0.0.1' }, PATHS), '/bin/sh -c "pg_isready -h 127.0.0.1"');
});

test('the release writes placeholders that install.sh fills in', () => {
  const [unit] = generateUnits(STACK, MANIFEST, PLACEHOLDERS);
  assert.match(unit?.text ?? '', /^ExecStart=@AIRLOCK_PREFIX@\/bin\/airlock /m);
  assert.match(unit?.text ?? '', /^ReadWritePaths=@AIRLOCK_DATA_DIR@\//m);
});

test('systemd-analyze: every unit verifies and rates 2.0 or lower', (t) => {
  assert.ok(hasSystemdAnalyze(), INSTALL_HINT);
  const dir = mkdtempSync(join(tmpdir(), 'airlock-units-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const paths = { prefix: join(dir, 'opt'), dataDir: join(dir, 'data') };
  mkdirSync(join(paths.prefix, 'bin'), { recursive: true });
  copyFileSync('/bin/true', join(paths.prefix, 'bin', 'airlock'));
  chmodSync(join(paths.prefix, 'bin', 'airlock'), 0o755);
  const { stack, manifest } = contracts();
  const files = generateUnits(stack, manifest, paths).map((u) => {
    const file = join(dir, u.file);
    writeFileSync(file, u.text);
    return file;
  });
  const verified = verifyUnits(files);
  assert.equal(verified.code, 0, verified.output);
  assert.equal(verified.output, '', 'no warnings');
  for (const file of files.filter((f) => f.endsWith('.service'))) {
    const { score, output } = exposure(file);
    assert.ok(score <= 2.0, `${file} rates ${score}:\n${output}`);
  }
});
