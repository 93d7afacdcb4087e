/** Whether the race, load and fuzz tests run in full (`RELIABILITY_FULL=1`, `deno task reliability`) or short. */
export const FULL = Deno.env.get("RELIABILITY_FULL") === "1";

/** `short` in the normal suite (and CI), `full` under RELIABILITY_FULL=1 (docs/reliability.md). */
export function scale(short: number, full: number): number {
  return FULL ? full : short;
}
