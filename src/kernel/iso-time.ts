// ISO 8601 text of an instant (Date.prototype.toISOString's), remembered for the last
// millisecond asked: a busy service stamps every log line and every evidence row, many in the
// same millisecond, and toISOString() costs microseconds a call.

let lastMs = Number.NaN;
let lastText = '';

/**
 * `new Date(ms).toISOString()`, from the last result when `ms` is the same millisecond. An
 * invalid instant (NaN) never equals the last one, so it throws toISOString()'s RangeError.
 *
 * @example
 * const time = isoTimeOfMs(Date.now());
 */
export function isoTimeOfMs(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}

/**
 * `date.toISOString()`, remembered as isoTimeOfMs() does.
 *
 * @example
 * const recorded_at = isoTime(now());
 */
export function isoTime(date: Date): string {
  return isoTimeOfMs(date.getTime());
}
