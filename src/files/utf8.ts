/**
 * UTF-8 helpers for byte-level streaming: where decoding fails, and where a
 * cut can be made without splitting a character.
 *
 * @example
 * firstInvalidUtf8(new Uint8Array([0x61, 0xc3])); // 1
 */

/**
 * Index of the first byte that does not start a valid UTF-8 sequence (per
 * the WHATWG decoder: no overlongs, no surrogates, nothing above U+10FFFF),
 * or -1 when every byte is valid. A sequence cut off at the end is invalid.
 *
 * @example
 * firstInvalidUtf8(new TextEncoder().encode("é")); // -1
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) need = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * The largest cut point `<= at` that does not fall inside a UTF-8 sequence
 * (steps back over continuation bytes, at most three).
 *
 * @example
 * charBoundary(new TextEncoder().encode("aé"), 2); // 1
 */
export function charBoundary(bytes: Uint8Array, at: number): number {
  let cut = Math.min(at, bytes.length);
  for (let back = 0; back < 3 && cut > 0 && cut < bytes.length && (bytes[cut] & 0xc0) === 0x80; back++) cut--;
  return cut;
}
