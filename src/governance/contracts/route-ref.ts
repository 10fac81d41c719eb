// Resolving a path written in a contract or a doc (`/api/v1/agent/action-context/{module_key}`)
// against the route table (`/api/v1/agent/action-context/:module_key`).

import type { Route } from '../../kernel/index.ts';

/** True when `ref` names a route of `routes`: same segments, a parameter matching a parameter or a value. */
export function resolvesToRoute(ref: string, routes: readonly { path: string }[]): boolean {
  const wanted = segments(ref);
  return routes.some((route) => {
    const have = segments(route.path);
    // A family route (`/api/v1/events/outbox/*`) answers for one more segment under its prefix.
    if (have.at(-1) === '*') return wanted.length === have.length && have.slice(0, -1).every((segment, i) => segment === wanted[i] || isParam(segment));
    if (have.length !== wanted.length) return false;
    return have.every((segment, i) => segment === wanted[i] || isParam(segment));
  });
}

/** The distinct GET paths of a table (each read route is on two listeners). */
export function getPaths(routes: readonly Route[]): string[] {
  return [...new Set(routes.filter((r) => r.method === 'GET').map((r) => r.path))].sort();
}

function segments(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1).map((s) => (isParam(s) ? ':' : s));
}

function isParam(segment: string): boolean {
  return segment.startsWith(':') || (segment.startsWith('{') && segment.endsWith('}'));
}
