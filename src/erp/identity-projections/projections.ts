// The fail-closed identity projections over Employee and User truth. A subject is exactly one of
// technical_subject (a User name, the login) or business_identity_id (an Employee name). Unknown,
// ambiguous (one login linked by two Employees), inactive, relieved, disabled or stale truth
// denies with its reason; nothing grants by default. The workboard access fact is contract
// version 3 (contracts/erp/workboard_access_fact_v3.json).

import type { DatabaseSync } from 'node:sqlite';
import { getDocument } from '../database/documents.ts';
import type { ErpDocument } from '../database/documents.ts';
import { isObject } from '../fields.ts';
import { describeType } from '../frappe/args.ts';
import { employeesOfUser, usersOfLogin } from './identity-truth.ts';

export const WORKBOARD_ROLE = 'Workboard User';
export const PROJECT_MANAGER_ROLE = 'Projects Manager';
export const KEYSTORE_ROLE = 'Keystore Custodian';

export interface Subject {
  technical_subject: string | null;
  business_identity_id: string | null;
}

export type DenyReason = 'unknown_identity' | 'ambiguous_identity' | 'inactive_identity' | 'relieved_identity' | 'stale_identity_truth' | 'no_user_account' | 'user_disabled' | 'no_employee_record' | 'missing_role';

/** Reads one subject; a string naming what is wrong, or the subject. */
export function readSubject(value: unknown): Subject | string {
  if (!isObject(value)) return `a subject must be an object {"technical_subject"} or {"business_identity_id"}, got ${describeType(value)}`;
  const extra = Object.keys(value).filter((k) => k !== 'technical_subject' && k !== 'business_identity_id');
  if (extra.length > 0) return `unknown field ${extra.map((k) => `"${k}"`).join(', ')}: a subject has technical_subject or business_identity_id`;
  const present = (['technical_subject', 'business_identity_id'] as const).filter((k) => value[k] !== undefined && value[k] !== null);
  if (present.length !== 1) return `send exactly one of technical_subject or business_identity_id (got ${present.length === 0 ? 'neither' : 'both'})`;
  const key = present[0]!;
  const id = value[key];
  if (typeof id !== 'string' || id === '' || id.length > 140) return `${key} must be a non-empty string of at most 140 characters`;
  return { technical_subject: key === 'technical_subject' ? id : null, business_identity_id: key === 'business_identity_id' ? id : null };
}

interface Truth {
  subject: Subject;
  employee: ErpDocument | undefined;
  user: ErpDocument | undefined;
  /** The first reason to deny, or null. */
  deny: DenyReason | null;
  lifecycle: 'active' | 'inactive' | 'suspended' | 'left' | 'unknown';
  employment: 'employed' | 'relieved' | 'not_employed' | 'unknown';
  observedAt: string | null;
  roles: string[];
}

const LIFECYCLE: Record<string, Truth['lifecycle']> = { Active: 'active', Inactive: 'inactive', Suspended: 'suspended', Left: 'left' };

/**
 * The User of a login among those whose names equal it without letter case (usersOfLogin): the one
 * there is, or, when several are (ambiguous_identity), the one spelled exactly so.
 */
function oneUser(users: readonly ErpDocument[], login: string): ErpDocument | undefined {
  return users.length === 1 ? users[0] : users.find((u) => u.name === login);
}

function resolve(sqlite: DatabaseSync, subject: Subject, now: Date, maxAgeSeconds: number): Truth {
  let employee: ErpDocument | undefined;
  let user: ErpDocument | undefined;
  let deny: DenyReason | null = null;
  if (subject.technical_subject !== null) {
    const users = usersOfLogin(sqlite, subject.technical_subject);
    user = oneUser(users, subject.technical_subject);
    const linked = employeesOfUser(sqlite, subject.technical_subject);
    if (linked.length > 1 || users.length > 1) deny = 'ambiguous_identity';
    employee = linked.length === 1 ? linked[0] : undefined;
    if (!user && !employee) deny = 'unknown_identity';
  } else {
    employee = getDocument(sqlite, 'Employee', subject.business_identity_id!);
    const login = employee?.['user_id'];
    if (typeof login === 'string') {
      const users = usersOfLogin(sqlite, login);
      user = oneUser(users, login);
      if (employeesOfUser(sqlite, login).length > 1 || users.length > 1) deny = 'ambiguous_identity';
    }
    if (!employee) deny = 'unknown_identity';
  }
  const lifecycle = employee ? (LIFECYCLE[String(employee['status'])] ?? 'unknown') : 'unknown';
  const relieving = employee?.['relieving_date'];
  const relieved = lifecycle === 'left' || (typeof relieving === 'string' && relieving <= now.toISOString().slice(0, 10));
  const employment = !employee ? (user ? 'not_employed' : 'unknown') : relieved ? 'relieved' : 'employed';
  const stamps = [employee?.['truth_observed_at'], user?.['truth_observed_at']].filter((s): s is string => typeof s === 'string');
  const observedAt = stamps.length === 0 ? null : stamps.sort()[0]!;
  const stale = observedAt === null || now.getTime() - Date.parse(observedAt) > maxAgeSeconds * 1000;
  const roles = Array.isArray(user?.['roles']) ? (user['roles'] as string[]) : [];
  if (deny === null) {
    if (!employee) deny = 'no_employee_record';
    else if (lifecycle !== 'active') deny = 'inactive_identity';
    else if (employment === 'relieved') deny = 'relieved_identity';
    else if (!user) deny = 'no_user_account';
    else if (user['enabled'] !== 1) deny = 'user_disabled';
    else if (stale) deny = 'stale_identity_truth';
  }
  return { subject, employee, user, deny, lifecycle, employment, observedAt, roles };
}

export function workboardAccessFact(sqlite: DatabaseSync, subject: Subject, now: Date, maxAgeSeconds: number): Record<string, unknown> {
  const truth = resolve(sqlite, subject, now, maxAgeSeconds);
  const deny = truth.deny ?? (truth.roles.includes(WORKBOARD_ROLE) ? null : 'missing_role');
  const allowed = deny === null;
  const manager = allowed && truth.roles.includes(PROJECT_MANAGER_ROLE);
  const posture = typeof truth.employee?.['special_posture'] === 'string' ? String(truth.employee['special_posture']) : null;
  return {
    contract: 'workboard_access_fact',
    contract_version: 3,
    subject: truth.subject,
    business_identity_id: truth.employee?.name ?? null,
    technical_subject: truth.user?.name ?? (typeof truth.employee?.['user_id'] === 'string' ? String(truth.employee['user_id']) : null),
    claim_principal_type: truth.employee ? 'employee' : truth.user ? 'user_without_employee' : 'unknown',
    lifecycle_state: truth.lifecycle,
    employment_state: truth.employment,
    workboard_login_allowed: allowed,
    workboard_eligibility: allowed ? 'eligible' : 'ineligible',
    deny_reason: deny,
    project_manager_eligible: manager,
    project_manager_projects: manager ? ((truth.employee!['project_manager_projects'] as string[] | undefined) ?? []) : [],
    // A special posture is reported whatever the decision: it restricts, it never grants.
    special_posture_active: posture !== null,
    special_posture_kind: posture,
    truth_observed_at: truth.observedAt,
    evaluated_at: now.toISOString(),
  };
}

export function lifecycleFact(sqlite: DatabaseSync, subject: Subject, now: Date, maxAgeSeconds: number): Record<string, unknown> {
  const truth = resolve(sqlite, subject, now, maxAgeSeconds);
  return {
    subject: truth.subject,
    business_identity_id: truth.employee?.name ?? null,
    lifecycle_state: truth.lifecycle,
    employment_state: truth.employment,
    relieving_date: (truth.employee?.['relieving_date'] as string | null | undefined) ?? null,
    user_enabled: truth.user ? truth.user['enabled'] === 1 : null,
    truth_fresh: truth.deny !== 'stale_identity_truth' && truth.observedAt !== null && now.getTime() - Date.parse(truth.observedAt) <= maxAgeSeconds * 1000,
    deny_reason: truth.deny,
    truth_observed_at: truth.observedAt,
    evaluated_at: now.toISOString(),
  };
}

export function keystorePrincipalTruth(sqlite: DatabaseSync, subject: Subject, now: Date, maxAgeSeconds: number): Record<string, unknown> {
  const truth = resolve(sqlite, subject, now, maxAgeSeconds);
  const custodian = truth.roles.includes(KEYSTORE_ROLE);
  const deny = truth.deny ?? (custodian ? null : 'missing_role');
  return {
    contract: 'keystore_bootstrap_principal_truth',
    subject: truth.subject,
    principal: truth.user?.name ?? null,
    business_identity_id: truth.employee?.name ?? null,
    principal_type: truth.employee ? 'employee' : truth.user ? 'user_without_employee' : 'unknown',
    lifecycle_state: truth.lifecycle,
    key_custodian: custodian && deny === null,
    bootstrap_allowed: deny === null,
    deny_reason: deny,
    truth_observed_at: truth.observedAt,
    evaluated_at: now.toISOString(),
  };
}
