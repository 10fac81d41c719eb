// The pinned toolchain: the `node` devDependency's install script downloads node-<platform>-<arch>
// outside the lockfile's integrity hashes, so the binary's SHA-256 per platform is kept in
// toolchain/node-sha256.json and checked before tests, builds and standalone binaries use it.
//
//   node delivery/toolchain.ts            checks the running Node (exit 0 pinned, 1 not)
//   node delivery/toolchain.ts --print    prints the running Node's platform, version and hash

import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
export const PIN_FILE = join(ROOT, 'toolchain', 'node-sha256.json');

export interface ToolchainPin {
  version: string;
  /** `<platform>-<arch>` -> lowercase hex SHA-256 of the node binary. */
  binaries: Record<string, string>;
}

export interface PinnedNode {
  path: string;
  platform: string;
  version: string;
  sha256: string;
}

export function readPin(file = PIN_FILE): ToolchainPin {
  const pin = JSON.parse(readFileSync(file, 'utf8')) as ToolchainPin;
  if (typeof pin.version !== 'string' || typeof pin.binaries !== 'object' || pin.binaries === null) {
    throw new Error(`${file} must hold {"version": "...", "binaries": {"<platform>-<arch>": "<sha256>"}}`);
  }
  return pin;
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * Checks that `binary` (default: the running Node) is the pinned one for `platform`; returns
 * what it checked, or throws naming the file, its hash and the pinned hash.
 */
export function verifyNode(options: { binary?: string; platform?: string; version?: string; pinFile?: string } = {}): PinnedNode {
  const path = realpathSync(options.binary ?? process.execPath);
  const platform = options.platform ?? `${process.platform}-${process.arch}`;
  const version = options.version ?? process.versions.node;
  const pinFile = options.pinFile ?? PIN_FILE;
  const pin = readPin(pinFile);
  const expected = pin.binaries[platform];
  if (expected === undefined) {
    throw new Error(`No pinned Node binary for ${platform} in ${pinFile}: refusing ${path}. Verify the binary, then add its SHA-256 (node delivery/toolchain.ts --print)`);
  }
  const actual = sha256File(path);
  if (actual !== expected) {
    throw new Error(`Node binary ${path} has SHA-256 ${actual}, but ${pinFile} pins ${expected} for ${platform}: refusing an unpinned toolchain (run npm ci again; if the pin itself changed, review it)`);
  }
  if (version !== pin.version) {
    throw new Error(`Node binary ${path} reports version ${version}, but ${pinFile} pins ${pin.version}`);
  }
  return { path, platform, version, sha256: actual };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { print: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write('Usage: node delivery/toolchain.ts [--print]\n\nChecks that the running Node binary is the one pinned in toolchain/node-sha256.json (exit 0), or names the file and both hashes (exit 1).\n--print shows the running binary\'s platform, version and SHA-256.\n');
  } else if (values.print) {
    const path = realpathSync(process.execPath);
    process.stdout.write(`${JSON.stringify({ path, platform: `${process.platform}-${process.arch}`, version: process.versions.node, sha256: sha256File(path) })}\n`);
  } else {
    try {
      const node = verifyNode();
      process.stdout.write(`toolchain: node ${node.version} ${node.platform} matches its pin (${node.sha256.slice(0, 12)}...)\n`);
    } catch (error) {
      process.stderr.write(`toolchain: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}
