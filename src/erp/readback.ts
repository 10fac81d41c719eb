// What a reader sees of a stored document. Every read path (/api/resource, frappe.client.*, the
// MCP tools, support context) reads documents through here, so a secret field is removed in one
// place: a Dispatch Job's callback token is a bearer credential for callbacks.agent_runtime_approval,
// and an Approval Packet's token digest is what that credential is checked against. Writers keep
// using database/documents.ts, which returns the whole document.

import type { DatabaseSync } from 'node:sqlite';
import { getDocument } from './database/documents.ts';
import type { ErpDocument } from './database/documents.ts';

/** Fields no read path shows, whatever the DocType. */
export const SECRET_FIELDS: readonly string[] = ['callback_token', 'callback_token_sha256'];

/** The document without its secret fields (a copy; the argument is not changed). */
export function redactDocument<T extends Record<string, unknown>>(doc: T): T {
  if (!SECRET_FIELDS.some((field) => Object.hasOwn(doc, field))) return doc;
  const shown: Record<string, unknown> = { ...doc };
  for (const field of SECRET_FIELDS) delete shown[field];
  return shown as T;
}

/** One document as readers see it. */
export function readDocument(sqlite: DatabaseSync, doctype: string, name: string): ErpDocument | undefined {
  const doc = getDocument(sqlite, doctype, name);
  return doc && redactDocument(doc);
}
