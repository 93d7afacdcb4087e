import { ToolError } from "../errors.ts";
import { firstInvalidUtf8 } from "../text/utf8.ts";

/** A file's text as the matcher sees it: the BOM and the CRLF style taken off, to be put back unchanged. */
export interface TextFile {
  text: string;
  bom: boolean;
  /** Every `\n` was preceded by `\r` (and there was at least one): lines are kept without the `\r`. */
  crlf: boolean;
}

const BOM = "\uFEFF";
/** A `\n` without its `\r`. */
const BARE_LF = /(?<!\r)\n/;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decodes file bytes for matching, or throws NOT_UTF8 with the byte offset.
 * @example
 * ```ts
 * decodeText(new TextEncoder().encode("a\r\nb"), "x").crlf; // true
 * ```
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
  const crlf = text.includes("\r\n") && !BARE_LF.test(text);
  return { text: crlf ? text.replaceAll("\r\n", "\n") : text, bom, crlf };
}

/**
 * Inverse of decodeText.
 * @example
 * ```ts
 * encodeText({ text: "a\n", bom: false, crlf: true }); // bytes of "a\r\n"
 * ```
 */
export function encodeText(file: TextFile): Uint8Array {
  return encoder.encode((file.bom ? BOM : "") + (file.crlf ? file.text.replaceAll("\n", "\r\n") : file.text));
}
