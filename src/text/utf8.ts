/**
 * Cutting UTF-8 bytes without splitting a character, and decoding bytes that may not be UTF-8 (file names).
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

const strict = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8");

/** A decoded name or text, and whether bytes that are not UTF-8 were replaced with U+FFFD. */
export interface Decoded {
  text: string;
  lossy: boolean;
}

/**
 * Decodes bytes as UTF-8, falling back to a lossy decoding with the flag set.
 *
 * @example
 * decodeBytes(new Uint8Array([0x61, 0xff])); // { text: "a\uFFFD", lossy: true }
 */
export function decodeBytes(bytes: Uint8Array): Decoded {
  try {
    return { text: strict.decode(bytes), lossy: false };
  } catch {
    return { text: lossy.decode(bytes), lossy: true };
  }
}
