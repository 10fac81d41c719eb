// Validates live answers against the schemas a service's own OpenAPI export declares for them:
// the export is loaded whole as one 2020-12 resource, and each answer is checked against the
// schema of its operation and status, found by JSON Pointer in that document.

import { compileSchema } from '../../src/kernel/index.ts';
import type { SchemaValidator } from '../../src/kernel/index.ts';

const EXPORT_URI = 'urn:airlock:test:export';

export interface ExportOperation {
  parameters?: { name: string; in: string; required?: boolean; example?: string }[];
  security?: Record<string, unknown>[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export type ExportDocument = { paths: Record<string, Record<string, ExportOperation>> };

function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A validator for the schema the export declares for `path`, `method`, `status` and `contentType`; undefined when none. */
export function declaredResponse(document: ExportDocument, at: { path: string; method: string; status: number; contentType: string }): SchemaValidator | undefined {
  const content = document.paths[at.path]?.[at.method]?.responses[String(at.status)]?.content;
  if (!content || !(at.contentType in content)) return undefined;
  const pointer = ['paths', at.path, at.method, 'responses', String(at.status), 'content', at.contentType, 'schema'].map(pointerToken).join('/');
  return compileSchema({ $ref: `${EXPORT_URI}#/${pointer}` }, { registry: new Map([[EXPORT_URI, document]]) });
}

/** A concrete request path for an exported GET: path samples substituted, required query samples added. */
export function samplePath(path: string, operation: ExportOperation, fresh: Record<string, string> = {}): string {
  let concrete = path;
  const query = new URLSearchParams();
  for (const parameter of operation.parameters ?? []) {
    const value = fresh[parameter.name] ?? parameter.example ?? '';
    if (parameter.in === 'path') concrete = concrete.replace(`{${parameter.name}}`, encodeURIComponent(value));
    else if (parameter.in === 'query' && parameter.required) query.set(parameter.name, value);
  }
  return query.size > 0 ? `${concrete}?${query}` : concrete;
}

/** True when a schema names its fields: properties, a $ref, a combinator, or a non-object type. */
export function namesFields(schema: unknown, document: ExportDocument): boolean {
  if (typeof schema !== 'object' || schema === null) return schema !== true;
  const s = schema as Record<string, unknown>;
  if (typeof s['$ref'] === 'string') {
    const target = (s['$ref'] as string).slice(2).split('/').reduce<unknown>((node, token) => (node as Record<string, unknown> | undefined)?.[token.replaceAll('~1', '/').replaceAll('~0', '~')], document);
    return namesFields(target, document);
  }
  if (s['properties'] !== undefined || s['items'] !== undefined || s['oneOf'] !== undefined || s['anyOf'] !== undefined || s['allOf'] !== undefined || s['const'] !== undefined || s['enum'] !== undefined) return true;
  return s['type'] !== undefined && s['type'] !== 'object';
}
