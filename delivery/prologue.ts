// What every bundle does before any of its own code: refuse a Node older than 24 in one line
// (exit 2) and keep stderr JSON lines only. A static `import 'node:sqlite'` is linked before any
// statement runs, so no check could precede it; builtinsAsGlobals() therefore turns each node:
// import into a process.getBuiltinModule() call evaluated in place, after this prologue.

import type { Plugin } from 'esbuild';

export const MIN_NODE_MAJOR = 24;

/**
 * The prologue's source; the message names the file Node runs. Node warnings become JSON lines
 * (as the kernel logger writes them); ExperimentalWarning is dropped: it is a property of the
 * pinned toolchain (node:sqlite on Node 24), not of the run.
 */
export function prologueSource(): string {
  return [
    '{',
    `const major = Number(process.versions.node.split('.')[0]);`,
    `if (major < ${MIN_NODE_MAJOR}) {`,
    `  const name = String(process.argv[1] ?? 'airlock').split('/').pop().replace(/\\.mjs$/, '');`,
    `  process.stderr.write(name + ${JSON.stringify(`: needs Node.js ${MIN_NODE_MAJOR} or newer, this is Node.js `)} + process.versions.node + ${JSON.stringify(' (use the standalone airlock binary, which carries its own)\n')});`,
    '  process.exit(2);',
    '}',
    `process.removeAllListeners('warning');`,
    `process.on('warning', (w) => {`,
    `  if (w.name === 'ExperimentalWarning') return;`,
    `  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'warn', logger: 'node', msg: w.message, warning: w.name, code: w.code }) + '\\n');`,
    '});',
    '}',
  ].join('\n');
}

/** esbuild plugin: `import x from 'node:y'` becomes `process.getBuiltinModule('node:y')`, evaluated where the import was. */
export function builtinsAsGlobals(): Plugin {
  return {
    name: 'airlock-builtins',
    setup(build) {
      build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'airlock-builtin' }));
      build.onLoad({ filter: /.*/, namespace: 'airlock-builtin' }, (args) => ({
        contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}
