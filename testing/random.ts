/**
 * A seeded pseudo-random sequence (mulberry32), for fixtures and benchmarks that must build the same data each run.
 * @example
 * ```ts
 * seededRandom(42)(); // the same number in [0, 1) on every run
 * ```
 */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
