// Alfresco's permission model at the size a small team needs: four roles granted to users and
// groups on a node, inherited down the tree unless a node turns inheritance off; the owner (the
// creator) of a node holds every permission on it (Alfresco's ROLE_OWNER). Company Home's own
// grants come from configuration: every authenticated user reads, the configured groups write
// or coordinate. Permissions only grant; nothing here denies.

import { statement } from '../kernel/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { JsonValue, Transaction } from '../kernel/index.ts';
import { CONTENT_EVENTS, ROOT_NODE_ID } from './database.ts';
import { nodeAndGrants } from './event-state.ts';
import type { NodeRow } from './node-entry.ts';
import { RepositoryError } from './repository-error.ts';

export const ROLES = ['Consumer', 'Contributor', 'Collaborator', 'Coordinator'] as const;
export type Role = (typeof ROLES)[number];
export type Permission = 'read' | 'create' | 'update' | 'delete' | 'changePermissions';

/** What each role may do (Alfresco's definitions, without the site roles). */
const GRANTS: Record<Role, readonly Permission[]> = {
  Consumer: ['read'],
  Contributor: ['read', 'create'],
  Collaborator: ['read', 'create', 'update'],
  Coordinator: ['read', 'create', 'update', 'delete', 'changePermissions'],
};

export const EVERYONE = 'GROUP_EVERYONE';
// Group names as providers write them, Keycloak's paths ("/team/writers") included.
const AUTHORITY = /^(GROUP_[A-Za-z0-9._@:/ -]{1,200}|(?!GROUP_)[A-Za-z0-9._@:|-]{1,255})$/;

/** Who is asking: the subject and the groups the provider names in its `groups` claim. */
export interface Accessor {
  id: string;
  groups: readonly string[];
}

export interface Grant {
  authorityId: string;
  name: Role;
}

/** Company Home's configured grants: everyone reads; the writers group collaborates; the coordinators group coordinates. */
export interface PermissionPolicy {
  rootGrants: readonly Grant[];
}

export function permissionPolicy(config: { writersGroup: string | undefined; coordinatorsGroup: string | undefined }): PermissionPolicy {
  return {
    rootGrants: [
      { authorityId: EVERYONE, name: 'Consumer' },
      ...(config.writersGroup ? [{ authorityId: `GROUP_${config.writersGroup}`, name: 'Collaborator' as const }] : []),
      ...(config.coordinatorsGroup ? [{ authorityId: `GROUP_${config.coordinatorsGroup}`, name: 'Coordinator' as const }] : []),
    ],
  };
}

/** The authorities a caller acts as: itself, GROUP_EVERYONE and GROUP_<name> for each group. */
export function authoritiesOf(who: Accessor): Set<string> {
  // A subject spelled like a group ("GROUP_admins") acts as no user: it must not pass for that group.
  return new Set([...(who.id.startsWith('GROUP_') ? [] : [who.id]), EVERYONE, ...who.groups.map((group) => `GROUP_${group}`)]);
}

export function localGrants(sqlite: DatabaseSync, nodeId: string): Grant[] {
  return statement(sqlite, 'SELECT authority AS authorityId, role AS name FROM permissions WHERE node_id = ? ORDER BY authority, role').all(nodeId) as unknown as Grant[];
}

/** The grants a node inherits: its ancestors' local grants (and Company Home's configured ones) up to the first that stops inheritance. */
export function inheritedGrants(sqlite: DatabaseSync, policy: PermissionPolicy, node: NodeRow): Grant[] {
  // Company Home's configured grants hold whatever its inheritance flag says: nothing else is above it.
  const grants: Grant[] = node.id === ROOT_NODE_ID ? [...policy.rootGrants] : [];
  if (node.inherit_permissions === 0) return grants;
  const parentOf = statement(sqlite, 'SELECT id, parent_id, inherit_permissions FROM nodes WHERE id = ?');
  for (let at = node.parent_id === null ? undefined : parentOf.get(node.parent_id); at; ) {
    grants.push(...localGrants(sqlite, String(at['id'])));
    if (at['id'] === ROOT_NODE_ID) grants.push(...policy.rootGrants);
    if (at['inherit_permissions'] === 0 || at['parent_id'] === null) break;
    at = parentOf.get(String(at['parent_id']));
  }
  return grants;
}

/** The permissions `who` holds on `node`. */
export function permissionsOn(sqlite: DatabaseSync, policy: PermissionPolicy, node: NodeRow, who: Accessor): Set<Permission> {
  if (node.owner === who.id) return new Set(GRANTS.Coordinator);
  const mine = authoritiesOf(who);
  const held = new Set<Permission>();
  for (const grant of [...localGrants(sqlite, node.id), ...inheritedGrants(sqlite, policy, node)]) {
    if (mine.has(grant.authorityId)) for (const permission of GRANTS[grant.name]) held.add(permission);
  }
  return held;
}

const REFUSALS: Record<Permission, string> = {
  read: 'read',
  create: 'add children to',
  update: 'change',
  delete: 'delete',
  changePermissions: 'change the permissions of',
};

/** Throws 403 unless `who` holds `permission` on `node`. */
export function requirePermission(sqlite: DatabaseSync, policy: PermissionPolicy, node: NodeRow, who: Accessor, permission: Permission): void {
  const held = permissionsOn(sqlite, policy, node, who);
  if (!held.has(permission)) {
    // The name only for a node the caller reads: an id seen as a parentId must not tell what a hidden folder is called.
    const named = held.has('read') ? ` ("${node.name}")` : '';
    throw new RepositoryError(403, `Permission denied: you may not ${REFUSALS[permission]} node "${node.id}"${named}`);
  }
}

/** Alfresco's allowableOperations: what the caller may do with the node (`deletable` false for the folders the repository keeps). */
export function allowableOperations(held: ReadonlySet<Permission>, node: NodeRow, deletable: boolean): string[] {
  return [
    ...(held.has('delete') && deletable ? ['delete'] : []),
    ...(held.has('update') ? ['update'] : []),
    ...(held.has('create') && node.is_folder === 1 ? ['create'] : []),
    ...(held.has('changePermissions') ? ['updatePermissions'] : []),
  ];
}

/** Alfresco's `permissions` member (include=permissions). */
export function permissionsMember(sqlite: DatabaseSync, policy: PermissionPolicy, node: NodeRow): Record<string, unknown> {
  const shape = (grant: Grant) => ({ authorityId: grant.authorityId, name: grant.name, accessStatus: 'ALLOWED' });
  const inherited = dedupe(inheritedGrants(sqlite, policy, node));
  const locallySet = localGrants(sqlite, node.id);
  return {
    isInheritanceEnabled: node.inherit_permissions === 1,
    ...(inherited.length > 0 && { inherited: inherited.map(shape) }),
    ...(locallySet.length > 0 && { locallySet: locallySet.map(shape) }),
    settable: [...ROLES],
  };
}

function dedupe(grants: Grant[]): Grant[] {
  const seen = new Set<string>();
  return grants.filter((g) => !seen.has(`${g.authorityId} ${g.name}`) && seen.add(`${g.authorityId} ${g.name}`));
}

export interface PermissionsBody {
  isInheritanceEnabled?: boolean;
  locallySet?: { authorityId: string; name: string; accessStatus?: string }[];
}

/** JSON Schema of PUT nodes' `permissions` member. */
export const PERMISSIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    isInheritanceEnabled: { type: 'boolean' },
    locallySet: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['authorityId', 'name'],
        properties: { authorityId: { type: 'string', minLength: 1, maxLength: 256 }, name: { type: 'string', maxLength: 64 }, accessStatus: { type: 'string', maxLength: 16 } },
      },
    },
  },
};

/** Replaces a node's local grants (when `locallySet` is given) and its inheritance flag, with one evidence row. */
export function setPermissions(sqlite: DatabaseSync, tx: Transaction, options: { node: NodeRow; body: PermissionsBody; actor: string }): void {
  const { node, body } = options;
  const grants = body.locallySet?.map((item): Grant => {
    if (!AUTHORITY.test(item.authorityId) || item.authorityId.trim() !== item.authorityId) throw new RepositoryError(400, `Invalid authorityId "${item.authorityId}": a user id, GROUP_EVERYONE or GROUP_<name>`);
    if (!(ROLES as readonly string[]).includes(item.name)) throw new RepositoryError(400, `Unknown role "${item.name}": use ${ROLES.join(', ')}`);
    if (item.accessStatus !== undefined && item.accessStatus !== 'ALLOWED') throw new RepositoryError(400, `accessStatus "${item.accessStatus}" is not supported: permissions here only allow (ALLOWED)`);
    return { authorityId: item.authorityId, name: item.name as Role };
  });
  if (grants) {
    statement(sqlite, 'DELETE FROM permissions WHERE node_id = ?').run(node.id);
    const insert = statement(sqlite, 'INSERT OR IGNORE INTO permissions (node_id, authority, role) VALUES (?, ?, ?)');
    for (const grant of grants) insert.run(node.id, grant.authorityId, grant.name);
  }
  const inherit = body.isInheritanceEnabled ?? node.inherit_permissions === 1;
  statement(sqlite, 'UPDATE nodes SET inherit_permissions = ? WHERE id = ?').run(inherit ? 1 : 0, node.id);
  tx.append(CONTENT_EVENTS, { node_id: node.id, action: 'permissions-updated', payload: { actor: options.actor, isInheritanceEnabled: inherit, locallySet: (grants ?? localGrants(sqlite, node.id)).map((g) => ({ authorityId: g.authorityId, name: g.name })), state: nodeAndGrants(sqlite, node.id) as JsonValue } });
}

/** Grants a role without evidence of its own (inside a unit that records the node's creation). */
export function grant(sqlite: DatabaseSync, nodeId: string, authority: string, role: Role): void {
  statement(sqlite, 'INSERT OR IGNORE INTO permissions (node_id, authority, role) VALUES (?, ?, ?)').run(nodeId, authority, role);
}

/**
 * A read check for many nodes at once (search hits): a node is readable when it is the caller's,
 * grants one of the caller's authorities a role, or inherits from a readable parent. Parents are
 * looked up once per request.
 */
export function readableBy(sqlite: DatabaseSync, policy: PermissionPolicy, who: Accessor): ReadCheck {
  const mine = [...authoritiesOf(who)];
  // The nodes that grant the caller something, read once: a hit then costs no query of its own.
  const granting = new Set((statement(sqlite, `SELECT DISTINCT node_id FROM permissions WHERE authority IN (${mine.map(() => '?').join(', ')})`).all(...mine) as { node_id: string }[]).map((row) => row.node_id));
  if (policy.rootGrants.some((g) => mine.includes(g.authorityId))) granting.add(ROOT_NODE_ID);
  const parentOf = statement(sqlite, 'SELECT * FROM nodes WHERE id = ?');
  const ancestors = new Map<string, boolean>();
  // Whether a folder passes read on to the children that inherit: its grants count, its ownership does not.
  // A loop up the tree, not recursion: any contributor can nest folders thousands deep, which
  // overflowed the stack of every search and listing that met them (a 500 for everyone).
  const passesOn = (node: NodeRow): boolean => {
    const chain: NodeRow[] = [];
    let answer: boolean | undefined;
    for (let at = node; answer === undefined; ) {
      const cached = ancestors.get(at.id);
      if (cached !== undefined) {
        answer = cached;
        break;
      }
      chain.push(at);
      if (granting.has(at.id)) answer = true;
      else if (at.inherit_permissions !== 1 || at.parent_id === null) answer = false;
      else if (ancestors.has(at.parent_id)) {
        // The folder is judged already: a search's thousand hits in one folder read it once, not once each.
        answer = ancestors.get(at.parent_id)!;
      } else {
        const parent = parentOf.get(at.parent_id) as NodeRow | undefined;
        if (parent === undefined) answer = false;
        else at = parent;
      }
    }
    // Each node on the way passes read on when it grants it itself or inherits it from above.
    for (let i = chain.length - 1; i >= 0; i--) {
      const at = chain[i]!;
      answer = granting.has(at.id) || (at.inherit_permissions === 1 && answer);
      ancestors.set(at.id, answer);
    }
    return answer;
  };
  const readable = (node: NodeRow): boolean => node.owner === who.id || passesOn(node);
  return Object.assign(readable, { passesOn });
}

/** Whether the caller reads a node, and whether a folder passes read on to the children that inherit from it (ownership does not). */
export interface ReadCheck {
  (node: NodeRow): boolean;
  passesOn(folder: NodeRow): boolean;
}
