// Who this service is, once: the name the manifest, the listening line and the drift summary
// use, the executable, and the capabilities it declares (and the drift summary checks).

export { SERVICE_NAME } from './config.ts';

export const EXECUTABLE = 'agent-context-api';

export const CAPABILITIES = [
  'self-description',
  'prometheus-metrics',
  'runtime-inventory',
  'topology-diff',
  'drift-summary',
  'rollouts-audit',
  'control-agent',
  'persistent-agents',
  'agent-runtime-patch',
  'execution-dispatch',
  'learning-proposals',
  'authority-projection',
  'live-upstream-context',
] as const;
