// The decision of verify_ts05_retrieval_gates. A runtime-owner receipt is evaluated only at stage
// S1_read_only, and promotes runtime evidence only when it names the runtime-owner environment, a
// source/run/receipt identity, an admitted redaction posture, an executed composed-result
// reference and every runtime metric. S0 fixture fields never promote; a deprecated metrics file
// is parsed and reported but never promotes; a missing metric stays unavailable, never zero.

import { ACTIVATION_STAGES, FIXTURES_CONTRACT, unavailable } from '../../src/semantic/index.ts';
import type { ActivationStage, MetricValue } from '../../src/semantic/index.ts';
import { isObject, objectOf } from './json-file.ts';

export const EVALUATED_STAGE: ActivationStage = 'S1_read_only';
/** The receipt's identity: what it is (`receipt`) and which version of it (`version`). */
export const RECEIPT_KIND = 'semantic_retrieval_gate_runtime_owner';
export const RECEIPT_VERSION = 1;
export const REDACTION_POSTURES = ['redacted', 'hashed', 'no_content'] as const;
export const RUNTIME_METRICS: readonly string[] = FIXTURES_CONTRACT.fixtures['retrieval-gate'].runtime_metrics;
/** Members that only a synthetic S0 fixture receipt carries. */
const FIXTURE_MARKERS = ['synthetic', 'fixture', 'composed_result_executed', 'promotes_runtime_evidence'] as const;

export interface GateInputs {
  stage: string;
  /** The parsed runtime-owner receipt, when one was given. */
  receipt?: unknown;
  /** The parsed deprecated metrics file, when one was given. */
  metricsFile?: unknown;
}

export interface GateVerdict {
  stage: string;
  evaluated: boolean;
  promoted: boolean;
  /** Each item that keeps the evidence from being promoted. */
  missing: string[];
  identity: Record<string, string | null>;
  metrics: Record<string, MetricValue>;
  deprecated_metrics_file?: { promotes: false; metrics: Record<string, MetricValue> };
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** Each runtime metric of `values`: available when a finite non-negative number, else unavailable with why. */
export function readMetrics(values: unknown, source: string): Record<string, MetricValue> {
  const members = objectOf(values);
  return Object.fromEntries(RUNTIME_METRICS.map((name): [string, MetricValue] => {
    if (!isObject(values)) return [name, unavailable(`${source} has no metrics object`)];
    if (!(name in members)) return [name, unavailable(`metric "${name}" is absent from the ${source}`)];
    const value = members[name];
    return [name, typeof value === 'number' && Number.isFinite(value) && value >= 0 ? { status: 'available', value } : unavailable(`metric "${name}" is not a finite non-negative number in the ${source}`)];
  }));
}

/** Evaluates the inputs; never throws for a bad receipt. */
export function evaluateRetrievalGate(inputs: GateInputs): GateVerdict {
  const missing: string[] = [];
  const receipt = objectOf(inputs.receipt);
  const identity = {
    runtime_owner: text(receipt['runtime_owner']),
    environment: text(receipt['environment']),
    source_id: text(receipt['source_id']),
    run_id: text(receipt['run_id']),
    receipt_id: text(receipt['receipt_id']),
    redaction_posture: text(receipt['redaction_posture']),
    composed_result_reference: null as string | null,
  };
  const evaluated = inputs.stage === EVALUATED_STAGE && inputs.receipt !== undefined;
  if (!(ACTIVATION_STAGES as readonly string[]).includes(inputs.stage)) missing.push(`stage "${inputs.stage}" is not an activation stage (${ACTIVATION_STAGES.join(', ')})`);
  else if (inputs.stage !== EVALUATED_STAGE) missing.push(`stage is ${inputs.stage}: a runtime-owner receipt is evaluated only at ${EVALUATED_STAGE}`);
  if (inputs.receipt === undefined) missing.push('runtime-owner receipt (--runtime-owner-receipt-file)');
  else if (!isObject(inputs.receipt)) missing.push('runtime-owner receipt is not a JSON object');
  let metrics = readMetrics(undefined, 'runtime-owner receipt');
  if (evaluated && isObject(inputs.receipt)) {
    const markers = FIXTURE_MARKERS.filter((m) => m in receipt);
    if (markers.length > 0 || receipt['stage'] === 'S0') {
      missing.push(`S0 fixture fields never promote runtime evidence (${[...markers, ...(receipt['stage'] === 'S0' ? ['stage S0'] : [])].join(', ')})`);
    }
    // Identity first: a document that is not this receipt, at this version and stage, is not read further.
    const wrongIdentity = markers.length > 0 || receipt['stage'] === 'S0' ? [] : identityProblems(receipt);
    missing.push(...wrongIdentity);
    if (missing.length > 0) {
      metrics = Object.fromEntries(RUNTIME_METRICS.map((name) => [name, unavailable('the receipt\'s identity (receipt, version, stage) was not verified')]));
      return finish({ inputs, evaluated, missing, identity, metrics });
    }
    for (const key of ['runtime_owner', 'environment', 'source_id', 'run_id', 'receipt_id'] as const) if (identity[key] === null) missing.push(key);
    const posture = identity.redaction_posture;
    if (posture === null) missing.push('redaction_posture');
    else if (!(REDACTION_POSTURES as readonly string[]).includes(posture)) missing.push(`redaction_posture "${posture}" is not admitted (${REDACTION_POSTURES.join(', ')})`);
    const composed = objectOf(receipt['composed_result']);
    identity.composed_result_reference = text(composed['reference']);
    if (composed['executed'] !== true || identity.composed_result_reference === null) missing.push('composed_result with executed: true and a reference');
    metrics = readMetrics(receipt['metrics'], 'runtime-owner receipt');
    for (const [name, value] of Object.entries(metrics)) if (value.status === 'unavailable') missing.push(`metric "${name}" unavailable: ${value.reason}`);
  } else if (inputs.stage !== EVALUATED_STAGE) {
    metrics = Object.fromEntries(RUNTIME_METRICS.map((name) => [name, unavailable(`stage ${inputs.stage}: runtime metrics are not evaluated`)]));
  }
  return finish({ inputs, evaluated, missing, identity, metrics });
}

function finish(parts: { inputs: GateInputs; evaluated: boolean; missing: string[]; identity: GateVerdict['identity']; metrics: GateVerdict['metrics'] }): GateVerdict {
  const { inputs, evaluated, missing, identity, metrics } = parts;
  const verdict: GateVerdict = { stage: inputs.stage, evaluated, promoted: evaluated && missing.length === 0, missing, identity, metrics };
  if (inputs.metricsFile !== undefined) verdict.deprecated_metrics_file = { promotes: false, metrics: readMetrics(inputs.metricsFile, 'metrics file') };
  return verdict;
}

/** Why the document is not a runtime-owner retrieval-gate receipt of this version at S1_read_only; empty when it is. */
export function identityProblems(receipt: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const shown = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value));
  if (receipt['receipt'] !== RECEIPT_KIND) problems.push(`receipt kind ${shown(receipt['receipt'])}: expected "${RECEIPT_KIND}"`);
  if (receipt['version'] !== RECEIPT_VERSION) problems.push(`receipt version ${shown(receipt['version'])}: expected ${RECEIPT_VERSION}`);
  if (receipt['stage'] === undefined) problems.push(`receipt stage missing: only a ${EVALUATED_STAGE} receipt is evaluated`);
  else if (receipt['stage'] !== EVALUATED_STAGE) problems.push(`receipt stage ${JSON.stringify(receipt['stage'])}: only a ${EVALUATED_STAGE} receipt is evaluated`);
  return problems;
}
