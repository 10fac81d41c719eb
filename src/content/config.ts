// The content repository's configuration: the listener, the data directory, the OIDC bridge
// (issuer, client, public URL, accepted access-token audience) and the owner references of the
// transcript-summary surface. Every variable is read once, all problems reported together.

import { join } from 'node:path';
import { readConfig } from '../kernel/index.ts';
import type { ConfigSpec, ConfigValues, ListenAddress } from '../kernel/index.ts';

export const DEFAULT_LISTEN = '127.0.0.1:18060';
/** The blob store's directory under AIRLOCK_DATA_DIR (evidence_restore fetches blobs into it). */
export const BLOB_DIR_NAME = 'content-blobs';

export const CONTENT_SPEC = {
  CONTENT_LISTEN: { type: 'listen', default: DEFAULT_LISTEN, description: 'host:port of the listener (--listen wins)' },
  AIRLOCK_DATA_DIR: { type: 'string', default: './var', description: 'directory of content.sqlite and content-blobs/' },
  CONTENT_PUBLIC_URL: { type: 'url', required: true, description: 'the URL browsers use for this service; the OIDC redirect URI is <CONTENT_PUBLIC_URL>/auth/oidc/callback' },
  CONTENT_OIDC_ISSUER: { type: 'url', required: true, description: 'the OpenID provider issuer (discovery at <issuer>/.well-known/openid-configuration)' },
  CONTENT_OIDC_CLIENT_ID: { type: 'string', required: true, description: 'this relying party\'s client id at the provider' },
  CONTENT_OIDC_CLIENT_SECRET: { type: 'secret', required: true, description: 'the client secret (client_secret_basic)' },
  CONTENT_OIDC_AUDIENCE: { type: 'string', description: 'the audience bearer access tokens must name (default: the client id)' },
  CONTENT_OIDC_SCOPES: { type: 'string', default: 'openid profile email', description: 'scopes requested at login' },
  CONTENT_WRITE_SCOPE: { type: 'string', default: 'api:write', description: 'the scope a bearer access token needs for any write (403 insufficient_scope otherwise)' },
  CONTENT_COMPANY_HOME_WRITERS: { type: 'string', description: 'the group (from the provider\'s groups claim) that is Collaborator on Company Home (unset: nobody writes there but its coordinators)' },
  CONTENT_COMPANY_HOME_COORDINATORS: { type: 'string', description: 'the group that is Coordinator on Company Home: deletes anything there and sets permissions (unset: nobody)' },
  CONTENT_SESSION_TTL_SECONDS: { type: 'int', default: 28800, min: 60, max: 604800, description: 'session lifetime' },
  CONTENT_MAX_UPLOAD_BYTES: { type: 'int', default: 536870912, min: 1, description: 'largest upload accepted (413 beyond)' },
  CONTENT_INDEX_TEXT_BYTES: { type: 'int', default: 1048576, min: 0, max: 16777216, description: 'bytes of text content indexed for full-text search' },
  CONTENT_OWNER_ISSUE_REF: { type: 'string', description: 'owner_issue_ref of the transcript-summary surface (unset: that surface fails closed)' },
  CONTENT_BLOCKED_PROGRAM_REF: { type: 'string', description: 'blocked_program_ref of the transcript-summary surface (unset: that surface fails closed)' },
} as const satisfies ConfigSpec;

export type ContentConfigValues = ConfigValues<typeof CONTENT_SPEC>;

export interface ContentConfig {
  listen: ListenAddress;
  dataDir: string;
  databasePath: string;
  blobDir: string;
  publicUrl: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  audience: string;
  scopes: string;
  writeScope: string;
  writersGroup: string | undefined;
  coordinatorsGroup: string | undefined;
  sessionTtlSeconds: number;
  maxUploadBytes: number;
  indexTextBytes: number;
  ownerIssueRef: string | undefined;
  blockedProgramRef: string | undefined;
}

/** Reads the configuration; `--listen` wins over CONTENT_LISTEN. Throws config_invalid listing every problem. */
export function loadContentConfig(env: NodeJS.ProcessEnv, overrides: { listen?: string } = {}): ContentConfig {
  const values = readConfig(CONTENT_SPEC, overrides.listen === undefined ? env : { ...env, CONTENT_LISTEN: overrides.listen });
  const dataDir = values.AIRLOCK_DATA_DIR;
  return {
    listen: values.CONTENT_LISTEN,
    dataDir,
    databasePath: join(dataDir, 'content.sqlite'),
    blobDir: join(dataDir, BLOB_DIR_NAME),
    publicUrl: values.CONTENT_PUBLIC_URL,
    issuer: values.CONTENT_OIDC_ISSUER,
    clientId: values.CONTENT_OIDC_CLIENT_ID,
    clientSecret: values.CONTENT_OIDC_CLIENT_SECRET,
    audience: values.CONTENT_OIDC_AUDIENCE ?? values.CONTENT_OIDC_CLIENT_ID,
    scopes: values.CONTENT_OIDC_SCOPES,
    writeScope: values.CONTENT_WRITE_SCOPE,
    writersGroup: values.CONTENT_COMPANY_HOME_WRITERS,
    coordinatorsGroup: values.CONTENT_COMPANY_HOME_COORDINATORS,
    sessionTtlSeconds: values.CONTENT_SESSION_TTL_SECONDS,
    maxUploadBytes: values.CONTENT_MAX_UPLOAD_BYTES,
    indexTextBytes: values.CONTENT_INDEX_TEXT_BYTES,
    ownerIssueRef: values.CONTENT_OWNER_ISSUE_REF,
    blockedProgramRef: values.CONTENT_BLOCKED_PROGRAM_REF,
  };
}
