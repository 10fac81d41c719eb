// A request body built from its declared JSON Schema alone: the values the schema names
// (const, example, default, enum), else the least value of its type that meets its bounds, with
// every required member. Deterministic; a body the handler may still refuse on its own rules.

type Json = Record<string, unknown>;

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z', date: '2026-01-01', email: 'sample@example.org', uri: 'https://example.org/sample',
  uuid: '01890a5d-ac96-774b-bcce-b302099a8057', ipv4: '127.0.0.1', hostname: 'example.org',
};

/** `value` with its document-local `$ref`s followed (at most 16 hops). */
export function resolveRef(document: Json, value: unknown): Json | undefined {
  let node = value as Json | undefined;
  for (let hops = 0; node && typeof node['$ref'] === 'string' && hops < 16; hops++) {
    node = (node['$ref'] as string).slice(2).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~')).reduce<unknown>((at, t) => (at as Json | undefined)?.[t], document) as Json | undefined;
  }
  return node;
}

export function sampleBody(document: Json, schema: unknown, depth = 0): unknown {
  if (depth > 12 || typeof schema !== 'object' || schema === null) return schema === false ? undefined : {};
  let node = schema as Json;
  if (typeof node['$ref'] === 'string' && node['$ref'].startsWith('#/')) {
    node = { ...resolveRef(document, { $ref: node['$ref'] }), ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== '$ref')) };
  }
  if ('const' in node) return node['const'];
  if (node['example'] !== undefined) return node['example'];
  if (Array.isArray(node['examples']) && node['examples'].length > 0) return node['examples'][0];
  if ('default' in node) return node['default'];
  if (Array.isArray(node['enum']) && node['enum'].length > 0) return node['enum'][0];
  if (Array.isArray(node['allOf'])) {
    const parts = node['allOf'].map((part) => sampleBody(document, part, depth + 1));
    if (parts.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))) return Object.assign({}, ...parts, objectSample(document, node, depth));
  }
  for (const key of ['oneOf', 'anyOf']) if (Array.isArray(node[key]) && node[key].length > 0) return sampleBody(document, node[key][0], depth + 1);
  const types = Array.isArray(node['type']) ? node['type'].filter((t) => t !== 'null') : [node['type']];
  const type = types[0] ?? (node['properties'] || node['required'] ? 'object' : node['items'] ? 'array' : undefined);
  switch (type) {
    case 'object': return objectSample(document, node, depth);
    case 'array': {
      const count = typeof node['minItems'] === 'number' ? node['minItems'] : 1;
      return Array.from({ length: count }, () => sampleBody(document, node['prefixItems'] ?? node['items'] ?? {}, depth + 1));
    }
    case 'integer': case 'number': {
      const low = typeof node['minimum'] === 'number' ? node['minimum'] : typeof node['exclusiveMinimum'] === 'number' ? node['exclusiveMinimum'] + 1 : 1;
      return typeof node['maximum'] === 'number' ? Math.min(low, node['maximum']) : low;
    }
    case 'boolean': return true;
    case 'null': return null;
    case 'string': {
      const formatted = FORMATS[String(node['format'])];
      if (formatted) return formatted;
      const min = typeof node['minLength'] === 'number' ? node['minLength'] : 1;
      const max = typeof node['maxLength'] === 'number' ? node['maxLength'] : Infinity;
      return 'sample'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(6, max)));
    }
    default: return 'sample';
  }
}

function objectSample(document: Json, node: Json, depth: number): Json {
  const properties = (node['properties'] ?? {}) as Record<string, unknown>;
  const out: Json = {};
  for (const name of (node['required'] ?? []) as string[]) out[name] = sampleBody(document, properties[name] ?? {}, depth + 1);
  return out;
}
