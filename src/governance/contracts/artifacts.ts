// Loads the versioned contract artifacts (contracts/governance/<id>_v1.json) and their JSON
// Schemas (contracts/governance/schemas/<id>_v1.schema.json) once at start, and validates each
// artifact against the schema it names. A bad artifact is kept as data with its reasons, so its
// routes can fail closed while the rest of the service publishes.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchema } from '../../kernel/index.ts';

export const SCHEMA_ID_PREFIX = 'urn:airlock:governance:schema:';
const ARTIFACT_FILE = /^([a-z][a-z0-9_]*)_v(\d+)\.json$/;
const SCHEMA_FILE = /^([a-z][a-z0-9_]*_v\d+)\.schema\.json$/;

/** Values of `projection_state` on every published member. */
export const PROJECTION_STATES = ['published', 'planned', 'disabled', 'enabled', 'not_deployed', 'awaiting_transport_owner'] as const;
export type ProjectionState = (typeof PROJECTION_STATES)[number];

/** What every member of an artifact's `content` carries. */
export interface ArtifactMember {
  summary: string;
  projection_state: ProjectionState;
  [field: string]: unknown;
}

export interface ArtifactDocument {
  artifact_id: string;
  version: string;
  owner: string;
  family: string;
  schema: string;
  summary: string;
  content: Record<string, ArtifactMember>;
}

export type ArtifactState = 'valid' | 'invalid' | 'missing';

export interface LoadedArtifact {
  id: string;
  /** File name under the contracts directory. */
  file: string;
  state: ArtifactState;
  reasons: string[];
  sha256?: string;
  version?: string;
  schemaId?: string;
  /** Present only when the artifact is valid. */
  document?: ArtifactDocument;
}

export interface LoadedSchema {
  /** The `$id`: urn:airlock:governance:schema:<short id>. */
  id: string;
  shortId: string;
  file: string;
  sha256: string;
  ok: boolean;
  reasons: string[];
  document: unknown;
}

export interface ArtifactSet {
  dir: string;
  artifacts: ReadonlyMap<string, LoadedArtifact>;
  schemas: ReadonlyMap<string, LoadedSchema>;
  /** The artifact with `id`, or a `missing` record naming the file that was expected. */
  get(id: string): LoadedArtifact;
}

/** Reads and validates every artifact and schema under `dir`; never throws for bad files. */
export function loadArtifacts(dir: string): ArtifactSet {
  const schemas = loadSchemas(join(dir, 'schemas'));
  const registry = new Map<string, unknown>();
  for (const schema of schemas.values()) if (schema.ok) registry.set(schema.id, schema.document);
  const artifacts = new Map<string, LoadedArtifact>();
  for (const file of listFiles(dir)) {
    const match = ARTIFACT_FILE.exec(file);
    if (!match) continue;
    const loaded = loadArtifact(dir, file, match[1]!, Number(match[2]), { schemas, registry });
    artifacts.set(loaded.id, loaded);
  }
  return {
    dir,
    artifacts,
    schemas,
    get(id) {
      return artifacts.get(id) ?? { id, file: `${id}_v1.json`, state: 'missing', reasons: [`artifact file "${id}_v1.json" is missing from "${dir}"`] };
    },
  };
}

function loadArtifact(
  dir: string,
  file: string,
  id: string,
  major: number,
  known: { schemas: ReadonlyMap<string, LoadedSchema>; registry: ReadonlyMap<string, unknown> },
): LoadedArtifact {
  const bytes = readFileSync(join(dir, file));
  const base = { id, file, sha256: sha256(bytes) };
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { ...base, state: 'invalid', reasons: [`"${file}" is not JSON: ${(error as Error).message}`] };
  }
  const record = typeof document === 'object' && document !== null && !Array.isArray(document) ? (document as Record<string, unknown>) : {};
  const schemaId = typeof record['schema'] === 'string' ? record['schema'] : undefined;
  const version = typeof record['version'] === 'string' ? record['version'] : undefined;
  const described = { ...base, ...(schemaId && { schemaId }), ...(version && { version }) };
  const reasons: string[] = [];
  if (record['artifact_id'] !== id) reasons.push(`artifact_id must be "${id}" (from the file name), got ${JSON.stringify(record['artifact_id'])}`);
  if (version !== undefined && !version.startsWith(`${major}.`)) reasons.push(`version "${version}" does not match the file's _v${major} name`);
  const schema = schemaId === undefined ? undefined : known.schemas.get(schemaId);
  // Each artifact has its own schema: one that borrowed another's could drop members its routes need.
  const ownSchema = `${SCHEMA_ID_PREFIX}${id}_v${major}`;
  if (schemaId === undefined) reasons.push('names no schema');
  else if (schemaId !== ownSchema) reasons.push(`schema must be "${ownSchema}" (the artifact's own), got "${schemaId}"`);
  else if (!schema) reasons.push(`schema "${schemaId}" does not resolve to any file under schemas/`);
  else if (!schema.ok) reasons.push(`schema "${schemaId}" is unusable: ${schema.reasons.join('; ')}`);
  else {
    try {
      const { valid, errors } = compileSchema(schema.document, { registry: known.registry, formats: 'assert' }).validate(document);
      if (!valid) reasons.push(...errors.map((e) => e.message));
    } catch (error) {
      reasons.push(`schema "${schemaId}" does not compile: ${(error as Error).message}`);
    }
  }
  if (reasons.length > 0) return { ...described, state: 'invalid', reasons };
  return { ...described, state: 'valid', reasons: [], document: document as ArtifactDocument };
}

function loadSchemas(dir: string): Map<string, LoadedSchema> {
  const schemas = new Map<string, LoadedSchema>();
  for (const file of listFiles(dir)) {
    const match = SCHEMA_FILE.exec(file);
    if (!match) continue;
    const shortId = match[1]!;
    const id = `${SCHEMA_ID_PREFIX}${shortId}`;
    const bytes = readFileSync(join(dir, file));
    const reasons: string[] = [];
    let document: unknown;
    try {
      document = JSON.parse(bytes.toString('utf8'));
      const declared = (document as { $id?: unknown } | null)?.$id;
      if (declared !== id) reasons.push(`$id must be "${id}" (from the file name), got ${JSON.stringify(declared)}`);
    } catch (error) {
      reasons.push(`"schemas/${file}" is not JSON: ${(error as Error).message}`);
    }
    schemas.set(id, { id, shortId, file: `schemas/${file}`, sha256: sha256(bytes), ok: reasons.length === 0, reasons, document });
  }
  // Compiled only once all are parsed: a schema may $ref another by its $id.
  const registry = new Map([...schemas.values()].filter((s) => s.ok).map((s) => [s.id, s.document]));
  for (const schema of schemas.values()) {
    if (!schema.ok) continue;
    try {
      compileSchema(schema.document, { registry, formats: 'assert' });
    } catch (error) {
      schema.ok = false;
      schema.reasons.push(`"${schema.file}" does not compile: ${(error as Error).message}`);
    }
  }
  return schemas;
}

function listFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
