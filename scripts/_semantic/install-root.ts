// The layers of an install root (a checkout after `npm run build`, or a prefix that
// install_memory.sh materialized): the stack contract, the governance manifest, the OpenAPI
// contracts the manifest lists, and the build's package metadata with the bundles it hashes.

import { join } from 'node:path';
import { readJsonFile, readOptionalJsonFile, listOf, objectOf } from './json-file.ts';
import type { JsonFile } from './json-file.ts';

export const STACK_CONTRACT_PATH = 'configs/stack-contract.json';
export const MANIFEST_PATH = 'governance-manifest.json';
export const METADATA_PATH = 'dist/package-metadata.json';

export interface InstallRoot {
  root: string;
  stack: JsonFile;
  manifest: JsonFile;
  /** Each OpenAPI contract a manifest service lists, by service. */
  openapi: Map<string, JsonFile>;
  /** Undefined when nothing was built or installed. */
  metadata: JsonFile | undefined;
}

/** Reads the layers; a missing stack contract, manifest or listed OpenAPI file is an environment error. */
export function readInstallRoot(root: string): InstallRoot {
  const stack = readJsonFile(root, STACK_CONTRACT_PATH);
  const manifest = readJsonFile(root, MANIFEST_PATH);
  const openapi = new Map<string, JsonFile>();
  for (const entry of manifestServices(manifest.doc)) {
    const path = listOf(entry['contracts']).find((c): c is string => typeof c === 'string' && c.endsWith('_openapi_v1.json'));
    if (path !== undefined) openapi.set(String(entry['service']), readJsonFile(root, path));
  }
  return { root, stack, manifest, openapi, metadata: readOptionalJsonFile(root, METADATA_PATH) };
}

export function manifestServices(doc: unknown): Record<string, unknown>[] {
  return listOf(objectOf(doc)['services']).map(objectOf);
}

export function stackServices(doc: unknown): Record<string, unknown>[] {
  return listOf(objectOf(doc)['services']).map(objectOf);
}

export interface StackExecutable {
  service: string;
  name: string;
  role: string;
  bundle: string;
  args: string[];
  listeners: { name: string; host: string; port: number; env: string }[];
}

/** Every executable of the stack contract, flattened. */
export function stackExecutables(doc: unknown): StackExecutable[] {
  return stackServices(doc).flatMap((service) => listOf(service['executables']).map(objectOf).map((e) => ({
    service: String(service['service']),
    name: String(e['name']),
    role: String(e['role']),
    bundle: String(e['bundle'] ?? `dist/bin/${String(e['name'])}.mjs`),
    args: listOf(e['args']).map(String),
    listeners: listOf(e['listeners']).map(objectOf).map((l) => ({ name: String(l['name']), host: String(l['host'] ?? '127.0.0.1'), port: Number(l['port']), env: String(l['env']) })),
  })));
}

/** The metadata's files as path -> sha256 (paths relative to dist/). */
export function metadataFiles(doc: unknown): Map<string, string> {
  return new Map(listOf(objectOf(doc)['files']).map(objectOf).map((f) => [String(f['path']), String(f['sha256'])]));
}

/** `<root>/dist/<path>`. */
export function distPath(root: string, path: string): string {
  return join(root, 'dist', path);
}
