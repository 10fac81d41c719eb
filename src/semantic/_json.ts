// Small shape guards for parsed JSON, shared by the semantic modules.

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
