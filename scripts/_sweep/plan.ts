// From an OpenAPI 3.x document to the list of GET requests a sweep sends: one per GET
// operation that passes the include/exclude filters, with every path parameter (and every
// required query parameter) filled by a deterministic sample. An operation whose values
// cannot all be found is kept in the plan as unresolved: the run records it and fails.

import { matchesGlob } from 'node:path';
import { sampleValue } from './sample-value.ts';

/** Readiness and production-readiness routes: a 503 there is a documented "not ready". */
const READINESS_PATH = /\/readiness$|\/production-readiness\//;

export interface PlannedOperation {
  method: 'GET';
  /** The path as the export writes it, e.g. /api/v1/planning/sessions/{session_id}. */
  template: string;
  operationId: string | undefined;
  /** The concrete path and query to request (without the server prefix); absent when unresolved. */
  path: string | undefined;
  /** The values the sweep supplied, by parameter name. */
  parameters: Record<string, string>;
  /** True when the sweep supplied any value: a 404 or 422 may then be the sample's fault. */
  sampleDependent: boolean;
  /** True when the operation requires a credential (a non-empty security requirement). */
  secured: boolean;
  /** True for a readiness route (`.../readiness`): its 503 says "not ready", which is not a server error. */
  readiness?: boolean;
  /** Why a value is missing; empty when resolved. */
  unresolved: string[];
}

export interface SweepPlan {
  /** The path of the first `servers` entry, prepended to every path ("" when none). */
  prefix: string;
  operations: PlannedOperation[];
  /** GET operations left out by --include/--exclude. */
  filteredOut: number;
}

export interface PlanOptions {
  /** Globs over the path template (`*` within a segment, `**` across); all when empty. */
  include?: readonly string[];
  exclude?: readonly string[];
}

type Json = Record<string, unknown>;

/** Plans the sweep of `document`, an OpenAPI 3.x document already checked to have `paths`. */
export function planSweep(document: Json, options: PlanOptions = {}): SweepPlan {
  const include = options.include ?? [];
  const exclude = options.exclude ?? [];
  const operations: PlannedOperation[] = [];
  let filteredOut = 0;
  for (const [template, rawItem] of Object.entries(asObject(document['paths']) ?? {})) {
    const item = resolveRef(document, rawItem);
    const get = asObject(item?.['get']);
    if (!item || !get) continue;
    const wanted = (include.length === 0 || include.some((g) => matchesGlob(template, g))) && !exclude.some((g) => matchesGlob(template, g));
    if (!wanted) {
      filteredOut += 1;
      continue;
    }
    operations.push(planOperation(document, template, { item, get }));
  }
  return { prefix: serverPrefix(document), operations, filteredOut };
}

function planOperation(document: Json, template: string, { item, get }: { item: Json; get: Json }): PlannedOperation {
  const unresolved: string[] = [];
  const parameters = mergeParameters(document, item, get, unresolved);
  const supplied: Record<string, string> = {};
  const fill = (parameter: Json): string | undefined => {
    const sample = sampleValue(parameter, (schema) => resolveRef(document, schema));
    if (!sample.ok) {
      unresolved.push(sample.reason);
      return undefined;
    }
    supplied[String(parameter['name'])] = sample.value;
    return sample.value;
  };
  const path = template.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const parameter = parameters.find((p) => p['in'] === 'path' && p['name'] === name);
    if (!parameter) {
      unresolved.push(`Path parameter "${name}" is not declared`);
      return whole;
    }
    const value = fill(parameter);
    return value === undefined ? whole : encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const parameter of parameters) {
    if (parameter['in'] !== 'query' || parameter['required'] !== true) continue;
    const value = fill(parameter);
    if (value !== undefined) query.append(String(parameter['name']), value);
  }
  const search = query.size > 0 ? `?${query}` : '';
  return {
    method: 'GET',
    template,
    operationId: typeof get['operationId'] === 'string' ? get['operationId'] : undefined,
    path: unresolved.length === 0 ? `${path}${search}` : undefined,
    parameters: supplied,
    sampleDependent: Object.keys(supplied).length > 0 || unresolved.length > 0,
    secured: isSecured(get['security'] ?? document['security']),
    readiness: READINESS_PATH.test(template),
    unresolved,
  };
}

/** Path-item parameters overridden by the operation's own (same name and location). */
function mergeParameters(document: Json, item: Json, operation: Json, unresolved: string[]): Json[] {
  const merged = new Map<string, Json>();
  for (const list of [item['parameters'], operation['parameters']]) {
    for (const raw of Array.isArray(list) ? list : []) {
      const parameter = resolveRef(document, raw);
      if (!parameter || typeof parameter['name'] !== 'string') {
        unresolved.push(`A parameter cannot be resolved: ${JSON.stringify(raw)}`);
        continue;
      }
      merged.set(`${String(parameter['in'])}:${parameter['name']}`, parameter);
    }
  }
  return [...merged.values()];
}

/** Follows local `#/...` references; undefined for an external or dangling one. */
export function resolveRef(document: Json, value: unknown, depth = 0): Json | undefined {
  const object = asObject(value);
  if (!object || typeof object['$ref'] !== 'string') return object;
  const ref = object['$ref'];
  if (!ref.startsWith('#/') || depth > 32) return undefined;
  let target: unknown = document;
  for (const token of ref.slice(2).split('/')) {
    target = asObject(target)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return resolveRef(document, target, depth + 1);
}

function isSecured(security: unknown): boolean {
  // An empty requirement object in the list makes the credential optional.
  return Array.isArray(security) && security.length > 0 && !security.some((r) => asObject(r) && Object.keys(r as Json).length === 0);
}

/** The path part of servers[0].url with its variables at their defaults, without a trailing slash. */
function serverPrefix(document: Json): string {
  const servers = document['servers'];
  const server = Array.isArray(servers) ? asObject(servers[0]) : undefined;
  if (!server || typeof server['url'] !== 'string') return '';
  const variables = asObject(server['variables']) ?? {};
  const url = server['url'].replace(/\{([^}]+)\}/g, (_, name: string) => String(asObject(variables[name])?.['default'] ?? ''));
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
  return path === '' || path.startsWith('/') ? path : `/${path}`;
}

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}
