/** The longest pause between two tries (they start at 1 ms and double). */
const MAX_PAUSE_MS = 20;

/**
 * Calls `attempt` until it returns true; rejects with TimedOut (naming `what`) once `waitMs` have passed. An error
 * `attempt` throws ends the tries. How src/os/fs_change.ts `lockFd` waits for a lock without blocking a thread.
 * @example
 * ```ts
 * let calls = 0;
 * await tryUntil(() => ++calls === 3, 1000, "the third call"); // resolves after two pauses
 * ```
 */
export async function tryUntil(attempt: () => boolean, waitMs: number, what: string): Promise<void> {
  const deadline = performance.now() + waitMs;
  for (let pause = 1;; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    if (attempt()) return;
    if (performance.now() >= deadline) throw new Deno.errors.TimedOut(`${what} was not free within ${waitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
