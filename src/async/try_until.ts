/**
 * Trying a non-blocking act again until it succeeds or a time is up, with
 * pauses that grow from 1 ms to 20 ms: how a lock held by another process
 * is waited for without a thread blocked in the kernel and without waiting
 * for ever (src/os/fs_change.ts `lockFd`).
 *
 * @example
 * ```ts
 * declare const file: Deno.FsFile;
 * await tryUntil(() => file.tryLockSync(true), 10_000, "the lock");
 * ```
 */

/** The longest pause between two tries. */
const MAX_PAUSE_MS = 20;

/**
 * Calls `attempt` until it returns true; rejects with TimedOut (naming `what`) once `waitMs` have passed.
 * An error `attempt` throws ends the tries.
 *
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
