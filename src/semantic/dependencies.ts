// What the semantic service depends on and consumes, declared once: the manifest publishes it
// and the status readback reports it as the declared foundations.

import type { ConsumedSurface, DependencyDeclaration } from '../kernel/index.ts';

export const DEPENDENCIES: readonly DependencyDeclaration[] = [
  { name: 'control_database', kind: 'sqlite', owner: 'semantic', env: 'AIRLOCK_DATA_DIR', required: true },
  { name: 'model_runtime', kind: 'http', owner: 'local model runtime', env: 'SEMANTIC_MODEL_RUNTIME_URL', required: false },
  { name: 'vector_store', kind: 'http', owner: 'vector store', env: 'SEMANTIC_VECTOR_STORE_URL', required: false },
  { name: 'governance', kind: 'http', owner: 'governance', env: 'SEMANTIC_GOVERNANCE_URL', required: false },
  { name: 'runtime_owner_artifact', kind: 'file', owner: 'runtime owner', env: 'SEMANTIC_RUNTIME_OWNER_ARTIFACT', required: false },
];

export const CONSUMED_SURFACES: readonly ConsumedSurface[] = [
  { owner: 'local model runtime', method: 'GET', path: '/readyz', description: 'Readiness of the model runtime' },
  { owner: 'local model runtime', method: 'GET', path: '/v1/models', description: 'Models the runtime serves (live checks)' },
  { owner: 'local model runtime', method: 'POST', path: '/v1/embeddings', description: 'Embeddings (live checks)' },
  { owner: 'vector store', method: 'GET', path: '/readyz', description: 'Readiness of the vector store' },
  { owner: 'vector store', method: 'GET', path: '/collections', description: 'Collections (live checks)' },
  { owner: 'vector store', method: 'GET', path: '/collections/{collection}', description: 'Collection info (vector_store_checks)' },
  { owner: 'vector store', method: 'POST', path: '/collections/{collection}/points/search', description: 'Search (live checks)' },
  { owner: 'governance', method: 'GET', path: '/health', description: 'Liveness and deployment role of the governance service (Document 2), probed by /readyz' },
  { owner: 'governance', method: 'GET', path: '/api/v1/contracts/registry', description: 'Published contract registry (Document 2), read by live checks' },
];
