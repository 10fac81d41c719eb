// JSON Pointer (RFC 6901): parse, escape and build pointers, and walk one through a JSON value.

/** Escapes one reference token: `~` becomes `~0`, `/` becomes `~1`. */
export function escapePointerToken(token: string | number): string {
  const text = String(token);
  return text.includes('~') || text.includes('/') ? text.replaceAll('~', '~0').replaceAll('/', '~1') : text;
}

/** Builds a pointer from its tokens: `[]` is `""`, `["a", 0]` is `"/a/0"`. */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let out = '';
  for (const token of tokens) out += `/${escapePointerToken(token)}`;
  return out;
}

/** The tokens of `pointer`, or undefined when it is not a JSON Pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/');
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    if (/~(?![01])/.test(token)) return undefined;
    tokens[i] = token.replaceAll('~1', '/').replaceAll('~0', '~');
  }
  return tokens;
}

/** The member of an object or element of an array named by `token`, if present. */
export function childOf(value: unknown, token: string): { found: boolean; value: unknown } {
  if (Array.isArray(value)) {
    if (!/^(?:0|[1-9][0-9]*)$/.test(token)) return { found: false, value: undefined };
    const index = Number(token);
    return index < value.length ? { found: true, value: value[index] } : { found: false, value: undefined };
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, token)) {
    return { found: true, value: (value as Record<string, unknown>)[token] };
  }
  return { found: false, value: undefined };
}
