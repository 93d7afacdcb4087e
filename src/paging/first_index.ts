/**
 * Where a later page starts in what an earlier one kept: the first index
 * past the cursor's position, found by binary search over kept items in
 * page order (list_files, list_dir, git_diff and git_show).
 *
 * @example
 * ```ts
 * const kept = ["a.ts", "b.ts", "c.ts"];
 * firstIndex(kept.length, (i) => kept[i] > "a.ts"); // 1
 * ```
 */

/**
 * The first index in [0, n) where `past` holds, for a `past` false up to some index and true from there on; `n`
 * when it holds nowhere.
 *
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
