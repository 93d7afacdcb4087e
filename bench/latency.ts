/**
 * The latency statistics the interactive benchmarks print: median and p90
 * of a list of samples, and a millisecond figure in µs below 1 ms.
 *
 * @example
 * const { median, p90 } = latencyStats([1.2, 0.9, 1.4]);
 * console.log(formatMs(median)); // "1.20 ms"
 */

/** Median and 90th percentile of `samples` (ms). */
export function latencyStats(samples: number[]): { median: number; p90: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9) };
}

/** `ms` as "850 µs" or "1.20 ms". */
export function formatMs(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}
