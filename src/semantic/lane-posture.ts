// The graph-search lane posture admitted at each activation stage. S0 admits no runtime lane
// (fixtures only); S1_read_only admits the exact and graph lanes read-only, and the vector lane
// when a vector store is configured; stage 2 adds reranker evidence, optional and non-blocking.

import type { ActivationStage } from './config.ts';

export interface LanePosture {
  admitted: boolean;
  mode: 'synthetic_fixtures_only' | 'read_only' | 'optional_non_blocking' | 'not_admitted';
  reason?: string;
}

export type Lane = 'exact' | 'graph' | 'vector' | 'reranker';

/** The posture of every lane at `stage`. */
export function lanePosture(stage: ActivationStage, options: { vectorStoreConfigured: boolean }): Record<Lane, LanePosture> {
  if (stage === 'S0') {
    const fixturesOnly: LanePosture = { admitted: false, mode: 'synthetic_fixtures_only', reason: 'stage S0 admits synthetic fixtures only' };
    return { exact: fixturesOnly, graph: fixturesOnly, vector: fixturesOnly, reranker: { admitted: false, mode: 'not_admitted', reason: 'reranker evidence starts at stage 2' } };
  }
  const readOnly: LanePosture = { admitted: true, mode: 'read_only' };
  const vector: LanePosture = options.vectorStoreConfigured
    ? readOnly
    : { admitted: false, mode: 'not_admitted', reason: 'SEMANTIC_VECTOR_STORE_URL is not set' };
  const reranker: LanePosture = stage === 'stage_2'
    ? { admitted: true, mode: 'optional_non_blocking' }
    : { admitted: false, mode: 'not_admitted', reason: 'reranker evidence starts at stage 2' };
  return { exact: readOnly, graph: readOnly, vector, reranker };
}
