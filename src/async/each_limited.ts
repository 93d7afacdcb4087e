/**
 * Runs `fn` over `items` in order, at most `limit` at a time (slow steps overlap without an fd per item). After a
 * failure it starts no more, waits for those in flight, then throws the first (to try every item, catch in `fn`).
 * @example
 * ```ts
 * await eachLimited([1, 2, 3], 16, async (n) => console.log(n));
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
