/**
 * Whether `byte` continues a character (10xxxxxx) rather than starting one: an offset there is inside a character.
 * @example
 * ```ts
 * isContinuation(new TextEncoder().encode("é")[1]); // true
 * ```
 */
export function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * The largest index `<= max` where `bytes` can be cut on a character boundary; reads `bytes[max]` and at most 3 back.
 * @example
 * ```ts
 * utf8CutIndex(new TextEncoder().encode("aé"), 2); // 1
 * ```
 */
export function utf8CutIndex(bytes: Uint8Array, max: number): number {
  if (bytes.length <= max) return bytes.length;
  let end = max;
  for (let back = 0; back < 3 && end > 0 && isContinuation(bytes[end]); back++) end--;
  return end;
}

/**
 * The length of the sequence a lead byte announces (1 for ASCII and for a byte that cannot lead).
 * @example
 * ```ts
 * utf8SequenceLength(0xe2); // 3: the first byte of "€"
 * ```
 */
export function utf8SequenceLength(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
}

/**
 * Index of the first byte not starting a valid sequence (WHATWG: no overlong, surrogate, > U+10FFFF or cut off), or -1.
 * @example
 * ```ts
 * firstInvalidUtf8(new Uint8Array([0x61, 0xc3])); // 1
 * ```
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    if (lead < 0xc2 || lead > 0xf4) return i;
    const need = utf8SequenceLength(lead) - 1;
    // The second byte's range is narrower after these leads: no overlong (E0, F0), surrogate (ED) or > U+10FFFF (F4).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * The whole characters of `bytes`: leading continuation bytes left out, and a trailing incomplete one unless `atEnd`.
 * @example
 * ```ts
 * utf8Window(new Uint8Array([0xa9, 0x61, 0xc3]), false); // { from: 1, to: 2 }
 * ```
 */
export function utf8Window(bytes: Uint8Array, atEnd: boolean): { from: number; to: number } {
  let from = 0;
  while (from < Math.min(3, bytes.length) && isContinuation(bytes[from])) from++;
  if (from < bytes.length && isContinuation(bytes[from])) from = 0; // not UTF-8 anyway: keep the bytes
  let to = bytes.length;
  if (!atEnd) {
    for (let back = 1; back <= Math.min(4, to - from); back++) {
      const byte = bytes[to - back];
      if (isContinuation(byte)) continue;
      if (utf8SequenceLength(byte) > back) to -= back;
      break;
    }
  }
  return { from, to };
}

const strict = new TextDecoder("utf-8", { fatal: true });
const lossy = new TextDecoder("utf-8");

/**
 * Decodes bytes as UTF-8, falling back to a lossy decoding (bytes that are not UTF-8 replaced with U+FFFD) flagged.
 * @example
 * ```ts
 * decodeBytes(new Uint8Array([0x61, 0xff])); // { text: "a\uFFFD", lossy: true }
 * ```
 */
export function decodeBytes(bytes: Uint8Array): { text: string; lossy: boolean } {
  try {
    return { text: strict.decode(bytes), lossy: false };
  } catch {
    return { text: lossy.decode(bytes), lossy: true };
  }
}
