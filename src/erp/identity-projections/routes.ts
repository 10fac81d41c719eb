// The identity_projections.* slice (Frappe token or session auth): the workboard access fact
// (contract v3), its batch form, the lifecycle fact batch, the key-store bootstrap principal truth,
// and the operator's load of Employee and User truth. A batch answers one result per input, in
// order; a bad input is its own error result and never sinks the others.

import type { DatabaseSync } from 'node:sqlite';
import { ARGS_BODY, frappeHandler } from '../erp-route.ts';
import type { DepsRef, ErpRoute } from '../erp-route.ts';
import { FRAPPE_AUTH } from '../frappe/authenticator.ts';
import type { Principal } from '../frappe/authenticator.ts';
import { describeType, refuseUnknown, requestArgs } from '../frappe/args.ts';
import type { Args } from '../frappe/args.ts';
import { frappeMessage, frappeThrow } from '../frappe/envelope.ts';
import { methodPath } from '../identity.ts';
import { applyIdentityLoad, readIdentityLoad } from './identity-truth.ts';
import { keystorePrincipalTruth, lifecycleFact, readSubject, workboardAccessFact } from './projections.ts';
import type { Subject } from './projections.ts';

export const MAX_BATCH = 100;

type Projection = (sqlite: DatabaseSync, subject: Subject, now: Date, maxAgeSeconds: number) => Record<string, unknown>;

function single(args: Args): Subject {
  refuseUnknown(args, ['technical_subject', 'business_identity_id']);
  const subject = readSubject(args);
  if (typeof subject === 'string') frappeThrow(`Invalid subject: ${subject}`);
  return subject;
}

function batch(args: Args): unknown[] {
  refuseUnknown(args, ['subjects']);
  const subjects = args['subjects'];
  if (!Array.isArray(subjects)) frappeThrow(`Argument "subjects" must be a list of {"technical_subject"} or {"business_identity_id"}, got ${describeType(subjects)}`);
  if (subjects.length === 0) frappeThrow('Argument "subjects" is empty: send 1 to 100 subjects');
  if (subjects.length > MAX_BATCH) frappeThrow(`Argument "subjects" has ${subjects.length} entries: at most ${MAX_BATCH} per batch`);
  return subjects;
}

export function identityRoutes(deps: DepsRef): ErpRoute[] {
  const common = { family: 'identity_projections', stability: 'stable', method: 'POST', auth: FRAPPE_AUTH, request: ARGS_BODY } as const;
  const run = (projection: Projection, subject: Subject) => {
    const { store, now, config } = deps();
    return projection(store.sqlite, subject, new Date(now()), config.outbound.identityMaxAgeSeconds);
  };
  const one = (fn: string, summary: string, projection: Projection): ErpRoute => ({
    ...common,
    path: methodPath(`identity_projections.${fn}`),
    summary,
    responses: [{ status: 200, description: '{"message": fact}; a denial is a fact with its deny_reason, not an error' }, { status: 417, description: 'ValidationError: not exactly one of technical_subject or business_identity_id' }],
    handler: frappeHandler((context) => frappeMessage(run(projection, single(requestArgs(context))))),
  });
  const many = (fn: string, summary: string, projection: Projection): ErpRoute => ({
    ...common,
    path: methodPath(`identity_projections.${fn}`),
    summary,
    responses: [{ status: 200, description: `{"message": {"results": [{index, ok, fact | error}]}}, one per subject, at most ${MAX_BATCH}` }, { status: 417, description: 'ValidationError: subjects is not a list of 1 to 100' }],
    handler: frappeHandler((context) => {
      const results = batch(requestArgs(context)).map((value, index) => {
        const subject = readSubject(value);
        return typeof subject === 'string' ? { index, ok: false, error: subject } : { index, ok: true, fact: run(projection, subject) };
      });
      return frappeMessage({ results });
    }),
  });
  return [
    one('workboard_access_fact', 'Workboard access fact, contract v3 (input exactly one of technical_subject or business_identity_id); fails closed with deny_reason', workboardAccessFact),
    many('workboard_access_fact_batch', 'Workboard access facts for up to 100 subjects, one result per input', workboardAccessFact),
    many('lifecycle_fact_batch', 'Lifecycle facts (lifecycle, employment, relieving date, freshness) for up to 100 subjects, one result per input', lifecycleFact),
    one('keystore_bootstrap_principal_truth', 'Key-store bootstrap principal truth: allowed only for an active, fresh, enabled Keystore Custodian', keystorePrincipalTruth),
    {
      ...common,
      path: methodPath('identity_projections.load_identity_truth'),
      summary: 'Operator load of Employee and User identity truth (employees, users, optional observed_at); all rows or none, each change an evidence row',
      responses: [{ status: 200, description: '{"message": {"loaded": {Employee: {inserted, updated}, User: {...}}, observed_at}}' }, { status: 417, description: 'ValidationError naming the first bad row; nothing is loaded' }],
      handler: frappeHandler(async (context) => {
        const args = requestArgs(context);
        refuseUnknown(args, ['employees', 'users', 'observed_at']);
        const { store, now } = deps();
        const at = new Date(now());
        const load = readIdentityLoad(args, at);
        const owner = (context.principal as Principal).user;
        const loaded = await store.write((sqlite, tx) => applyIdentityLoad(sqlite, tx, load, owner, at));
        return frappeMessage({ loaded, observed_at: load.observedAt });
      }),
    },
  ];
}
