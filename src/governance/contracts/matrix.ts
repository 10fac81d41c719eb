// Computed from governance-manifest.json and the route table, never written by hand: the
// producer/consumer matrix per contract family, this service's families, the service list and
// the dependency graph.

import { json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { familyOf, SERVICE_NAME } from '../identity.ts';
import { failClosed, routeArtifacts, splitRef } from '../routing/read-route.ts';
import type { GovernanceRuntime, ManifestDocument, ManifestService } from '../runtime.ts';

export interface MatrixFamily {
  family: string;
  producers: string[];
  /** Who consumes surfaces of the family, and from which owner (a consumer names its owner). */
  consumers: { service: string; owner: string; surfaces: string[] }[];
  surfaces: number;
}

export interface Matrix {
  families: MatrixFamily[];
  /** Consumed surfaces whose owner has no entry in the manifest (an external owner). */
  external: { consumer: string; owner: string; surface: string }[];
}

/** The matrix of `manifest`: a family's producers expose a surface in it; its consumers declare one. */
export function buildMatrix(manifest: ManifestDocument): Matrix {
  const families = new Map<string, { producers: Set<string>; consumers: Map<string, Set<string>>; surfaces: Set<string> }>();
  const entry = (family: string) => {
    let found = families.get(family);
    if (!found) families.set(family, (found = { producers: new Set(), consumers: new Map(), surfaces: new Set() }));
    return found;
  };
  const known = new Set(manifest.services.map((s) => s.service));
  for (const service of manifest.services) {
    for (const surface of service.exposed_surfaces ?? []) {
      const row = entry(familyOf(surface.path));
      row.producers.add(service.service);
      row.surfaces.add(`${surface.method} ${surface.path}`);
    }
  }
  const external: Matrix['external'] = [];
  for (const service of manifest.services) {
    for (const consumed of service.consumed_surfaces ?? []) {
      const surface = `${consumed.method ?? 'GET'} ${consumed.path ?? consumed.description}`;
      if (!known.has(consumed.owner) || consumed.path === undefined) {
        external.push({ consumer: service.service, owner: consumed.owner, surface });
        continue;
      }
      const consumers = entry(familyOf(consumed.path)).consumers;
      const key = `${service.service}\u0000${consumed.owner}`;
      consumers.set(key, (consumers.get(key) ?? new Set()).add(surface));
    }
  }
  return {
    families: [...families.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([family, row]) => ({
      family,
      producers: [...row.producers].sort(),
      consumers: [...row.consumers.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, surfaces]) => {
        const [service, owner] = key.split('\u0000') as [string, string];
        return { service, owner, surfaces: [...surfaces].sort() };
      }),
      surfaces: row.surfaces.size,
    })),
    external,
  };
}

/** 503 fail closed when governance-manifest.json is missing or broken. */
export function withManifest(runtime: GovernanceRuntime, build: (manifest: ManifestDocument) => unknown): Reply {
  const manifest = runtime.manifest;
  if (!manifest.ok) return failClosed(`Cannot compute from governance-manifest.json: ${manifest.detail}`, { reason: `manifest_${manifest.reason}` });
  return json(build(manifest.document));
}

export function matrixReply(runtime: GovernanceRuntime): Reply {
  return withManifest(runtime, (manifest) => ({ source: 'governance-manifest.json', services: manifest.services.map((s) => s.service), ...buildMatrix(manifest) }));
}

export function familiesReply(runtime: GovernanceRuntime): Reply {
  const matrix = runtime.manifest.ok ? buildMatrix(runtime.manifest.document) : undefined;
  const families = new Map<string, { routes: string[]; artifacts: Set<string>; capabilities: Set<string> }>();
  const routes = [
    ...runtime.reads.map((read) => ({ path: read.path, route: read.path, artifacts: routeArtifacts(read), capability: read.capability })),
    ...runtime.writes.map((write) => ({ path: write.path, route: `POST ${write.path}`, artifacts: (write.uses ?? []).map((ref) => splitRef(ref).artifact), capability: write.capability })),
  ];
  for (const entry of routes) {
    const family = familyOf(entry.path);
    const row = families.get(family) ?? { routes: [], artifacts: new Set<string>(), capabilities: new Set<string>() };
    row.routes.push(entry.route);
    for (const id of entry.artifacts) row.artifacts.add(id);
    row.capabilities.add(entry.capability);
    families.set(family, row);
  }
  return json({
    producer: SERVICE_NAME,
    families: [...families.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([family, row]) => ({
      family,
      routes: row.routes.sort(),
      artifacts: [...row.artifacts].sort(),
      capabilities: [...row.capabilities].sort(),
      consumers: matrix?.families.find((f) => f.family === family)?.consumers.map((c) => c.service) ?? [],
    })),
    matrix_source: runtime.manifest.ok ? 'governance-manifest.json' : `unavailable: ${runtime.manifest.detail}`,
  });
}

export function servicesReply(runtime: GovernanceRuntime): Reply {
  return withManifest(runtime, (manifest) => ({
    services: manifest.services.map((service) => describeService(runtime, service)),
    stack_contract: runtime.stackContract.ok ? 'configs/stack-contract.json' : `unavailable: ${runtime.stackContract.detail}`,
  }));
}

function describeService(runtime: GovernanceRuntime, service: ManifestService): Record<string, unknown> {
  const stack = runtime.stackContract.ok ? runtime.stackContract.document.services.find((s) => s.service === service.service) : undefined;
  return {
    service: service.service,
    title: service.identity?.title ?? service.service,
    owner: service.identity?.owner ?? 'unknown',
    seed: service.seed ?? null,
    capabilities: service.capabilities ?? [],
    executables: stack
      ? stack.executables.map((e) => ({ name: e.name, role: e.role, args: e.args ?? [], listeners: e.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port, env: l.env })) }))
      : (service.executables ?? []).map((name) => ({ name })),
    exposed_surfaces: (service.exposed_surfaces ?? []).length,
    consumed_surfaces: (service.consumed_surfaces ?? []).length,
    ...(service.service === SERVICE_NAME && { this_process: { deployment_role: runtime.config.role, listeners: Object.keys(runtime.config.listeners) } }),
  };
}

export function dependencyGraphReply(runtime: GovernanceRuntime): Reply {
  return withManifest(runtime, (manifest) => {
    const nodes = new Set(manifest.services.map((s) => s.service));
    const edges: { from: string; to: string; via: string; kind: string }[] = [];
    for (const service of manifest.services) {
      for (const consumed of service.consumed_surfaces ?? []) {
        nodes.add(consumed.owner);
        edges.push({ from: service.service, to: consumed.owner, via: consumed.path ? `${consumed.method ?? 'GET'} ${consumed.path}` : consumed.description, kind: 'consumed_surface' });
      }
      for (const dependency of service.dependencies ?? []) {
        if (dependency.owner === service.service) continue;
        nodes.add(dependency.owner);
        edges.push({ from: service.service, to: dependency.owner, via: dependency.name, kind: `dependency:${dependency.kind}` });
      }
    }
    return { member: 'dependency-graph', projection_state: 'published', source: 'governance-manifest.json', nodes: [...nodes].sort(), edges };
  });
}
