// The operations of an OpenAPI 3.x document as rows (method, path, security scheme names,
// response codes), and path spellings made comparable: OpenAPI `{id}`, route-table `:id` and
// documentation `<id>` placeholders all become `{}`.

import { isObject, listOf, objectOf } from './json-file.ts';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OpenApiOperation {
  method: string;
  path: string;
  operationId: string | undefined;
  /** Names of the security schemes of the first requirement; empty when the operation is open. */
  security: string[];
  responses: string[];
  operation: Record<string, unknown>;
}

/** Every operation of `doc`, in path order, methods upper-case. */
export function listOperations(doc: unknown): OpenApiOperation[] {
  const operations: OpenApiOperation[] = [];
  const paths = objectOf(objectOf(doc)['paths']);
  for (const path of Object.keys(paths).sort()) {
    const item = objectOf(paths[path]);
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const requirements = operation['security'] ?? objectOf(doc)['security'];
      const first = listOf(requirements)[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: typeof operation['operationId'] === 'string' ? operation['operationId'] : undefined,
        security: isObject(first) ? Object.keys(first) : [],
        responses: Object.keys(objectOf(operation['responses'])),
        operation,
      });
    }
  }
  return operations;
}

/** A path with every placeholder (`{id}`, `:id`, `<id>`) written `{}`, and no trailing slash. */
export function normalizePath(path: string): string {
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return bare.replace(/\{[^}/]*\}|:[A-Za-z_][A-Za-z0-9_]*|<[^>/]*>/g, '{}');
}

/** `METHOD path` with the path normalized: a key to compare surfaces across layers. */
export function surfaceKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${normalizePath(path)}`;
}
