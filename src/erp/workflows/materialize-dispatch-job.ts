// workflows.materialize_dispatch_callback_job: the operator and test-harness lane that pre-creates
// Dispatch Job truth before signed callbacks are replayed. `dispatch_job` (the job's name) is
// required; the seed's optional fields follow. The same dispatch_key (the name when none is sent)
// returns the same job; a known name under another key is a DuplicateEntryError.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { findByIdentity, getDocument, insertDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { describeType, refuseUnknown, requireString } from '../frappe/args.ts';
import type { Args } from '../frappe/args.ts';
import { frappeThrow } from '../frappe/envelope.ts';
import { isObject } from '../fields.ts';

const TEXT_FIELDS = ['dispatch_key', 'document_type', 'document_name', 'company', 'job_type', 'external_system', 'provider', 'status', 'callback_url', 'webhook_url'] as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,139}$/;
// What workflows.dispatch_approval_packet owns: its naming series, its key namespace and its job
// type. A materialized job using one would take over a packet's dispatch (which then answers with
// a job the worker never delivers) or share its name with a job the service numbers later.
const RESERVED_NAME = /^DSP-JOB-/i;
const RESERVED_KEY = /^approval:/i;
const RESERVED_JOB_TYPE = 'approval_dispatch';
/**
 * What a job created before any callback can truthfully be: not yet sent (Queued) or handed to the
 * external system and awaiting its callback (Dispatched). Delivered, Dead, Superseded or Closed
 * would claim an outcome nothing recorded; callbacks never change the status either.
 */
export const MATERIALIZED_STATUSES = ['Queued', 'Dispatched'] as const;
/** The business documents a materialized job may be about (Approval Packets are dispatched by workflows.dispatch_approval_packet). */
export const MATERIALIZED_DOCUMENT_TYPES = ['Lead', 'Supplier Intake', 'Revenue Event', 'Purchase Invoice', 'Sales Invoice', 'Support Ticket', 'Workspace Review Task'] as const;

export interface DispatchJobInput {
  name: string;
  fields: Record<string, unknown>;
}

export function dispatchJobInput(args: Args): DispatchJobInput {
  refuseUnknown(args, ['dispatch_job', ...TEXT_FIELDS, 'callback_payload']);
  const name = requireString(args, 'dispatch_job');
  if (!NAME.test(name)) frappeThrow(`Argument "dispatch_job" must be 1 to 140 letters, digits or ._:- starting with a letter or digit, got ${JSON.stringify(name)}`);
  const fields: Record<string, unknown> = {};
  for (const field of TEXT_FIELDS) {
    const value = args[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string' || value.length > 500) frappeThrow(`Argument "${field}" must be a string of at most 500 characters, got ${describeType(value)}`);
    if ((field === 'callback_url' || field === 'webhook_url') && !/^https?:\/\//.test(value)) frappeThrow(`Argument "${field}" must be an http(s) URL`);
    fields[field] = value;
  }
  if (RESERVED_NAME.test(name)) frappeThrow(`Argument "dispatch_job" must not start with "DSP-JOB-": that naming series belongs to workflows.dispatch_approval_packet, got ${JSON.stringify(name)}`);
  if (typeof fields['dispatch_key'] === 'string' && RESERVED_KEY.test(fields['dispatch_key'])) frappeThrow(`Argument "dispatch_key" must not start with "approval:": those keys belong to workflows.dispatch_approval_packet, got ${JSON.stringify(fields['dispatch_key'])}`);
  if (fields['job_type'] === RESERVED_JOB_TYPE) frappeThrow(`Argument "job_type" must not be "${RESERVED_JOB_TYPE}": approval dispatch jobs are made by workflows.dispatch_approval_packet`);
  if (fields['status'] !== undefined && !(MATERIALIZED_STATUSES as readonly unknown[]).includes(fields['status'])) frappeThrow(`Argument "status" must be one of ${MATERIALIZED_STATUSES.join(', ')} (a job no callback has reached yet), got ${JSON.stringify(fields['status'])}`);
  if (fields['document_type'] !== undefined && !(MATERIALIZED_DOCUMENT_TYPES as readonly unknown[]).includes(fields['document_type'])) frappeThrow(`Argument "document_type" must be one of ${MATERIALIZED_DOCUMENT_TYPES.join(', ')}, got ${JSON.stringify(fields['document_type'])}${fields['document_type'] === 'Approval Packet' ? ': approval packets are dispatched by workflows.dispatch_approval_packet' : ''}`);
  if (fields['document_name'] !== undefined && fields['document_type'] === undefined) frappeThrow('Argument "document_name" needs "document_type": name the DocType of the document too');
  const payload = args['callback_payload'];
  if (payload !== undefined && payload !== null && !isObject(payload)) frappeThrow(`Argument "callback_payload" must be an object, got ${describeType(payload)}`);
  return { name, fields: { ...fields, dispatch_key: fields['dispatch_key'] ?? name, status: fields['status'] ?? 'Queued', callback_payload: payload ?? null } };
}

/** The created or reused job, and whether this call created it. */
export function materializeDispatchJob(sqlite: DatabaseSync, tx: Transaction, input: DispatchJobInput & { owner: string; at: Date }): { job: ErpDocument; created: boolean } {
  const key = String(input.fields['dispatch_key']);
  const reused = findByIdentity(sqlite, 'Dispatch Job', key);
  if (reused) return { job: reused, created: false };
  if (getDocument(sqlite, 'Dispatch Job', input.name)) frappeThrow(`Dispatch Job ${input.name} exists under another dispatch_key`, 'DuplicateEntryError');
  const job = insertDocument(sqlite, tx, { doctype: 'Dispatch Job', name: input.name, owner: input.owner, at: input.at, fields: { ...input.fields, callback_receipts: 0, closeout: 'owner_readback_required' } });
  return { job, created: true };
}

export function jobSummary(job: ErpDocument, created: boolean): Record<string, unknown> {
  return { dispatch_job: job.name, dispatch_key: job['dispatch_key'], status: job['status'], document_type: job['document_type'] ?? null, document_name: job['document_name'] ?? null, created };
}
