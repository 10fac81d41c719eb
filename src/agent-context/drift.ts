// GET /api/v1/drift/summary: what the governance service publishes about this service (its entry
// of governance-manifest.json and the stack contract, read through GET /api/v1/platform/services)
// against what is running: the capabilities this code serves, the number of surfaces its route
// table exposes, its executable and its listener. No governance truth, no summary: 503, never
// "no drift".

import type { GovernanceClient } from './governance-client.ts';
import { CAPABILITIES, EXECUTABLE, SERVICE_NAME } from './identity.ts';

export interface DriftFinding {
  kind: 'service_not_declared' | 'capability_not_declared' | 'capability_not_served' | 'surface_count_differs' | 'executable_not_declared';
  detail: string;
}

export interface DriftSummary {
  service: string;
  source: string;
  drift: boolean;
  findings: DriftFinding[];
  /** Differences that are allowed by the declaration (e.g. a listener moved with its variable). */
  observations: { kind: string; detail: string }[];
  declared: { capabilities: string[]; exposed_surfaces: number | null; executables: string[] } | null;
  running: { capabilities: string[]; exposed_surfaces: number; executable: string; listener: string; version: string };
}

export interface DeclaredService {
  service: string;
  capabilities?: string[];
  exposed_surfaces?: number;
  executables?: { name: string; listeners?: { name: string; port: number; env?: string }[] }[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const listOf = <T>(value: unknown, keep: (item: unknown) => item is T): T[] | undefined => (Array.isArray(value) ? value.filter(keep) : undefined);

/**
 * The services list of governance `GET /api/v1/platform/services`, keeping only entries and
 * members of the published shape (a wrong-typed member reads as absent), or undefined when the
 * body carries no list: governance answering garbage is unavailable truth, never a crash here.
 */
export function declaredServices(body: unknown): DeclaredService[] | undefined {
  const list = isObject(body) ? body['services'] : undefined;
  if (!Array.isArray(list)) return undefined;
  return list.filter((s): s is Record<string, unknown> => isObject(s) && typeof s['service'] === 'string').map((s) => {
    const capabilities = listOf(s['capabilities'], (c): c is string => typeof c === 'string');
    const executables = listOf(s['executables'], (e): e is Record<string, unknown> => isObject(e) && typeof e['name'] === 'string')?.map((e) => {
      const listeners = listOf(e['listeners'], (l): l is { name: string; port: number } => isObject(l) && typeof l['name'] === 'string' && typeof l['port'] === 'number');
      return { name: e['name'] as string, ...(listeners && { listeners }) };
    });
    return {
      service: s['service'] as string,
      ...(capabilities && { capabilities }),
      ...(typeof s['exposed_surfaces'] === 'number' && { exposed_surfaces: s['exposed_surfaces'] }),
      ...(executables && { executables }),
    };
  });
}

export type DriftOutcome = { ok: true; summary: DriftSummary } | { ok: false; reason: string; outcome: string };

export async function driftSummary(options: { governance: GovernanceClient; surfaces: number; listenerUrl: string; version: string }): Promise<DriftOutcome> {
  const truth = await options.governance.truth('/api/v1/platform/services');
  if (!truth.ok) return { ok: false, reason: truth.reason, outcome: truth.outcome };
  const services = declaredServices(truth.body);
  if (services === undefined) return { ok: false, reason: 'Governance /api/v1/platform/services carries no services list', outcome: 'invalid_body' };
  const running = { capabilities: [...CAPABILITIES], exposed_surfaces: options.surfaces, executable: EXECUTABLE, listener: options.listenerUrl, version: options.version };
  const declared = services.find((s) => s.service === SERVICE_NAME);
  const findings: DriftFinding[] = [];
  const observations: DriftSummary['observations'] = [];
  if (!declared) {
    findings.push({ kind: 'service_not_declared', detail: `governance-manifest.json has no entry "${SERVICE_NAME}": run npm run contracts and redeploy the manifest` });
  } else {
    const declaredCaps = new Set(declared.capabilities ?? []);
    for (const cap of CAPABILITIES) if (!declaredCaps.has(cap)) findings.push({ kind: 'capability_not_declared', detail: `Capability "${cap}" runs but the manifest does not declare it` });
    for (const cap of declaredCaps) if (!(CAPABILITIES as readonly string[]).includes(cap)) findings.push({ kind: 'capability_not_served', detail: `The manifest declares capability "${cap}", which this code does not serve` });
    if (declared.exposed_surfaces !== options.surfaces) {
      findings.push({ kind: 'surface_count_differs', detail: `The manifest declares ${declared.exposed_surfaces ?? 'no'} exposed surfaces; the running route table has ${options.surfaces}` });
    }
    const executable = (declared.executables ?? []).find((e) => e.name === EXECUTABLE);
    if (!executable) findings.push({ kind: 'executable_not_declared', detail: `The manifest declares no executable "${EXECUTABLE}"` });
    const port = executable?.listeners?.find((l) => l.name === 'main')?.port;
    const runningPort = Number(new URL(options.listenerUrl).port);
    if (port !== undefined && port !== runningPort) {
      observations.push({ kind: 'listener_overridden', detail: `Declared port ${port}; running on ${runningPort} (AGENT_CONTEXT_LISTEN or --listen)` });
    }
  }
  return {
    ok: true,
    summary: {
      service: SERVICE_NAME,
      source: 'governance GET /api/v1/platform/services (governance-manifest.json and configs/stack-contract.json)',
      drift: findings.length > 0,
      findings,
      observations,
      declared: declared ? { capabilities: declared.capabilities ?? [], exposed_surfaces: declared.exposed_surfaces ?? null, executables: (declared.executables ?? []).map((e) => e.name) } : null,
      running,
    },
  };
}
