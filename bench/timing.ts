/**
 * Timing helpers the benchmarks share.
 *
 * @example
 * const ms = await timeRuns(() => server.call("git_log", {}), 20); // median of 20 after a warm-up
 */

/** The median of `values` (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The median time in milliseconds of `runs` calls of `run`, after one warm-up call. */
export async function timeRuns(run: () => Promise<unknown>, runs: number): Promise<number> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}
