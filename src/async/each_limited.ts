/**
 * Bounded concurrency: run an async function over a list with a fixed number
 * of calls in flight, so that slow steps (fsync, reads) overlap without
 * opening one fd per item at once.
 *
 * @example
 * ```ts
 * const sizes = new Map<string, number>();
 * await eachLimited(["a", "bb", "ccc"], 2, async (word) => {
 *   sizes.set(word, word.length);
 * });
 * ```
 */

/**
 * Runs `fn` over `items`, at most `limit` calls at a time, starting them in
 * order. After a failure it starts no more, waits for the calls in flight,
 * then throws the first failure; a caller that wants every item tried
 * catches inside `fn`.
 *
 * @example
 * ```ts
 * const seen: number[] = [];
 * await eachLimited([1, 2, 3], 16, async (n) => {
 *   seen.push(n);
 * });
 * ```
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && failure === null) {
      const item = items[next++];
      try {
        await fn(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
