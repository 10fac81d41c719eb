// A check's outcome as data: its name (what the operator sees in the failure line), whether it
// passed, was skipped (its target flag not given), or failed, and why.

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
