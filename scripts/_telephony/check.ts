// A check's outcome as data: its name (what the operator sees in the failure line), whether it
// passed, was skipped (its target flag not given), or failed, and why.

import { Unreachable } from './probe.ts';

export interface CheckResult {
  check: string;
  outcome: 'pass' | 'fail' | 'skip';
  detail: string;
  target?: string;
  status?: number;
}

export function pass(check: string, detail: string, extra: Partial<CheckResult> = {}): CheckResult {
  return { check, outcome: 'pass', detail, ...extra };
}

export function fail(check: string, detail: string, extra: Partial<CheckResult> = {}): CheckResult {
  return { check, outcome: 'fail', detail, ...extra };
}

export function skip(check: string, detail: string): CheckResult {
  return { check, outcome: 'skip', detail };
}

/**
 * Runs one target's checks; a target that does not answer is those checks failing, named with
 * the reason, never an end to the run: the other targets are still checked.
 */
export async function orUnreachable(run: () => Promise<CheckResult[]>, failed: (reason: string) => CheckResult[]): Promise<CheckResult[]> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Unreachable)) throw error;
    return failed(error.message);
  }
}
