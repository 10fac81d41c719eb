// Rows of the nodes and versions tables, and their Alfresco entry shapes (a node entry, a
// version entry), so every route answers with what Alfresco's clients parse.

import { alfrescoTime } from './alfresco-shapes.ts';

export interface UserRef {
  id: string;
  displayName: string;
}

export interface NodeRow {
  id: string;
  parent_id: string | null;
  name: string;
  node_type: string;
  is_folder: number;
  created_at: string;
  created_by: string;
  modified_at: string;
  modified_by: string;
  properties: string;
  version_label: string | null;
  /** The creator: Alfresco's owner, who holds every permission on the node. */
  owner: string;
  /** 1 when the node inherits its parent's permissions (Alfresco's isInheritanceEnabled). */
  inherit_permissions: number;
  /** The name's NFC form in lower case: unique among a folder's children. */
  name_key: string;
  /** Set while the node is in the trashcan (trashcan.ts). */
  archived_at?: string | null;
  archived_by?: string | null;
  archive_root?: string | null;
}

export interface VersionRow {
  node_id: string;
  label: string;
  major: number;
  minor: number;
  name: string;
  sha256: string;
  size: number;
  mime_type: string;
  comment: string | null;
  created_at: string;
  created_by: string;
}

export function userJson(user: UserRef): string {
  return JSON.stringify({ id: user.id, displayName: user.displayName });
}

function user(text: string): UserRef {
  return JSON.parse(text) as UserRef;
}

/** A node entry; `version` is the current version of a file (its content member). */
export function nodeEntry(node: NodeRow, version: VersionRow | undefined): Record<string, unknown> {
  const properties = JSON.parse(node.properties) as Record<string, string>;
  const isFolder = node.is_folder === 1;
  return {
    id: node.id,
    name: node.name,
    nodeType: node.node_type,
    isFolder,
    isFile: !isFolder,
    createdAt: alfrescoTime(node.created_at),
    createdByUser: user(node.created_by),
    modifiedAt: alfrescoTime(node.modified_at),
    modifiedByUser: user(node.modified_by),
    ...(node.parent_id !== null && { parentId: node.parent_id }),
    aspectNames: isFolder ? ['cm:auditable'] : ['cm:auditable', 'cm:versionable', 'cm:titled'],
    ...(version && { content: contentMember(version) }),
    properties: {
      ...properties,
      ...(node.version_label !== null && { 'cm:versionLabel': node.version_label, 'cm:versionType': version?.minor === 0 ? 'MAJOR' : 'MINOR' }),
    },
  };
}

/** A version entry, as GET .../versions lists it. */
export function versionEntry(version: VersionRow): Record<string, unknown> {
  return {
    id: version.label,
    versionComment: version.comment ?? undefined,
    name: version.name,
    nodeType: 'cm:content',
    isFolder: false,
    isFile: true,
    modifiedAt: alfrescoTime(version.created_at),
    modifiedByUser: user(version.created_by),
    content: contentMember(version),
    properties: { 'cm:versionLabel': version.label, 'cm:versionType': version.minor === 0 ? 'MAJOR' : 'MINOR' },
  };
}

function contentMember(version: VersionRow): Record<string, unknown> {
  return { mimeType: version.mime_type, mimeTypeName: version.mime_type, sizeInBytes: version.size, encoding: 'UTF-8', contentSha256: version.sha256 };
}
