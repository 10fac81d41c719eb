// The workspace_binding.* slice (internal): preview (read-only, needs_human_review before any
// materialization), read (the canonical owner-backed route ref; a mismatching claimed ref is
// rejected) and materialize (exactly one review-task artifact per candidate however often it is
// retried). closeout_allowed is false in every answer (seed rule 1): a review task is not closeout.

import type { DatabaseSync } from 'node:sqlite';
import type { RequestContext } from '../../kernel/index.ts';
import { findByIdentity, insertDocument } from '../database/documents.ts';
import { ARGS_BODY, frappeHandler } from '../erp-route.ts';
import { requestArgs } from '../frappe/args.ts';
import type { DepsRef, ErpDeps, ErpRoute } from '../erp-route.ts';
import { frappeMessage, frappeThrow } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';
import { WORKSPACE_AUTH_LABEL, admitWorkspaceCaller } from './caller-auth.ts';
import { normalizeCandidate } from './candidate.ts';
import type { Candidate } from './candidate.ts';

const DOCTYPE = 'Workspace Review Task';

function readback(task: { name: string } | undefined) {
  return { materialization_state: task ? 'materialized' : 'needs_human_review', review_task: task?.name ?? null, closeout_allowed: false };
}

function summary(candidate: Candidate) {
  return { ...candidate.refs, title: candidate.title, summary: candidate.summary };
}

async function admitted(deps: ErpDeps, context: RequestContext): Promise<{ candidate: Candidate; caller: string }> {
  const { caller } = await admitWorkspaceCaller(deps, context);
  // As every other token route: a JSON object, a form body (a nested `candidate` as JSON text) or
  // the query string; `cmd`, which Frappe's clients add, names the method, not a field.
  const { cmd: _cmd, ...args } = requestArgs(context);
  return { candidate: normalizeCandidate(args), caller };
}

function existing(sqlite: DatabaseSync, candidate: Candidate) {
  return findByIdentity(sqlite, DOCTYPE, candidate.key);
}

export function workspaceBindingRoutes(deps: DepsRef): ErpRoute[] {
  // auth 'none' for the kernel: the lane admits two kinds of caller itself (caller-auth.ts), and
  // says so in the capability inventory.
  const lane = { family: 'workspace_binding', stability: 'internal', method: 'POST', auth: 'none', authLabel: WORKSPACE_AUTH_LABEL, request: ARGS_BODY } as const;
  return [
    {
      ...lane,
      path: methodPath('workspace_binding.preview_workspace_candidate_binding'),
      summary: 'Normalize a workspace candidate envelope; read-only, answers the non-terminal readback',
      handler: frappeHandler(async (context) => {
        const { candidate } = await admitted(deps(), context);
        const task = existing(deps().store.sqlite, candidate);
        return frappeMessage({ normalized_candidate: summary(candidate), owner_readback_route_ref: candidate.routeRef, readback: readback(task) });
      }),
    },
    {
      ...lane,
      path: methodPath('workspace_binding.read_workspace_candidate_binding'),
      summary: 'The canonical owner-backed route ref and candidate summary; a mismatching owner_readback_route_ref is rejected',
      handler: frappeHandler(async (context) => {
        const { candidate } = await admitted(deps(), context);
        if (candidate.claimedReadbackRef !== null && candidate.claimedReadbackRef !== candidate.routeRef) {
          frappeThrow(`Owner readback ref mismatch: this candidate's owner-backed route ref is ${candidate.routeRef}, not ${candidate.claimedReadbackRef}`);
        }
        const task = existing(deps().store.sqlite, candidate);
        return frappeMessage({ owner_readback_route_ref: candidate.routeRef, candidate_summary: summary(candidate), readback: readback(task) });
      }),
    },
    {
      ...lane,
      path: methodPath('workspace_binding.materialize_workspace_candidate_binding'),
      summary: 'Materialize one bounded review-task artifact for a candidate (retries resolve to the same artifact)',
      handler: frappeHandler(async (context) => {
        const { candidate, caller } = await admitted(deps(), context);
        const { store, now } = deps();
        const { task, created } = await store.write((sqlite, tx) => {
          const found = existing(sqlite, candidate);
          if (found) return { task: found, created: false };
          const doc = insertDocument(sqlite, tx, {
            doctype: DOCTYPE,
            identity: candidate.key,
            owner: caller,
            at: new Date(now()),
            fields: { ...summary(candidate), candidate_key: candidate.key, owner_readback_route_ref: candidate.routeRef, status: 'Open', materialization_state: 'materialized', closeout_allowed: 0 },
          });
          return { task: doc, created: true };
        });
        return frappeMessage({ owner_readback_ref: candidate.routeRef, review_task: task.name, created, readback: readback(task) });
      }),
    },
  ];
}
