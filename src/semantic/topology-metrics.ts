// Topology metrics readback: exactly six allowlisted numeric metrics from the runtime-owner
// artifact, each available or explicitly unavailable. It is not a scrape, debug, configuration
// or host-probing endpoint: nothing else from the artifact or the host is returned.

import { artifactSource, pickMetrics, readRuntimeOwnerArtifact } from './runtime-owner-artifact.ts';
import type { MetricValue } from './runtime-owner-artifact.ts';

export const TOPOLOGY_METRICS = [
  'graph_nodes_total',
  'graph_edges_total',
  'hidden_edges_total',
  'isolation_domains_active',
  'tenant_compartments_active',
  'projection_lag_seconds',
] as const;

/** The metrics that count things: whole numbers only (projection_lag_seconds is a duration). */
export const TOPOLOGY_COUNTS: readonly (typeof TOPOLOGY_METRICS)[number][] = [
  'graph_nodes_total',
  'graph_edges_total',
  'hidden_edges_total',
  'isolation_domains_active',
  'tenant_compartments_active',
];

export const TOPOLOGY_METRIC_DESCRIPTIONS: Record<(typeof TOPOLOGY_METRICS)[number], string> = {
  graph_nodes_total: 'Nodes in the runtime graph',
  graph_edges_total: 'Edges in the runtime graph, visible or hidden',
  hidden_edges_total: 'Edges held hidden because an end is missing in their compartment',
  isolation_domains_active: 'Isolation domains holding at least one node',
  tenant_compartments_active: 'Distinct (tenant hash, isolation domain) compartments holding at least one node',
  projection_lag_seconds: 'Age of the oldest source event not yet projected',
};

export interface TopologyReadback {
  source: Record<string, unknown>;
  metrics: Record<(typeof TOPOLOGY_METRICS)[number], MetricValue>;
}

/** Reads the artifact afresh and returns the six metrics. */
export function readTopologyMetrics(artifactPath: string | undefined): TopologyReadback {
  const read = readRuntimeOwnerArtifact(artifactPath);
  return { source: artifactSource(read), metrics: pickMetrics(read, 'topology_metrics', TOPOLOGY_METRICS, { counts: TOPOLOGY_COUNTS }) as TopologyReadback['metrics'] };
}
