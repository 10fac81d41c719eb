// Everything a governance handler reads, assembled once at start: configuration, the database,
// the contract artifacts, the manifests and the route table itself. Files are read at start
// only; a change on disk is published after a restart, never half-way through a process.

import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { IdempotencyStore, Logger, ReadPool, Route, Store } from '../kernel/index.ts';
import type { ArtifactSet } from './contracts/artifacts.ts';
import type { GovernanceConfig } from './config.ts';
import { readJsonFile } from './json-file.ts';
import type { JsonFile } from './json-file.ts';
import type { ReadDeclaration, WriteDeclaration } from './routing/route-declarations.ts';
import type { SigningKey } from './access/signing-key.ts';

/** governance-manifest.json as the kernel writes it (only the fields this service reads). */
export interface ManifestDocument {
  manifest_version: number;
  services: ManifestService[];
}

export interface ManifestService {
  service: string;
  seed?: string;
  identity?: { title?: string; description?: string; owner?: string };
  capabilities?: string[];
  dependencies?: { name: string; kind: string; owner: string; env?: string; required: boolean }[];
  consumed_surfaces?: { owner: string; method?: string; path?: string; description: string }[];
  exposed_surfaces?: { listener: string; method: string; path: string; auth: string }[];
  executables?: string[];
  contracts?: string[];
}

export interface StackContractDocument {
  contract_version: number;
  services: { service: string; verify?: string[]; executables: { name: string; role: string; args?: string[]; listeners: { name: string; port: number; env: string; host: string }[] }[] }[];
}

export interface GovernanceRuntime {
  config: GovernanceConfig;
  version: string;
  store: Store;
  /** Read-only connections in worker threads: pages of evidence are read there, off the event loop. */
  readPool: ReadPool;
  /** Idempotency-Keys of the guarded writes (and git-host delivery ids), in governance.sqlite. */
  idempotency: IdempotencyStore;
  /** The mail-admission signing key, or why the key store is missing (its surfaces fail closed). */
  signingKey: SigningKey;
  artifacts: ArtifactSet;
  manifest: JsonFile<ManifestDocument>;
  stackContract: JsonFile<StackContractDocument>;
  /** The committed OpenAPI export, compared with the generated one for drift. */
  committedOpenApi: JsonFile;
  /** Document path relative to the root (docs/governance.md) -> text, for those the contracts name and that exist. */
  docs: ReadonlyMap<string, string>;
  /** The full route table (both listeners), and the read and write routes it was stamped from. */
  routes: readonly Route[];
  reads: readonly ReadDeclaration[];
  writes: readonly WriteDeclaration[];
  log: Logger;
  now: () => number;
  /** Replies computed once per process (catalog reads whose inputs are fixed at start). */
  cache: Map<string, unknown>;
  /** A listener's base URL: the address this process bound, else the configured one (the other role's process). */
  listenerUrl: (name: string) => string | undefined;
  /** For upstream calls (the CRM adapter); globalThis.fetch unless a test injects one. */
  fetch: typeof fetch;
}

export function readManifest(path: string): JsonFile<ManifestDocument> {
  return readJsonFile<ManifestDocument>(path, (value) => {
    const services = (value as { services?: unknown } | null)?.services;
    return Array.isArray(services) ? undefined : 'has no "services" array';
  });
}

export function readStackContract(path: string): JsonFile<StackContractDocument> {
  return readJsonFile<StackContractDocument>(path, (value) => {
    const services = (value as { services?: unknown } | null)?.services;
    return Array.isArray(services) ? undefined : 'has no "services" array';
  });
}

/** Reads the named documents (paths relative to `root`) that exist. */
export function readDocs(root: string, paths: readonly string[]): Map<string, string> {
  const docs = new Map<string, string>();
  for (const name of paths) {
    const file = join(root, name);
    if (existsSync(file)) docs.set(name, readFileSync(file, 'utf8'));
  }
  return docs;
}
