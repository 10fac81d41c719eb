// Nearest-rank percentile over an ascending array of numbers.

/** The value at quantile q (0..1) of `sorted`, which must be sorted ascending; 0 when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return round3(sorted[rank] ?? 0);
}

export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The middle value of `values` (the upper one of an even count); 0 when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
