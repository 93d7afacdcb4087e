/**
 * The chunks joined: a new array, or the one chunk holding every byte (no copy: callers never write a joined chunk).
 * @example
 * ```ts
 * joinBytes([new Uint8Array([1, 2]), new Uint8Array([3])]); // Uint8Array [1, 2, 3]
 * ```
 */
export function joinBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const whole = chunks.find((chunk) => chunk.length === total);
  if (whole) return whole;
  const joined = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}
