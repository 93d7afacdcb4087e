/**
 * Cutting UTF-8 bytes without splitting a character.
 *
 * @example
 * const end = utf8CutIndex(bytes, 4096); // bytes.subarray(0, end) decodes cleanly
 */

/**
 * The largest index `<= max` at which `bytes` can be cut on a character
 * boundary. Needs the byte at `max` (when there is one) to tell whether a
 * character continues across the cut.
 */
export function utf8CutIndex(bytes: Uint8Array, max: number): number {
  if (bytes.length <= max) return bytes.length;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return end;
}
