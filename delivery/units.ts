// systemd units for every executable of the stack contract (one per bundle and role) and a timer
// per declared healthcheck, generated from configs/stack-contract.json and
// governance-manifest.json (both generated from src/<svc>/manifest.ts), so a new service gets
// its units by declaring itself. Each runs as its own service user in systemd's sandbox; the
// hardening targets `systemd-analyze security` 2.0 or lower ("OK").

export interface UnitPaths {
  /** Install prefix: <prefix>/bin/airlock, <prefix>/etc/airlock.env. */
  prefix: string;
  /** Parent of the per-service data directories (<dataDir>/<service>). */
  dataDir: string;
  /** ExecStart before the arguments, `{name}` standing for the bundle (default: `<prefix>/bin/airlock {name}`). */
  exec?: string;
  /**
   * One data directory and one user (`airlock`) for every service, for installs whose
   * airlock.env sets AIRLOCK_DATA_DIR itself (install_memory.sh): an EnvironmentFile= value
   * overrides Environment=, so a per-service directory could not be enforced there.
   */
  sharedDataDir?: boolean;
}

export interface GeneratedUnit {
  /** File name, e.g. airlock-semantic-api.service. */
  file: string;
  text: string;
}

interface ContractListener { name: string; port: number; env: string }
interface ContractExecutable { name: string; role: string; args?: string[]; listeners: ContractListener[] }
interface ContractHealthcheck { name: string; probe: string; intervals: Record<string, number>; timeoutSeconds?: number; retries?: number; startPeriodSeconds?: number }
interface ContractService { service: string; executables: ContractExecutable[]; healthchecks?: ContractHealthcheck[] }
interface ManifestService { service: string; dependencies: { kind: string }[] }

/** Placeholders the release writes and install.sh replaces with its --prefix and --data-dir. */
export const PLACEHOLDERS: UnitPaths = { prefix: '@AIRLOCK_PREFIX@', dataDir: '@AIRLOCK_DATA_DIR@' };

/** The system user a service's units run as. */
export function serviceUser(service: string): string {
  return `airlock-${service}`;
}

// Everything systemd offers that a Node service on loopback does without. Not set:
// MemoryDenyWriteExecute (V8's JIT writes code) and PrivateNetwork (loopback must be reachable).
const SANDBOX = [
  'NoNewPrivileges=yes',
  'ProtectSystem=strict',
  'PrivateTmp=yes',
  'PrivateDevices=yes',
  'PrivateUsers=yes',
  'PrivateMounts=yes',
  'ProtectHostname=yes',
  'ProtectClock=yes',
  'ProtectKernelTunables=yes',
  'ProtectKernelModules=yes',
  'ProtectKernelLogs=yes',
  'ProtectControlGroups=yes',
  'ProtectProc=invisible',
  'ProcSubset=pid',
  'RestrictNamespaces=yes',
  'RestrictRealtime=yes',
  'RestrictSUIDSGID=yes',
  'LockPersonality=yes',
  'RemoveIPC=yes',
  'KeyringMode=private',
  'DevicePolicy=closed',
  'UMask=0077',
  'CapabilityBoundingSet=',
  'AmbientCapabilities=',
  'SystemCallArchitectures=native',
  'SystemCallFilter=@system-service',
  'SystemCallFilter=~@privileged @resources',
  'SystemCallErrorNumber=EPERM',
  'IPAddressAllow=localhost',
  'IPAddressDeny=any',
];

/** A role named dev-* is a development aid that npm start runs (content-dev-oidc): never installed as a unit. */
export function isDevelopmentRole(executable: { role: string }): boolean {
  return executable.role.startsWith('dev-');
}

/** The unit name of an executable: airlock-<name>, plus -<role> when args pick a role. */
export function unitName(executable: ContractExecutable): string {
  return executable.args && executable.args.length > 0 ? `airlock-${executable.name}-${executable.role}` : `airlock-${executable.name}`;
}

export function generateUnits(stackContract: unknown, governanceManifest: unknown, paths: UnitPaths): GeneratedUnit[] {
  const services = (stackContract as { services: ContractService[] }).services;
  const manifests = new Map((governanceManifest as { services: ManifestService[] }).services.map((s) => [s.service, s]));
  const units: GeneratedUnit[] = [];
  for (const service of services) {
    // Any dependency but a local file or database may be reached over a socket (HTTP, a bus).
    const usesNetwork = manifests.get(service.service)?.dependencies.some((d) => d.kind !== 'sqlite' && d.kind !== 'file') ?? false;
    for (const executable of service.executables) {
      if (isDevelopmentRole(executable)) continue;
      const networked = usesNetwork || executable.listeners.length > 0;
      const exec = [execFor(executable.name, paths), ...(executable.args ?? [])].join(' ');
      units.push({
        file: `${unitName(executable)}.service`,
        text: serviceUnit(service.service, `${executable.name} (${executable.role})`, exec, networked, paths, usesNetwork, ['Type=simple', 'Restart=on-failure', 'RestartSec=2s', 'KillSignal=SIGTERM', 'TimeoutStopSec=20s']),
      });
    }
    for (const check of service.healthchecks ?? []) units.push(...healthcheckUnits(service.service, check, paths));
  }
  return units.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/**
 * The comment line that ends the sandbox (after IPAddressAllow=localhost, IPAddressDeny=any) in
 * the unit of a service whose manifest names a networked dependency (NATS, an OpenID provider, an
 * agent runtime...): `install.sh --allow-ip ADDR` puts `IPAddressAllow=ADDR` after it, so a peer
 * that is not on loopback can be reached.
 */
export const PEERS_MARKER = '# Peers off loopback: install.sh --allow-ip ADDR adds IPAddressAllow=ADDR below (docs/delivery.md).';

function serviceUnit(service: string, what: string, exec: string, networked: boolean, paths: UnitPaths, hasPeers: boolean, kind: string[]): string {
  const user = paths.sharedDataDir ? 'airlock' : serviceUser(service);
  const data = paths.sharedDataDir ? paths.dataDir : `${paths.dataDir}/${service}`;
  // A Node outside the install (a checkout under /root or /home) must stay readable.
  const home = /^\/(root|home)(\/|$)/.test(exec) ? 'ProtectHome=read-only' : 'ProtectHome=yes';
  return [
    `# Generated from configs/stack-contract.json (src/${service}/manifest.ts) by npm run release;`,
    '# install.sh writes it. Regenerate rather than edit.',
    '[Unit]',
    `Description=Airlock ${service}: ${what}`,
    'After=network.target',
    '',
    '[Service]',
    ...kind,
    `User=${user}`,
    `Group=${user}`,
    `EnvironmentFile=-${paths.prefix}/etc/airlock.env`,
    ...(paths.sharedDataDir ? [] : [`Environment=AIRLOCK_DATA_DIR=${data}`]),
    `WorkingDirectory=${data}`,
    `ExecStart=${exec}`,
    `ReadWritePaths=${data}`,
    `RestrictAddressFamilies=${networked ? 'AF_INET AF_INET6' : 'AF_UNIX'}`,
    home,
    ...SANDBOX,
    ...(hasPeers ? [PEERS_MARKER] : []),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

function healthcheckUnits(service: string, check: ContractHealthcheck, paths: UnitPaths): GeneratedUnit[] {
  const base = `airlock-${service}-health-${check.name}`;
  const timeout = check.timeoutSeconds ?? 10;
  const interval = check.intervals['default'];
  const profiles = Object.entries(check.intervals).filter(([profile]) => profile !== 'default');
  return [
    {
      file: `${base}.service`,
      text: serviceUnit(service, `healthcheck ${check.name} (${check.probe})`, probeCommand(check, paths), true, paths, false, ['Type=oneshot', `TimeoutStartSec=${timeout * ((check.retries ?? 0) + 1) + 5}s`]).replace(/\n\[Install\]\nWantedBy=multi-user.target\n$/, '\n'),
    },
    {
      file: `${base}.timer`,
      text: [
        `# Generated from the healthchecks of src/${service}/manifest.ts by npm run release.`,
        ...profiles.map(([profile, seconds]) => `# profile ${profile}: OnUnitActiveSec=${seconds}s`),
        '[Unit]',
        `Description=Airlock ${service}: healthcheck ${check.name} every ${interval}s`,
        '',
        '[Timer]',
        `OnActiveSec=${check.startPeriodSeconds ?? interval}s`,
        `OnUnitActiveSec=${interval}s`,
        'AccuracySec=1s',
        `Unit=${base}.service`,
        '',
        '[Install]',
        'WantedBy=timers.target',
        '',
      ].join('\n'),
    },
  ];
}

/** The probe as an ExecStart: an http URL goes to `airlock healthcheck`, `node dist/bin/X.mjs` to `airlock X`. */
/** How a unit starts the command `name`. */
function execFor(name: string, paths: UnitPaths): string {
  return (paths.exec ?? `${paths.prefix}/bin/airlock {name}`).replaceAll('{name}', name);
}

export function probeCommand(check: ContractHealthcheck, paths: UnitPaths): string {
  const probe = check.probe.trim().replace(/^curl( -[a-zA-Z]+)* (?=https?:)/, '');
  if (/^https?:\/\//.test(probe)) {
    return [execFor('healthcheck', paths), '--url', probe, '--timeout', String(check.timeoutSeconds ?? 10), '--retries', String(check.retries ?? 0)].join(' ');
  }
  const bundle = /^node dist\/bin\/([A-Za-z0-9_-]+)\.mjs(.*)$/.exec(probe);
  if (bundle) return `${execFor(bundle[1] as string, paths)}${bundle[2]}`;
  return `/bin/sh -c ${JSON.stringify(probe)}`;
}
