// GET /repository/service/assistant/transcript-summary-references.json: which repository
// nodes are assistant transcripts and which are their summaries, as references only (ids,
// versions, SHA-256, API paths; never the content), with owner_issue_ref and
// blocked_program_ref. Unset owner references, search not ready or a summary that names a
// missing transcript make the answer fail closed (503) with each reason listed.
//
// A node is a transcript when its property assistant:kind is "transcript", a summary when it is
// "summary"; a summary names its transcript's node id in assistant:transcriptRef.

import { statement } from '../kernel/index.ts';
import type { Route } from '../kernel/index.ts';
import { alfrescoTime } from './alfresco-shapes.ts';
import { API_BASE, alfrescoHandler, principalOf } from './api-support.ts';
import type { ContentDeps } from './api-support.ts';
import type { NodeRow, VersionRow } from './node-entry.ts';
import { readableBy } from './permissions.ts';
import { readinessProblems } from './probes.ts';
import { currentVersion } from './repository.ts';

/** Transcripts and summaries, found through the index on assistant:kind (issue 24), never by reading every node. */
export const TAGGED_NODES_SQL = `SELECT * FROM nodes WHERE is_folder = 0 AND archived_at IS NULL AND json_extract(properties, '$."assistant:kind"') IN ('transcript', 'summary') ORDER BY created_at, id`;

export const TRANSCRIPT_REFERENCES_PATH = '/repository/service/assistant/transcript-summary-references.json';

function reference(node: NodeRow, version: VersionRow | undefined): Record<string, unknown> {
  return {
    node_id: node.id,
    name: node.name,
    node_ref: `${API_BASE}/nodes/${node.id}`,
    version_label: node.version_label,
    content_sha256: version?.sha256 ?? null,
    modified_at: alfrescoTime(node.modified_at),
  };
}

export function transcriptRoutes(deps: ContentDeps): Route[] {
  const handler = alfrescoHandler((context) => {
    const sqlite = deps.store.sqlite;
    // Like every listing, only what the caller may read (a home's transcripts are its user's).
    const readable = readableBy(sqlite, deps.policy, principalOf(context));
    const reasons: string[] = [];
    const { ownerIssueRef, blockedProgramRef } = deps.config;
    if (!ownerIssueRef) reasons.push('owner_issue_ref_unconfigured: set CONTENT_OWNER_ISSUE_REF');
    if (!blockedProgramRef) reasons.push('blocked_program_ref_unconfigured: set CONTENT_BLOCKED_PROGRAM_REF');
    reasons.push(...readinessProblems(deps).map((p) => `repository_not_ready: ${p}`));
    const tagged = statement(sqlite, TAGGED_NODES_SQL).all() as unknown as NodeRow[];
    const visible = tagged.filter(readable);
    const transcripts = new Map<string, { ref: Record<string, unknown>; summaries: Record<string, unknown>[] }>();
    for (const node of visible) {
      if (JSON.parse(node.properties)['assistant:kind'] === 'transcript') transcripts.set(node.id, { ref: reference(node, currentVersion(sqlite, node)), summaries: [] });
    }
    for (const node of visible) {
      const properties = JSON.parse(node.properties) as Record<string, string>;
      if (properties['assistant:kind'] !== 'summary') continue;
      const target = properties['assistant:transcriptRef'];
      const transcript = target === undefined ? undefined : transcripts.get(target);
      if (!transcript) {
        reasons.push(`summary_without_transcript: summary node "${node.id}" names transcript "${target ?? ''}", which is not a transcript node`);
        continue;
      }
      transcript.summaries.push(reference(node, currentVersion(sqlite, node)));
    }
    const failClosed = reasons.length > 0;
    return {
      status: failClosed ? 503 : 200,
      body: {
        contract: 'transcript_summary_references_v1',
        status: failClosed ? 'fail_closed' : 'ok',
        reference_only: true,
        owner_issue_ref: ownerIssueRef ?? null,
        blocked_program_ref: blockedProgramRef ?? null,
        fail_closed_reasons: reasons,
        transcripts: failClosed ? [] : [...transcripts.values()].map(({ ref, summaries }) => ({ ...ref, summaries })),
        generated_at: alfrescoTime(deps.store.now().toISOString()),
      },
    };
  });
  return [
    { method: 'GET', path: TRANSCRIPT_REFERENCES_PATH, auth: 'repository', summary: 'Reference-only transcript and summary owner truth, or fail-closed reasons; owner_issue_ref and blocked_program_ref', tags: ['assistant'], etag: false, handler },
  ];
}
