// GET /api/v1/semantic/projection-verification-harness: the admission contract of the semantic
// service's S0 harness, read from that service's own OpenAPI export (never by calling it).
// Without the owner's contract the route fails closed with awaiting_transport_owner.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json } from '../../kernel/index.ts';
import type { Reply } from '../../kernel/index.ts';
import { readJsonFile } from '../json-file.ts';
import { artifactMember, failClosed } from '../routing/read-route.ts';
import type { GovernanceRuntime } from '../runtime.ts';

const REF = 'semantic_harness/projection-verification-harness';

interface Source {
  owner: string;
  file: string;
  method: string;
  path: string;
}

export type HarnessRead =
  | { ok: true; source: Source; sha256: string; openapiVersion: string | undefined; operation: Record<string, unknown> }
  | { ok: false; reason: string; detail: string };

/** Reads the harness operation from the semantic contracts named by the artifact. */
export function readSemanticHarness(runtime: GovernanceRuntime): HarnessRead {
  const member = artifactMember(runtime, REF);
  if (!member) return { ok: false, reason: 'artifact_invalid', detail: 'the semantic_harness artifact is not valid' };
  const source = member['source'] as Source;
  const file = join(runtime.config.paths.semanticContractsDir, source.file);
  const read = readJsonFile<{ info?: { version?: string }; paths?: Record<string, Record<string, Record<string, unknown>>> }>(file);
  if (!read.ok) return { ok: false, reason: `semantic_contract_${read.reason}`, detail: `the semantic service's contract is unavailable: ${read.detail}` };
  const operation = read.document.paths?.[source.path]?.[source.method.toLowerCase()];
  if (!operation) return { ok: false, reason: 'harness_route_missing', detail: `"${source.file}" has no ${source.method} ${source.path}` };
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  return { ok: true, source, sha256, openapiVersion: read.document.info?.version, operation };
}

export function semanticHarnessReply(runtime: GovernanceRuntime): Reply {
  const harness = readSemanticHarness(runtime);
  if (!harness.ok) return failClosed(`Cannot publish the S0 harness admission contract: ${harness.detail}`, { reason: harness.reason, projection_state: 'awaiting_transport_owner' });
  const member = artifactMember(runtime, REF)!;
  const { operation } = harness;
  const requestBody = operation['requestBody'] as { content?: Record<string, { schema?: unknown }> } | undefined;
  return json({
    harness: 'projection-verification',
    stage: member['stage'],
    projection_state: 'published',
    admission: {
      method: harness.source.method,
      path: harness.source.path,
      operation_id: operation['operationId'] ?? null,
      summary: operation['summary'] ?? null,
      security: operation['security'] ?? [],
      parameters: operation['parameters'] ?? [],
      request_schema: requestBody?.content?.['application/json']?.schema ?? null,
      responses: Object.keys((operation['responses'] ?? {}) as object).sort(),
      listeners: operation['x-airlock-listeners'] ?? [],
    },
    source: { owner: harness.source.owner, file: harness.source.file, sha256: harness.sha256, openapi_version: harness.openapiVersion ?? null },
    boundaries: member['boundaries'],
    fail_closed: member['fail_closed'],
  });
}
