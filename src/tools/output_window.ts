/** Re-cuts an output preview to a smaller room, in UTF-8 bytes (the text) or JSON characters (structuredContent). */
import type { ByteRange } from "../exec/output_stream.ts";
import { jsonStringChars, prefixWithinJson } from "../paging/budget.ts";
import { utf8CutIndex } from "../text/utf8.ts";

/** Shown text starting at an absolute byte offset of its stream. */
export interface Piece {
  start: number;
  text: string;
}

/** How a room is measured. */
export interface Measure {
  size(text: string): number;
  /** The longest prefix within `room` (whole code points). */
  prefix(text: string, room: number): string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const byteLength = (text: string) => encoder.encode(text).length;

/** Rooms in UTF-8 bytes. */
export const BYTES: Measure = {
  size: byteLength,
  prefix: (text, room) => {
    const bytes = encoder.encode(text);
    return bytes.length <= room ? text : decoder.decode(bytes.subarray(0, utf8CutIndex(bytes, Math.max(0, room))));
  },
};

/** Rooms in JSON characters. */
export const JSON_CHARS: Measure = {
  size: jsonStringChars,
  prefix: (text, room) => (jsonStringChars(text) <= room ? text : room <= 0 ? "" : prefixWithinJson(text, room)),
};

function reverse(text: string): string {
  return [...text].reverse().join("");
}

/**
 * The head of `text` within `room`, ending at a line end when one is in its second half.
 * @example
 * ```ts
 * headWithin("ab\ncd\nef", 7, BYTES); // "ab\ncd\n"
 * ```
 */
export function headWithin(text: string, room: number, measure: Measure): string {
  const cut = measure.prefix(text, room);
  if (cut.length === text.length) return cut;
  const newline = cut.lastIndexOf("\n");
  return newline >= cut.length / 2 ? cut.slice(0, newline + 1) : cut;
}

/** The tail of `text` within `room`, starting after a line end when one is in its first half. */
function tail(text: string, room: number, measure: Measure): string {
  // JSON and UTF-8 sizes of a string are the sums of its code points', so a reversed prefix is a suffix.
  const cut = reverse(measure.prefix(reverse(text), room));
  if (cut.length === text.length) return cut;
  const newline = cut.indexOf("\n");
  return newline >= 0 && newline < cut.length / 2 ? cut.slice(newline + 1) : cut;
}

/**
 * Shows `parts` from `from` within `room`: whole when they fit, else the first's head and the last's tail, half each;
 * `gaps` are the ranges between `from` and the end of the last piece that are not shown.
 * @example
 * ```ts
 * windowOutput(0, [{ start: 0, text: "a\nb\nc\n" }], 4, BYTES).gaps; // [{ start: 2, end: 4 }]
 * ```
 */
export function windowOutput(
  from: number,
  parts: readonly Piece[],
  room: number,
  measure: Measure,
): { pieces: Piece[]; gaps: ByteRange[] } {
  let pieces: Piece[] = [...parts];
  if (parts.length > 0 && parts.reduce((sum, part) => sum + measure.size(part.text), 0) > room) {
    const first = parts[0];
    const last = parts[parts.length - 1];
    const lastSize = parts.length > 1 ? measure.size(last.text) : Infinity;
    const headRoom = Math.max(Math.floor(room / 2), room - lastSize);
    const shownHead = headWithin(first.text, headRoom, measure);
    // With one part, the tail is taken from what the head left.
    const rest = parts.length > 1 ? last : {
      start: first.start + byteLength(shownHead),
      text: first.text.slice(shownHead.length),
    };
    const shownTail = tail(rest.text, room - measure.size(shownHead), measure);
    pieces = [
      { start: first.start, text: shownHead },
      { start: rest.start + byteLength(rest.text) - byteLength(shownTail), text: shownTail },
    ].filter((piece) => piece.text.length > 0);
  }
  // Where bytes are left out, the pieces around the gap end and start at line ends when one is near.
  const end = (piece: Piece) => piece.start + byteLength(piece.text);
  pieces = pieces.map((piece, i) => {
    let text = piece.text;
    let start = piece.start;
    if (i < pieces.length - 1 && pieces[i + 1].start > end(piece)) {
      const newline = text.lastIndexOf("\n");
      if (newline >= text.length / 2) text = text.slice(0, newline + 1);
    }
    const before = i === 0 ? from : end(pieces[i - 1]);
    if (start > before) {
      const newline = text.indexOf("\n");
      if (newline >= 0 && newline < text.length / 2 && newline < text.length - 1) {
        start += byteLength(text.slice(0, newline + 1));
        text = text.slice(newline + 1);
      }
    }
    return { start, text };
  });
  const gaps: ByteRange[] = [];
  let at = from;
  for (const piece of pieces) {
    if (piece.start > at) gaps.push({ start: at, end: piece.start });
    at = end(piece);
  }
  return { pieces, gaps };
}
