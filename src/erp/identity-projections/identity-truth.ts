// Identity truth: the ERP's own Employee and User documents, loaded by an operator through
// identity_projections.load_identity_truth (Frappe auth). A load is one transaction: every row is
// checked first, and one bad row refuses the whole load naming it, so a half-applied import never
// feeds a projection. Each insert or update is a document_events evidence row; each document keeps
// truth_observed_at, which the projections compare with ERP_IDENTITY_MAX_AGE_SECONDS.

import type { DatabaseSync } from 'node:sqlite';
import type { Transaction } from '../../kernel/index.ts';
import { statement } from '../../kernel/index.ts';
import { getDocument, insertDocument, updateDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { asObject, optionalString, refuseExtra, requiredString } from '../fields.ts';
import type { Json } from '../fields.ts';
import { describeType } from '../frappe/args.ts';
import { frappeThrow } from '../frappe/envelope.ts';

export const EMPLOYEE_STATUSES = ['Active', 'Inactive', 'Suspended', 'Left'] as const;
export const MAX_LOAD_ROWS = 1000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function stringList(parent: Json, key: string, path: string): string[] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 200 || !value.every((v) => typeof v === 'string' && v !== '' && v.length <= 140)) frappeThrow(`Field "${path}${key}" must be a list of at most 200 non-empty strings`);
  return value as string[];
}

function employeeRow(value: unknown, index: number): Record<string, unknown> {
  const path = `employees[${index}].`;
  const row = asObject(value, `employees[${index}]`);
  refuseExtra(row, ['name', 'employee_name', 'status', 'user_id', 'company', 'department', 'designation', 'relieving_date', 'project_manager_projects', 'special_posture'], path);
  const status = requiredString(row, 'status', path, 16);
  if (!(EMPLOYEE_STATUSES as readonly string[]).includes(status)) frappeThrow(`Field "${path}status" must be one of ${EMPLOYEE_STATUSES.join(', ')}, got ${JSON.stringify(status)}`);
  const relieving = optionalString(row, 'relieving_date', path, 10);
  if (relieving !== undefined && !DATE.test(relieving)) frappeThrow(`Field "${path}relieving_date" must be YYYY-MM-DD`);
  return {
    name: requiredString(row, 'name', path, 140),
    employee_name: requiredString(row, 'employee_name', path, 140),
    status,
    user_id: optionalString(row, 'user_id', path, 140) ?? null,
    company: optionalString(row, 'company', path, 140) ?? null,
    department: optionalString(row, 'department', path, 140) ?? null,
    designation: optionalString(row, 'designation', path, 140) ?? null,
    relieving_date: relieving ?? null,
    project_manager_projects: stringList(row, 'project_manager_projects', path),
    special_posture: optionalString(row, 'special_posture', path, 64) ?? null,
  };
}

function userRow(value: unknown, index: number): Record<string, unknown> {
  const path = `users[${index}].`;
  const row = asObject(value, `users[${index}]`);
  refuseExtra(row, ['name', 'full_name', 'enabled', 'user_type', 'roles'], path);
  const enabled = row['enabled'];
  if (enabled !== 0 && enabled !== 1 && enabled !== true && enabled !== false) frappeThrow(`Field "${path}enabled" must be 1 or 0, got ${describeType(enabled)}`);
  const userType = requiredString(row, 'user_type', path, 32);
  if (userType !== 'System User' && userType !== 'Website User') frappeThrow(`Field "${path}user_type" must be System User or Website User`);
  return { name: requiredString(row, 'name', path, 140), full_name: optionalString(row, 'full_name', path, 140) ?? null, enabled: enabled === 1 || enabled === true ? 1 : 0, user_type: userType, roles: stringList(row, 'roles', path) };
}

export interface IdentityLoad {
  employees: Record<string, unknown>[];
  users: Record<string, unknown>[];
  observedAt: string;
}

/** Checks every row of a load; the first problem refuses it all. */
export function readIdentityLoad(args: Json, now: Date): IdentityLoad {
  const list = (key: string): unknown[] => {
    const value = args[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) frappeThrow(`Argument "${key}" must be a list, got ${describeType(value)}`);
    if (value.length > MAX_LOAD_ROWS) frappeThrow(`Argument "${key}" has ${value.length} rows: at most ${MAX_LOAD_ROWS} per load`);
    return value;
  };
  const employees = list('employees').map(employeeRow);
  const users = list('users').map(userRow);
  if (employees.length + users.length === 0) frappeThrow('Nothing to load: send "employees" and/or "users"');
  for (const [rows, what] of [[employees, 'employee'], [users, 'user']] as const) {
    const names = rows.map((r) => String(r['name']));
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) frappeThrow(`The ${what} "${twice}" appears twice in one load`);
  }
  const observed = optionalString(args, 'observed_at', '', 40);
  if (observed !== undefined && (Number.isNaN(Date.parse(observed)) || !/T/.test(observed))) frappeThrow('Argument "observed_at" must be an RFC 3339 date-time');
  if (observed !== undefined && Date.parse(observed) > now.getTime() + 60_000) frappeThrow('Argument "observed_at" is in the future');
  return { employees, users, observedAt: observed ?? now.toISOString() };
}

/** Upserts the load's documents in the caller's transaction. */
export function applyIdentityLoad(sqlite: DatabaseSync, tx: Transaction, load: IdentityLoad, owner: string, at: Date): Record<string, { inserted: number; updated: number }> {
  const counts = { Employee: { inserted: 0, updated: 0 }, User: { inserted: 0, updated: 0 } };
  for (const [doctype, rows] of [['Employee', load.employees], ['User', load.users]] as const) {
    for (const row of rows) {
      const name = String(row['name']);
      const fields = { ...row, truth_observed_at: load.observedAt };
      const current = getDocument(sqlite, doctype, name);
      if (current) {
        updateDocument(sqlite, tx, current, fields, at);
        counts[doctype].updated++;
      } else {
        insertDocument(sqlite, tx, { doctype, name, identity: name, owner, at, fields });
        counts[doctype].inserted++;
      }
    }
  }
  return counts;
}

/**
 * Employees whose user_id links the given login. Logins compare without letter case, as Frappe's
 * database compares User names: "Ada@…" and "ada@…" are one account there.
 */
export function employeesOfUser(sqlite: DatabaseSync, user: string): ErpDocument[] {
  return statement(sqlite, "SELECT data FROM erp_documents WHERE doctype = 'Employee' AND lower(json_extract(data, '$.user_id')) = lower(?)")
    .all(user)
    .map((row) => JSON.parse(String(row['data'])) as ErpDocument);
}

/** The Users that share this login, letter case aside (more than one: the truth is ambiguous). */
export function usersOfLogin(sqlite: DatabaseSync, login: string): ErpDocument[] {
  return statement(sqlite, "SELECT data FROM erp_documents INDEXED BY erp_documents_user_nocase WHERE doctype = 'User' AND lower(name) = lower(?)")
    .all(login)
    .map((row) => JSON.parse(String(row['data'])) as ErpDocument);
}
