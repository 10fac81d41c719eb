// What one swept operation's outcome means. Seed 001 "Errors": 2xx is fine; 404 and 422 on
// routes whose path values the sweep had to invent are classified apart, not as failures;
// transport errors, unresolved parameters, any 5xx and exhausted 429 retries fail the run. A
// readiness route's 503 is a 5xx too, so by default it fails the sweep as the seed says; only
// with the explicit --allow-not-ready option is it classified apart as not_ready (the route
// answered its documented "not ready", e.g. a subsystem whose owner is missing fails closed).

export const SWEEP_CLASSES = [
  'ok',
  'sample_dependent',
  'auth_required',
  'not_ready',
  'unexpected_status',
  'rate_limited',
  'server_error',
  'transport_error',
  'unresolved_parameter',
] as const;

export type SweepClass = (typeof SWEEP_CLASSES)[number];

/** Classes that make the run fail (exit 1). */
export const FAILING_CLASSES: ReadonlySet<SweepClass> = new Set([
  'unexpected_status',
  'rate_limited',
  'server_error',
  'transport_error',
  'unresolved_parameter',
]);

export interface ClassifyOptions {
  /** The sweep supplied a path or query value for this operation. */
  sampleDependent: boolean;
  /** The operation declares a required credential (the sweep sends none). */
  secured: boolean;
  /** The operation is a readiness route. */
  readiness?: boolean;
  /** --allow-not-ready: a readiness route's 503 is not_ready instead of a server error. */
  allowNotReady?: boolean;
}

/** The class of a final HTTP status (after any 429 retries). */
export function classifyStatus(status: number, options: ClassifyOptions): SweepClass {
  if (status >= 200 && status <= 299) return 'ok';
  if ((status === 404 || status === 422) && options.sampleDependent) return 'sample_dependent';
  if ((status === 401 || status === 403) && options.secured) return 'auth_required';
  if (status === 503 && options.readiness === true && options.allowNotReady === true) return 'not_ready';
  if (status === 429) return 'rate_limited';
  if (status >= 500 && status <= 599) return 'server_error';
  return 'unexpected_status';
}
