// npm test runs with NODE_COMPILE_CACHE (package.json): Node keeps the TypeScript it stripped and
// the code it compiled on disk, so a process that loads the same sources again starts with half the
// CPU. Helpers that spawn node with an environment of their own pass it on with this.

/** `{ NODE_COMPILE_CACHE }` when this run has one, else nothing. */
export function compileCache(): Record<string, string> {
  const dir = process.env['NODE_COMPILE_CACHE'];
  return dir ? { NODE_COMPILE_CACHE: dir } : {};
}
