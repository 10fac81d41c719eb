// Matches a method and path against a route table: exact segments beat `:params`, which beat
// a trailing `/*` family. HEAD is answered by every GET route. Unknown path: 404; known path,
// other method: 405 with the methods that path allows.

import type { Method, Route } from './route.ts';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'not_found' }
  | { kind: 'method_not_allowed'; allow: string[] };

interface Compiled {
  route: Route;
  segments: string[];
  family: boolean;
  /** Lower sorts first: exact segments before params before families. */
  rank: number;
}

export interface Router {
  match(method: Method, path: string): RouteMatch;
}

/** Builds a router over `routes`; throws TypeError for a malformed pattern or a duplicate route. */
export function createRouter(routes: readonly Route[]): Router {
  const exact = new Map<string, Route[]>();
  const patterns: Compiled[] = [];
  const seen = new Set<string>();
  for (const route of routes) {
    if (!route.path.startsWith('/')) throw new TypeError(`Route path "${route.path}" must start with "/"`);
    const id = `${route.method} ${route.path}`;
    if (seen.has(id)) throw new TypeError(`Route "${id}" is declared twice`);
    seen.add(id);
    const family = route.path.endsWith('/*');
    const segments = splitPath(family ? route.path.slice(0, -2) : route.path);
    if (segments.some((s) => s.includes('*'))) throw new TypeError(`Route path "${route.path}": "*" may only end a path`);
    if (!family && !segments.some((s) => s.startsWith(':'))) {
      const key = normalize(route.path);
      exact.set(key, [...(exact.get(key) ?? []), route]);
      continue;
    }
    const rank = (family ? 1000 : 0) + segments.filter((s) => s.startsWith(':')).length;
    patterns.push({ route, segments, family, rank });
  }
  patterns.sort((a, b) => a.rank - b.rank || b.segments.length - a.segments.length);

  return {
    match(method, path) {
      const key = normalize(path);
      const wanted = method === 'HEAD' ? 'GET' : method;
      const candidates: { route: Route; params: Record<string, string> }[] = [];
      for (const route of exact.get(key) ?? []) candidates.push({ route, params: {} });
      if (candidates.length === 0 || !candidates.some((c) => c.route.method === wanted)) {
        const parts = splitPath(key);
        for (const compiled of patterns) {
          const params = matchSegments(compiled, parts);
          if (params) candidates.push({ route: compiled.route, params });
        }
      }
      if (candidates.length === 0) return { kind: 'not_found' };
      const hit = candidates.find((c) => c.route.method === wanted);
      if (hit) return { kind: 'found', route: hit.route, params: hit.params };
      const allow = new Set<string>();
      for (const c of candidates) {
        allow.add(c.route.method);
        if (c.route.method === 'GET') allow.add('HEAD');
      }
      return { kind: 'method_not_allowed', allow: [...allow].sort() };
    },
  };
}

function matchSegments(compiled: Compiled, parts: string[]): Record<string, string> | undefined {
  const { segments, family } = compiled;
  if (family ? parts.length <= segments.length : parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.startsWith(':')) {
      const value = safeDecode(part);
      if (value === undefined || value === '') return undefined;
      params[segment.slice(1)] = value;
    } else if (segment !== part) return undefined;
  }
  if (family) params['*'] = parts.slice(segments.length).join('/');
  return params;
}

/** Segments after the leading slash; empty segments stay, so "//" never collapses into "/". */
function splitPath(path: string): string[] {
  const normalized = normalize(path);
  return normalized === '/' ? [] : normalized.slice(1).split('/');
}

/** One trailing slash is not a different resource, except for the root. */
function normalize(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function safeDecode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    // A malformed percent-escape cannot name any resource: it simply does not match.
    return undefined;
  }
}
