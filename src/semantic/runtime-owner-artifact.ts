// The runtime-owner artifact (SEMANTIC_RUNTIME_OWNER_ARTIFACT): a JSON file the runtime owner
// writes, from which topology metrics and retrieval runtime metrics are read. Anything missing,
// unreadable or not a finite non-negative number is reported as unavailable with its reason,
// never as zero; so is every metric of a file that does not name itself as this artifact
// (`artifact`, `version`), and a count that is not a whole number. Reasons never include the
// file's path or content.

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isObject } from './_json.ts';

/** The artifact's identity: what it is and which version of its layout. */
export const ARTIFACT_NAME = 'semantic_runtime_owner';
export const ARTIFACT_VERSION = 1;

/** Largest artifact read. */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;

export interface Unavailable {
  status: 'unavailable';
  reason: string;
}

export type MetricValue = { status: 'available'; value: number } | Unavailable;

export type ArtifactRead =
  | { ok: true; doc: Record<string, unknown>; sha256: string }
  | { ok: false; reason: string };

/** An explicit "unavailable" marker; evidence that is missing is never turned into zero. */
export function unavailable(reason: string): Unavailable {
  return { status: 'unavailable', reason };
}

/** Reads the artifact at `path`; a missing setting or file is a reason, not an exception. */
export function readRuntimeOwnerArtifact(path: string | undefined): ArtifactRead {
  if (path === undefined) return { ok: false, reason: 'SEMANTIC_RUNTIME_OWNER_ARTIFACT is not set' };
  let bytes: Buffer;
  try {
    if (statSync(path).size > MAX_ARTIFACT_BYTES) return { ok: false, reason: `runtime-owner artifact is larger than ${MAX_ARTIFACT_BYTES} bytes` };
    bytes = readFileSync(path);
  } catch (error) {
    return { ok: false, reason: `runtime-owner artifact cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    // The parser's message would quote the file's content; the reason stays generic on purpose.
    return { ok: false, reason: 'runtime-owner artifact is not JSON' };
  }
  if (!isObject(doc)) return { ok: false, reason: 'runtime-owner artifact is not a JSON object' };
  // Another file at this path (or another layout) must not be read as if it were this one.
  if (doc['artifact'] !== ARTIFACT_NAME) return { ok: false, reason: `runtime-owner artifact does not name itself "${ARTIFACT_NAME}" (member "artifact")` };
  if (doc['version'] !== ARTIFACT_VERSION) return { ok: false, reason: `runtime-owner artifact version is not ${ARTIFACT_VERSION} (member "version")` };
  return { ok: true, doc, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The allowlisted metrics of one section of the artifact (`topology_metrics`, `runtime_metrics`),
 * each available with its value or unavailable with a reason. Other members are ignored. Names in
 * `counts` must be whole numbers: 3.5 nodes is not a count.
 */
export function pickMetrics(read: ArtifactRead, section: string, names: readonly string[], options: { counts?: readonly string[] } = {}): Record<string, MetricValue> {
  const metrics: Record<string, MetricValue> = {};
  const values = read.ok && isObject(read.doc[section]) ? (read.doc[section] as Record<string, unknown>) : undefined;
  for (const name of names) {
    if (!read.ok) metrics[name] = unavailable(read.reason);
    else if (values === undefined) metrics[name] = unavailable(`runtime-owner artifact has no "${section}" object`);
    else if (!(name in values)) metrics[name] = unavailable(`metric "${name}" is absent from the runtime-owner artifact`);
    else {
      const value = values[name];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        metrics[name] = unavailable(`metric "${name}" is not a finite non-negative number in the runtime-owner artifact`);
      } else if (options.counts?.includes(name) === true && !Number.isSafeInteger(value)) {
        metrics[name] = unavailable(`metric "${name}" is a count, and ${value} is not a whole number in the runtime-owner artifact`);
      } else metrics[name] = { status: 'available', value };
    }
  }
  return metrics;
}

/** The artifact's identity for a readback: its hash and declared owner, or why it is unavailable. */
export function artifactSource(read: ArtifactRead): Record<string, unknown> {
  if (!read.ok) return { ...unavailable(read.reason) };
  const text = (key: string) => (typeof read.doc[key] === 'string' ? read.doc[key] : null);
  return {
    status: 'available',
    artifact_sha256: read.sha256,
    runtime_owner: text('runtime_owner'),
    environment: text('environment'),
    generated_at: text('generated_at'),
  };
}
