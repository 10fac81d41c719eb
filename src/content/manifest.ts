// What the content repository declares about itself (seed 002, "Content repository"): the
// share UI, the OIDC bridge and the Alfresco-shaped repository API on one listener, plus the
// development OpenID provider that npm start runs (loopback only, not for production).

import type { ServiceManifest } from '../kernel/index.ts';
import { REPOSITORY_PREFIX } from './alfresco-shapes.ts';
import { contentRoutes, UNCONFIGURED_BRIDGE, UNCONFIGURED_DEPS } from './routes.ts';

/** Alfresco's error body: `{"error": {errorKey, statusCode, briefSummary, stackTrace, descriptionURL}}`. */
const ALFRESCO_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['errorKey', 'statusCode', 'briefSummary', 'stackTrace', 'descriptionURL'],
      properties: { errorKey: { type: 'string' }, statusCode: { type: 'integer' }, briefSummary: { type: 'string' }, stackTrace: { type: 'string' }, descriptionURL: { type: 'string' } },
    },
  },
} as const;

export const manifest: ServiceManifest = {
  service: 'content',
  seed: '002_fcf4d9d2760c44e4',
  title: 'Content repository',
  description:
    'A share UI plus a repository API (Alfresco\'s public REST API with "alfresco" renamed "repository") behind one trusted ingress, with login through an OIDC bridge; content-addressed storage, versions, renditions and full-text search',
  owner: 'content',
  capabilities: ['share-ui', 'oidc-bridge', 'repository-api', 'versioned-content', 'renditions', 'full-text-search', 'transcript-summary-references', 'search-backed-readiness'],
  executables: [
    { name: 'content-api', role: 'api', source: 'src/content/main.ts', listeners: [{ name: 'main', port: 18060, env: 'CONTENT_LISTEN' }] },
    { name: 'content-dev-oidc', role: 'dev-oidc', source: 'src/content/main-dev-oidc.ts', listeners: [{ name: 'dev-oidc', port: 18069, env: 'CONTENT_DEV_OIDC_LISTEN', loopbackOnly: true }] },
  ],
  dependencies: [
    { name: 'content_database', kind: 'sqlite', owner: 'content', env: 'AIRLOCK_DATA_DIR', required: true },
    { name: 'content_blobs', kind: 'file', owner: 'content', env: 'AIRLOCK_DATA_DIR', required: true },
    { name: 'openid_provider', kind: 'http', owner: 'identity provider', env: 'CONTENT_OIDC_ISSUER', required: true },
  ],
  consumed: [
    { owner: 'identity provider', method: 'GET', path: '/.well-known/openid-configuration', description: 'OpenID Connect discovery (issuer, endpoints, jwks_uri)' },
    { owner: 'identity provider', method: 'GET', path: '{jwks_uri}', description: 'Signing keys for ID and access tokens (RS256, ES256)' },
    { owner: 'identity provider', method: 'GET', path: '{authorization_endpoint}', description: 'Browser login: code flow with PKCE S256, state and nonce' },
    { owner: 'identity provider', method: 'POST', path: '{token_endpoint}', description: 'Code exchange with client_secret_basic' },
    { owner: 'identity provider', method: 'GET', path: '{end_session_endpoint}', description: 'Browser logout at the provider (RP-initiated logout)' },
  ],
  volumes: [
    { path: 'content.sqlite', purpose: 'nodes, versions, renditions, the full-text index, sessions, and the content_events evidence chain' },
    { path: 'content-blobs/', purpose: 'content-addressed file content (SHA-256), written once' },
  ],
  verify: ['curl -fsS http://127.0.0.1:18060/repository/api/-default-/public/repository/versions/1/probes/-ready-'],
  contracts: [],
  openapiPath: 'contracts/api/content_openapi_v1.json',
  openapiInfo: {
    title: 'Airlock content repository API',
    version: '1.0.0',
    description:
      'The content repository (seed 002): Alfresco\'s public REST API with "alfresco" renamed "repository", Alfresco\'s error body and list envelope; the share UI and the OIDC bridge. Repository routes admit an OIDC bridge session cookie or a bearer access token issued by the provider for this resource.',
  },
  securitySchemes: {
    repository: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A session cookie from the OIDC bridge, or a bearer access token (at+jwt) that CONTENT_OIDC_ISSUER issued for CONTENT_OIDC_AUDIENCE; 401 otherwise' },
    share: { type: 'apiKey', in: 'cookie', name: 'content_session', description: 'The OIDC bridge session; without it the UI redirects to /auth/oidc/login' },
  },
  peerChecks: { loopback: 'No credential: loopback peers only (403 otherwise)' },
  errorBodies: [
    { name: 'AlfrescoError', mediaType: 'application/json', schema: ALFRESCO_ERROR_SCHEMA, appliesTo: (path) => path.startsWith(REPOSITORY_PREFIX) },
    { name: 'ErrorPage', mediaType: 'text/html; charset=utf-8', schema: { type: 'string', description: 'An HTML page saying what went wrong' } },
  ],
  routes: contentRoutes(UNCONFIGURED_DEPS, UNCONFIGURED_BRIDGE),
};
