// The release's SBOM (CycloneDX 1.5 JSON): the Node runtime embedded in bin/airlock (version and
// the pinned SHA-256), every source package whose code the bundles carry with each bundled file's
// hash, and no run-time dependencies: the bundles import nothing but node: built-ins.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SbomInput {
  root: string;
  version: string;
  revision: string;
  /** ISO time of the commit, so the document is the same on every run. */
  timestamp: string;
  node: { version: string; platform: string; sha256: string };
  /** Bundled source files, relative to root (esbuild metafile inputs). */
  inputs: readonly string[];
  esbuildVersion: string;
}

interface Component {
  type: string;
  'bom-ref': string;
  name: string;
  version?: string;
  purl?: string;
  hashes?: { alg: 'SHA-256'; content: string }[];
  description?: string;
  scope?: string;
  properties?: { name: string; value: string }[];
}

/** The package a bundled file belongs to: node_modules/<pkg> (scoped too), else the project. */
function packageOf(path: string): string | null {
  const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  return match ? (match[1] as string) : null;
}

export function buildSbom(input: SbomInput): Record<string, unknown> {
  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  const packages = new Map<string, string[]>();
  const ownFiles: Component[] = [];
  for (const path of input.inputs) {
    const owner = packageOf(path);
    if (owner) packages.set(owner, [...(packages.get(owner) ?? []), path]);
    else ownFiles.push({ type: 'file', 'bom-ref': `file:${path}`, name: path, hashes: [{ alg: 'SHA-256', content: sha(readFileSync(join(input.root, path))) }] });
  }
  const thirdParty: Component[] = [...packages.entries()].sort().map(([name, files]) => {
    const manifest = join(input.root, 'node_modules', name, 'package.json');
    const version = existsSync(manifest) ? String((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version) : 'unknown';
    return { type: 'library', 'bom-ref': `pkg:npm/${name}@${version}`, name, version, purl: `pkg:npm/${name}@${version}`, properties: [{ name: 'airlock:bundled-files', value: String(files.length) }] };
  });
  const node: Component = {
    type: 'platform',
    'bom-ref': `pkg:generic/node@${input.node.version}`,
    name: 'node',
    version: input.node.version,
    purl: `pkg:generic/node@${input.node.version}?platform=${input.node.platform}`,
    description: 'Node.js runtime embedded in bin/airlock (node --build-sea); its SHA-256 is pinned in toolchain/node-sha256.json',
    hashes: [{ alg: 'SHA-256', content: input.node.sha256 }],
  };
  const digest = sha(Buffer.from(JSON.stringify([input.version, input.revision, input.node, input.inputs])));
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    // Derived from the contents, so the same commit gives the same document.
    serialNumber: `urn:uuid:${digest.slice(0, 8)}-${digest.slice(8, 12)}-5${digest.slice(13, 16)}-8${digest.slice(17, 20)}-${digest.slice(20, 32)}`,
    version: 1,
    metadata: {
      timestamp: input.timestamp,
      tools: { components: [{ type: 'application', name: 'esbuild', version: input.esbuildVersion }] },
      component: { type: 'application', 'bom-ref': 'airlock', name: 'airlock', version: input.version, properties: [{ name: 'airlock:revision', value: input.revision }] },
      properties: [{ name: 'airlock:runtime-dependencies', value: 'none (the bundles import only node: built-ins)' }],
    },
    components: [node, ...thirdParty, ...ownFiles],
    dependencies: [{ ref: 'airlock', dependsOn: [node['bom-ref']] }],
  };
}
