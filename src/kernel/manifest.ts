// What each service declares about itself once (src/<service>/manifest.ts), from which the
// top-level governance-manifest.json, configs/stack-contract.json and each OpenAPI export are
// generated. Exposed surfaces are computed from the route table, never listed by hand, so the
// manifest "matches the surface inventory" (seed 002) by construction.

import { exportOpenApi } from './http/openapi.ts';
import type { Route } from './http/route.ts';

export interface ListenerDeclaration {
  /** The listener name of the route table (`main`, `platform`, `worker`). */
  name: string;
  /** Default port (DESIGN.md "Ports"). */
  port: number;
  /** Environment variable that overrides host:port. */
  env: string;
  /** True when the listener must stay on loopback whatever the opt-in says. */
  loopbackOnly?: boolean;
}

export interface ExecutableDeclaration {
  /** Bundle name: dist/bin/<name>.mjs. */
  name: string;
  role: string;
  /** The command that starts it in a checkout (npm start uses it). */
  source: string;
  listeners: readonly ListenerDeclaration[];
  /** Arguments npm start passes (e.g. a deployment role). */
  args?: readonly string[];
}

export interface DependencyDeclaration {
  name: string;
  kind: 'http' | 'sqlite' | 'file';
  /** Owned by another team or service (consumed, not served). */
  owner: string;
  /** Environment variable that configures it. */
  env?: string;
  required: boolean;
}

export interface ConsumedSurface {
  owner: string;
  method?: string;
  path?: string;
  description: string;
}

/**
 * A healthcheck an orchestrator runs against one part of the service (seed 002 names these per
 * service: ERP weak-host, messaging compose, agent-context compose). The stack contract lists
 * them and the systemd units are generated from them, so the numbers live in one place.
 */
export interface HealthcheckDeclaration {
  /** What is probed, e.g. `database`, `gateway`, `bus`, `mailbox-adapter`. */
  name: string;
  /** How: an HTTP URL on loopback (`http://127.0.0.1:18041/healthz`) or a command an operator types. */
  probe: string;
  /** Seconds between probes per deployment profile; `default` is required (`low_cpu`, `production`, `integration`, ...). */
  intervals: { readonly default: number } & Readonly<Record<string, number>>;
  timeoutSeconds?: number;
  retries?: number;
  startPeriodSeconds?: number;
  /** Environment variable that overrides the default interval. */
  intervalEnv?: string;
  /** The least interval the seed allows, when it names one. */
  minIntervalSeconds?: number;
}

export interface ServiceManifest {
  /** Folder name under src/. */
  service: string;
  /** The seed file that specifies it. */
  seed: string;
  title: string;
  description: string;
  owner: string;
  capabilities: readonly string[];
  executables: readonly ExecutableDeclaration[];
  dependencies: readonly DependencyDeclaration[];
  consumed: readonly ConsumedSurface[];
  /** Files the service keeps (databases), relative to $AIRLOCK_DATA_DIR. */
  volumes: readonly { path: string; purpose: string }[];
  /** Commands that verify it, as an operator types them. */
  verify: readonly string[];
  /** Contract files it publishes, relative to the repository root. */
  contracts: readonly string[];
  /** Where its OpenAPI export is committed. */
  openapiPath: string;
  openapiInfo: { title: string; version: string; description?: string };
  /** The export's `servers`; by default each declared listener at 127.0.0.1 and its default port. */
  openapiServers?: readonly { url: string; description?: string }[];
  /** Name on each path the listener(s) it is on (path-level `servers`): for a document over listeners that serve different paths. */
  openapiServersPerPath?: boolean;
  securitySchemes: Record<string, Record<string, unknown>>;
  /** The route table (built without configuration: handlers are not called). */
  routes: readonly Route[];
  /** Healthchecks an orchestrator (systemd timers, compose) runs; absent when the seed names none. */
  healthchecks?: readonly HealthcheckDeclaration[];
}

/** The exposed HTTP surfaces of a manifest's routes: one row per method, path and listener. */
export function exposedSurfaces(manifest: ServiceManifest): { listener: string; method: string; path: string; auth: string }[] {
  return manifest.routes
    .map((r) => ({ listener: r.listener ?? 'main', method: r.method, path: r.path, auth: r.auth }))
    .sort((a, b) => (a.path + a.method < b.path + b.method ? -1 : 1));
}

/** The top-level governance-manifest.json: one entry per service. */
export function buildGovernanceManifest(manifests: readonly ServiceManifest[]): Record<string, unknown> {
  return {
    manifest_version: 1,
    services: sortByService(manifests).map((m) => ({
      service: m.service,
      seed: m.seed,
      identity: { title: m.title, description: m.description, owner: m.owner },
      capabilities: [...m.capabilities],
      dependencies: m.dependencies.map((d) => ({ ...d })),
      consumed_surfaces: m.consumed.map((c) => ({ ...c })),
      exposed_surfaces: exposedSurfaces(m),
      executables: [...new Set(m.executables.map((e) => e.name))],
      contracts: [...m.contracts, m.openapiPath].sort(),
    })),
  };
}

/** configs/stack-contract.json: every service, its ports, volumes, start and verify commands. */
export function buildStackContract(manifests: readonly ServiceManifest[]): Record<string, unknown> {
  return {
    contract_version: 1,
    data_dir: { env: 'AIRLOCK_DATA_DIR', default: './var' },
    services: sortByService(manifests).map((m) => ({
      service: m.service,
      executables: m.executables.map((e) => ({
        name: e.name,
        role: e.role,
        bundle: `dist/bin/${e.name}.mjs`,
        start: `node dist/bin/${e.name}.mjs${e.args && e.args.length > 0 ? ` ${e.args.join(' ')}` : ''}`,
        source: e.source,
        ...(e.args && { args: [...e.args] }),
        listeners: e.listeners.map((l) => ({ ...l, host: '127.0.0.1' })),
      })),
      volumes: m.volumes.map((v) => ({ ...v, path: `$AIRLOCK_DATA_DIR/${v.path}` })),
      verify: [...m.verify],
      ...(m.healthchecks && { healthchecks: m.healthchecks.map((h) => ({ ...h, intervals: { ...h.intervals } })) }),
    })),
  };
}

/** The OpenAPI export of a manifest's route table. */
export function buildOpenApi(manifest: ServiceManifest): Record<string, unknown> {
  const servers = listenerServers(manifest);
  return exportOpenApi({
    info: manifest.openapiInfo,
    routes: manifest.routes,
    securitySchemes: manifest.securitySchemes,
    servers: manifest.openapiServers ?? [...servers.values()],
    ...(manifest.openapiServersPerPath && { listenerServers: Object.fromEntries(servers) }),
  });
}

/** Each listener of the manifest's executables, once, at its default loopback address. */
function listenerServers(manifest: ServiceManifest): Map<string, { url: string; description: string }> {
  const seen = new Map<string, { url: string; description: string }>();
  for (const listener of manifest.executables.flatMap((e) => e.listeners)) {
    if (!seen.has(listener.name)) seen.set(listener.name, { url: `http://127.0.0.1:${listener.port}`, description: `${listener.name} listener (default address; ${listener.env} moves it)` });
  }
  return seen;
}

function sortByService(manifests: readonly ServiceManifest[]): ServiceManifest[] {
  return [...manifests].sort((a, b) => (a.service < b.service ? -1 : 1));
}
