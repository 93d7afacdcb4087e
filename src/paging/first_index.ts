/**
 * The first index in [0, n) where `past` holds, for a `past` false up to some index and true from there on, or `n`
 * (a binary search, e.g. for where a later page starts in what an earlier one kept).
 * @example
 * ```ts
 * firstIndex(10, (i) => i * i >= 20); // 5
 * ```
 */
export function firstIndex(n: number, past: (i: number) => boolean): number {
  let low = 0;
  let high = n;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (past(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}
