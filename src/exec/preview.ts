import type { ByteRange, OutputStream } from "./output_stream.ts";
import { utf8Window } from "../text/utf8.ts";

/** One stream's part of a poll (previewRange). */
export type StreamPreview = ReturnType<typeof previewRange>;

const decoder = new TextDecoder();

/**
 * Decodes the whole characters of `bytes` (utf8Window: a cut one at the end kept only when `atEnd`) and their range.
 * @example
 * ```ts
 * decodeWhole(new Uint8Array([0x61, 0xc3]), false); // { text: "a", from: 0, to: 1 }
 * ```
 */
export function decodeWhole(bytes: Uint8Array, atEnd: boolean): { text: string; from: number; to: number } {
  const window = utf8Window(bytes, atEnd);
  return { text: decoder.decode(bytes.subarray(window.from, window.to)), ...window };
}

/**
 * The line that stands for bytes left out of a preview: how many, where, and how many of them are evicted.
 * @example
 * ```ts
 * gapLine({ start: 8192, end: 9000 }, [{ start: 0, end: 9000 }]); // "[... 808 bytes omitted (offsets 8192-9000) ...]"
 * ```
 */
export function gapLine(range: ByteRange, retained: readonly ByteRange[]): string {
  let kept = 0;
  for (const part of retained) kept += Math.max(0, Math.min(range.end, part.end) - Math.max(range.start, part.start));
  const evicted = range.end - range.start - kept;
  const lost = evicted > 0 ? `, ${evicted} of them evicted from retention` : "";
  return `[... ${range.end - range.start} bytes omitted (offsets ${range.start}-${range.end}${lost}) ...]`;
}

/**
 * Previews `stream` from `from` (a character boundary: a previous preview's `end`) to its end within `maxBytes`: the
 * whole range when it fits, else its first and last halves (UTF-8-safe) around a marker of what was left out. `end` is
 * where the next poll starts, `omitted` the first range not shown (for read_output), `parts` what `text` shows without
 * its markers at absolute offsets, `retained` the retained ranges now (what a gap marker counts as evicted).
 * @example
 * ```ts
 * import { OutputStream } from "./output_stream.ts";
 * const stream = new OutputStream(1024 * 1024);
 * stream.append(new TextEncoder().encode("x".repeat(100_000)));
 * previewRange(stream, 0, 16384).omitted; // { start, end } to page with read_output
 * ```
 */
export function previewRange(stream: OutputStream, from: number, maxBytes: number) {
  const to = stream.total;
  const atEnd = stream.closed;
  const retained = stream.retained();
  const length = to - from;
  const whole = stream.read(from, length);
  if (whole.skipped === 0 && whole.bytes.length === length && length <= maxBytes) {
    const decoded = decodeWhole(whole.bytes, atEnd);
    return {
      text: decoded.text,
      truncated: false,
      offset: from,
      end: from + decoded.to,
      omitted: null,
      omittedBytes: 0,
      parts: [{ start: from, text: decoded.text }],
      retained,
    };
  }
  const half = Math.floor(maxBytes / 2);
  const headRead = stream.read(from, half);
  const head = decodeWhole(headRead.bytes, false);
  const headEnd = headRead.start + head.to;
  const tailRead = stream.read(Math.max(to - half, headEnd), half);
  const tail = decodeWhole(tailRead.bytes, atEnd);
  const tailStart = tailRead.start + tail.from;
  const leading = headRead.start > from ? { start: from, end: headRead.start } : null;
  const middle = tailStart > headEnd ? { start: headEnd, end: tailStart } : null;
  const gaps = [leading, middle].filter((gap) => gap !== null);
  const marker = (gap: ByteRange | null) => gap === null ? "" : `\n${gapLine(gap, retained)}\n`;
  const parts = [{ start: headRead.start + head.from, text: head.text }, { start: tailStart, text: tail.text }];
  return {
    text: marker(leading) + head.text + marker(middle) + tail.text,
    truncated: gaps.length > 0,
    offset: from,
    end: tailRead.start + tail.to,
    omitted: gaps[0] ?? null,
    omittedBytes: gaps.reduce((sum, gap) => sum + gap.end - gap.start, 0),
    parts: parts.filter((part) => part.text.length > 0),
    retained,
  };
}
