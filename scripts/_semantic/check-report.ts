// The common shape of a verifier's result: named checks, each ok or failing with reasons, printed
// as one line per check (and an indented line per reason) or as one JSON document.

export interface Check {
  name: string;
  ok: boolean;
  reasons: string[];
}

export interface CheckReport {
  ok: boolean;
  checks: Check[];
}

/** A check from its reasons: ok when there are none. */
export function check(name: string, reasons: readonly string[]): Check {
  return { name, ok: reasons.length === 0, reasons: [...reasons] };
}

/** A report of `checks` plus any extra members; ok when every check is. */
export function report<E extends Record<string, unknown>>(checks: Check[], extra?: E): CheckReport & E {
  return { ok: checks.every((c) => c.ok), ...(extra as E), checks };
}

/** The text form: `ok   name` or `FAIL name` with its reasons, then a summary line. */
export function formatChecks(checks: readonly Check[]): string[] {
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}`);
    for (const reason of c.reasons) lines.push(`     ${reason}`);
  }
  const failed = checks.filter((c) => !c.ok).length;
  lines.push(failed === 0 ? `all ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`);
  return lines;
}
