/**
 * A file's text as the matcher sees it: the BOM and the CRLF style taken
 * off so they can be put back unchanged. Lines are split on `\n` only
 * (see line_index.ts).
 *
 * @example
 * const file = decodeText(bytes, "src/a.ts");
 * encodeText({ ...file, text: file.text + "more" });
 */
import { ToolError } from "../errors.ts";

/** Decoded text plus what must be restored on encode. */
export interface TextFile {
  /** The content with the BOM removed and, for a CRLF file, every `\r\n` turned into `\n`. */
  text: string;
  /** The file started with U+FEFF. */
  bom: boolean;
  /** Every `\n` was preceded by `\r` (and there was at least one): lines are kept without the `\r`. */
  crlf: boolean;
}

const BOM = "\uFEFF";
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Byte offset of the first invalid UTF-8 sequence, or -1 when `bytes` is valid.
 *
 * @example
 * firstInvalidUtf8(new Uint8Array([0x61, 0xe9])); // 1
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const [length, min] = b >= 0xc2 && b <= 0xdf
      ? [2, 0x80]
      : b >= 0xe0 && b <= 0xef
      ? [3, 0x800]
      : b >= 0xf0 && b <= 0xf4
      ? [4, 0x10000]
      : [0, 0];
    if (length === 0 || i + length > bytes.length) return i;
    let code = b & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      if ((bytes[i + k] & 0xc0) !== 0x80) return i;
      code = (code << 6) | (bytes[i + k] & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/**
 * Decodes file bytes for matching, or throws NOT_UTF8 with the byte offset.
 *
 * @example
 * decodeText(new TextEncoder().encode("a\r\nb"), "x").crlf; // true
 */
export function decodeText(bytes: Uint8Array, path: string): TextFile {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new ToolError("NOT_UTF8", `${path} is not valid UTF-8 (first bad byte at offset ${offset}); not patched`, {
      details: { path, offset },
    });
  }
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  const crlf = text.includes("\r\n") && countOf(text, "\r\n") === countOf(text, "\n");
  return { text: crlf ? text.replaceAll("\r\n", "\n") : text, bom, crlf };
}

/**
 * Inverse of {@linkcode decodeText}.
 *
 * @example
 * encodeText({ text: "a\n", bom: false, crlf: true }); // bytes of "a\r\n"
 */
export function encodeText(file: TextFile): Uint8Array {
  return encoder.encode((file.bom ? BOM : "") + (file.crlf ? file.text.replaceAll("\n", "\r\n") : file.text));
}

function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
