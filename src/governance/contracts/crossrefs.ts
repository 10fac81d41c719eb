// Cross-references between contract artifacts and the route table: every route a contract
// names exists, every schema it names resolves, every tool it names is in the tool-action
// registry, and every artifact member is published or read by some route (and the reverse).

import { canonicalJson } from '../../kernel/index.ts';
import type { JsonValue } from '../../kernel/index.ts';
import { SCHEMA_ID_PREFIX } from './artifacts.ts';
import type { ArtifactDocument } from './artifacts.ts';
import { splitRef } from '../routing/read-route.ts';
import { getPaths, resolvesToRoute } from './route-ref.ts';
import type { GovernanceRuntime } from '../runtime.ts';

export interface DriftItem {
  kind: string;
  subject: string;
  detail: string;
}

/** Keys whose string values (or string list items) are paths of served GET routes. */
const ROUTE_REF_KEYS = new Set(['route', 'routes', 'reads', 'refs', 'readback', 'readiness_route', 'export_path', 'slice_route', 'standard_route', 'surfaces']);

export interface ToolEntry {
  tool_name: string;
  capability_class: string;
  assertable: boolean;
  state: string;
  [field: string]: unknown;
}

/** The tools of the tool-action registry, or undefined when its artifact is not valid. */
export function toolRegistry(runtime: GovernanceRuntime): ToolEntry[] | undefined {
  const artifact = runtime.artifacts.get('acp_contracts');
  return artifact.state === 'valid' ? (artifact.document!.content['tool-action-registry']?.['tools'] as ToolEntry[]) : undefined;
}

/** Every valid artifact's document, by id. */
function validDocuments(runtime: GovernanceRuntime): [string, ArtifactDocument][] {
  return [...runtime.artifacts.artifacts.values()].filter((a) => a.state === 'valid').map((a) => [a.id, a.document!]);
}

/** Calls `visit` for every string in `value`, with the nearest object key above it. */
function walkStrings(value: unknown, key: string, visit: (text: string, key: string) => void): void {
  if (typeof value === 'string') visit(value, key);
  else if (Array.isArray(value)) for (const item of value) walkStrings(item, key, visit);
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) walkStrings(v, k, visit);
}

/**
 * Route states named in the artifacts (`{method, path, state}`): an enabled route is served with
 * that method, a planned or disabled one is not.
 */
export function routeStateProblems(runtime: GovernanceRuntime): DriftItem[] {
  const problems: DriftItem[] = [];
  for (const [id, document] of validDocuments(runtime)) {
    walkRouteStates(document.content, (entry) => {
      const served = runtime.routes.filter((r) => r.method === entry.method);
      const isServed = resolvesToRoute(entry.path, served);
      if (entry.state === 'enabled' && !isServed) problems.push({ kind: 'route_state_unserved', subject: id, detail: `${entry.method} ${entry.path} is "enabled" but not served` });
      if (entry.state !== 'enabled' && isServed) problems.push({ kind: 'route_state_stale', subject: id, detail: `${entry.method} ${entry.path} is served but "${entry.state}" in the contract` });
    });
  }
  return problems;
}

function walkRouteStates(value: unknown, visit: (entry: { method: string; path: string; state: string }) => void): void {
  if (Array.isArray(value)) for (const item of value) walkRouteStates(item, visit);
  else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record['method'] === 'string' && typeof record['path'] === 'string' && typeof record['state'] === 'string') {
      visit({ method: record['method'], path: record['path'], state: record['state'] });
    }
    for (const child of Object.values(record)) walkRouteStates(child, visit);
  }
}

/** Every write route's request schema that names a contract schema equals that schema file. */
export function requestSchemaProblems(runtime: GovernanceRuntime): DriftItem[] {
  const problems: DriftItem[] = [];
  for (const write of runtime.writes) {
    const id = (write.schema as { $id?: unknown }).$id;
    if (typeof id !== 'string' || !id.startsWith(SCHEMA_ID_PREFIX)) continue;
    const contract = runtime.artifacts.schemas.get(id);
    if (!contract) problems.push({ kind: 'request_schema_missing', subject: id, detail: `POST ${write.path} validates against "${id}", which is not under schemas/` });
    else if (canonicalJson(contract.document as JsonValue) !== canonicalJson(write.schema as JsonValue)) {
      problems.push({ kind: 'request_schema_drift', subject: id, detail: `POST ${write.path} validates against another "${id}" than ${contract.file}: rebuild or restart with matching contracts` });
    }
  }
  return problems;
}

/** Route refs and schema refs named anywhere in the artifacts' content. */
export function referenceProblems(runtime: GovernanceRuntime): DriftItem[] {
  const problems: DriftItem[] = [];
  const paths = getPaths(runtime.routes).map((path) => ({ path }));
  for (const [id, document] of validDocuments(runtime)) {
    walkStrings(document.content, '', (text, key) => {
      if (ROUTE_REF_KEYS.has(key) && text.startsWith('/') && !resolvesToRoute(text, paths)) {
        problems.push({ kind: 'route_ref_unresolved', subject: id, detail: `"${key}" names "${text}", which is not a served GET route` });
      }
      if (text.startsWith(SCHEMA_ID_PREFIX)) {
        const schema = runtime.artifacts.schemas.get(text);
        if (!schema || !schema.ok) problems.push({ kind: 'schema_ref_unresolved', subject: id, detail: `"${text}" does not resolve to a usable schema` });
      }
    });
  }
  return problems;
}

/** Tools named by capability classes, assertions and modules must be registered, consistently. */
export function toolProblems(runtime: GovernanceRuntime): DriftItem[] {
  const tools = toolRegistry(runtime);
  if (!tools) return [];
  const byName = new Map(tools.map((t) => [t.tool_name, t]));
  const problems: DriftItem[] = [];
  const need = (subject: string, name: string, where: string, check?: (tool: ToolEntry) => string | undefined) => {
    const tool = byName.get(name);
    const problem = !tool ? `${where} names tool "${name}", which is not in the tool-action registry` : check?.(tool);
    if (problem) problems.push({ kind: 'tool_ref_unknown', subject, detail: problem });
  };
  const member = (ref: string) => {
    const { artifact, member: key } = splitRef(ref);
    const loaded = runtime.artifacts.get(artifact);
    return loaded.state === 'valid' ? loaded.document!.content[key] : undefined;
  };
  for (const entry of (member('acp_contracts/capability-registry')?.['capability_classes'] ?? []) as { class: string; tools: string[] }[]) {
    for (const name of entry.tools) need('acp_contracts', name, `capability class "${entry.class}"`, (t) => (t.capability_class === entry.class ? undefined : `tool "${name}" is listed under class "${entry.class}" but registered as "${t.capability_class}"`));
  }
  const assertable = (member('acp_context_assertion/context-capability')?.['assertable_tools'] ?? []) as string[];
  for (const name of assertable) need('acp_context_assertion', name, 'the context-capability assertion', (t) => (t.assertable ? undefined : `tool "${name}" is assertable in the assertion contract but not in the registry`));
  if (member('acp_context_assertion/context-capability')) {
    for (const tool of tools) {
      if (tool.assertable && !assertable.includes(tool.tool_name)) problems.push({ kind: 'tool_ref_unknown', subject: 'acp_contracts', detail: `tool "${tool.tool_name}" is assertable in the registry but missing from the assertion contract` });
    }
  }
  for (const module of (member('agent_contracts/capability-module-map')?.['modules'] ?? []) as { module_key: string; tools: string[] }[]) {
    for (const name of module.tools) need('agent_contracts', name, `module "${module.module_key}"`);
  }
  return problems;
}

/** Every route's published or used member exists; every member and artifact is used by a route. */
export function coverageProblems(runtime: GovernanceRuntime): DriftItem[] {
  const problems: DriftItem[] = [];
  const used = new Set<string>();
  const needed = new Map<string, string[]>();
  const routes = [
    ...runtime.reads.map((read) => ({ path: read.path, refs: [...(read.publish ? [read.publish] : []), ...(read.uses ?? [])] })),
    ...runtime.writes.map((write) => ({ path: `POST ${write.path}`, refs: write.uses ?? [] })),
  ];
  for (const read of routes) {
    for (const ref of read.refs) {
      used.add(ref);
      const { artifact, member } = splitRef(ref);
      needed.set(artifact, [...(needed.get(artifact) ?? []), read.path]);
      const loaded = runtime.artifacts.get(artifact);
      if (loaded.state === 'valid' && member !== '' && loaded.document!.content[member] === undefined) {
        problems.push({ kind: 'member_missing', subject: artifact, detail: `${read.path} needs member "${member}", which "${loaded.file}" does not have` });
      }
    }
  }
  for (const id of new Set([...needed.keys(), ...runtime.artifacts.artifacts.keys()])) {
    const loaded = runtime.artifacts.get(id);
    const routes = new Set(needed.get(id) ?? []).size;
    if (loaded.state !== 'valid') {
      problems.push({ kind: `artifact_${loaded.state}`, subject: id, detail: `${loaded.file}: ${loaded.reasons[0] ?? ''} (${routes} ${routes === 1 ? 'route fails' : 'routes fail'} closed)` });
    } else if (routes === 0) {
      problems.push({ kind: 'artifact_unused', subject: id, detail: `${loaded.file} is published by no route` });
    }
  }
  for (const [id, document] of validDocuments(runtime)) {
    for (const member of Object.keys(document.content)) {
      if (!used.has(`${id}/${member}`) && !used.has(id)) problems.push({ kind: 'member_unpublished', subject: id, detail: `member "${member}" is neither published nor read by any route` });
    }
  }
  for (const schema of runtime.artifacts.schemas.values()) {
    if (!schema.ok) problems.push({ kind: 'schema_invalid', subject: schema.shortId, detail: schema.reasons.join('; ') });
  }
  return problems;
}
