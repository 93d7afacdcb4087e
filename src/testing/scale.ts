/**
 * How hard the suite's race, load and fuzz tests push: a short form in the
 * normal `deno task test` (and so in CI), the full form under
 * `RELIABILITY_FULL=1` (`deno task reliability`, docs/reliability.md).
 *
 * @example
 * ```ts
 * const CALLS = scale(40, 1000); // 40 in the suite, 1000 under deno task reliability
 * ```
 */

/** Whether the suite runs in full (`RELIABILITY_FULL=1`, `deno task reliability`) or in its short form. */
export const FULL = Deno.env.get("RELIABILITY_FULL") === "1";

/** `short` in the normal suite, `full` under RELIABILITY_FULL=1. */
export function scale(short: number, full: number): number {
  return FULL ? full : short;
}
