/**
 * Streaming, bounded reads of a UTF-8 text file by line range. The file is
 * read in growing chunks (64 KiB doubling to 1 MiB, the buffer growing with them): lines before the range are
 * only counted, reading stops at the end of the range, and what is kept is
 * at most `maxBytes`, so memory stays flat whatever the file's size.
 *
 * Lines are split on `\n` only; a final line without `\n` is a line. The
 * returned text is the exact bytes of the range (terminators included, a
 * leading BOM removed), so consecutive pages concatenate to the file.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * const page = await readLines(ws, "big.log", { offset: 1, limit: 2000, maxBytes: 65536 });
 * if (page.has_more) await readLines(ws, "big.log", { offset: page.next_offset!, limit: 2000, maxBytes: 65536 });
 * ```
 */
import { fromOsError, ToolError } from "../errors.ts";
import type { Handle } from "../workspace/handle.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { firstInvalidUtf8, utf8CutIndex, utf8SequenceLength } from "../text/utf8.ts";
import { fitLines, jsonChars, jsonStringChars } from "../paging/budget.ts";
import { joinBytes } from "../text/join_bytes.ts";

/** Largest read from disk (the buffer grows to this size, then is reused). */
export const READ_CHUNK_BYTES = 1024 * 1024;
/** The first read; each next one doubles up to READ_CHUNK_BYTES, so small ranges read little past their end. */
export const FIRST_READ_BYTES = 64 * 1024;

/** Room left for the fields besides the text changing when the text is shortened (line numbers, offsets). */
const FIT_SLACK_CHARS = 64;

const LF = 0x0a;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf];

/** What to read. */
export interface ReadLinesOptions {
  /** 1-based first line; ignored when `byteOffset` is given. */
  offset: number;
  /** Maximum number of lines. */
  limit: number;
  /** Maximum bytes of text returned. */
  maxBytes: number;
  /** Absolute byte position to start at (from a previous `next_byte_offset`). */
  byteOffset?: number;
  /**
   * The number of the line `byteOffset` is in, as the previous page's `next_offset` gave it: the read then
   * starts at `byteOffset` at once (O(page) deep in a large file). Without it the lines before `byteOffset`
   * are counted from the start of the file. It is taken as given: it decides the line numbers reported,
   * never which bytes are read.
   */
  lineAtByte?: number;
  /** Bound on the characters of the whole page's JSON (the result ceiling less the envelope). */
  maxChars?: number;
}

/** Newline style of the returned lines. */
export type NewlineStyle = "lf" | "crlf" | "mixed" | "none";

/** One page of a file. */
export interface ReadLinesResult {
  path: string;
  text: string;
  start_line: number;
  end_line: number;
  lines_returned: number;
  has_more: boolean;
  /** The line to pass as `offset` for the next page; null at the end of the file. */
  next_offset: number | null;
  /**
   * Where the next page starts: the first byte of line `next_offset`, or inside it when the last returned line
   * was cut at `maxBytes`. Passed back as `byteOffset` with `next_offset` as `lineAtByte`, the next page
   * costs O(page) wherever it is in the file; null at the end of the file.
   */
  next_byte_offset: number | null;
  /** Bytes read from disk for this page. */
  bytes_read: number;
  file_size: number;
  newline: NewlineStyle;
  bom: boolean;
  /** What ended the page: the line limit, max_bytes, or the result ceiling (`maxChars`). */
  truncated_by: "lines" | "bytes" | "result_size" | null;
  /** Lines in the file; known only when the read went to the end of it (e.g. an offset past the end). */
  total_lines: number | null;
  /** Absolute byte position where `text` starts (for resuming inside the first line). */
  start_byte: number;
}

function invalidByteOffset(byteOffset: number, why: string): ToolError {
  return new ToolError("INVALID_ARGUMENT", `byte_offset ${byteOffset} ${why}`, {
    hint: "Pass next_byte_offset exactly as a previous read_file returned it.",
    details: { field: "byte_offset" },
  });
}

/**
 * Reads one page of lines from the regular file `input` of the workspace (opened by Workspace.open, read through its handle).
 * Throws NOT_A_FILE for directories and special files, NOT_UTF8 with the offending byte offset.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * using ws = openWorkspace(Deno.cwd());
 * await readLines(ws, "a.txt", { offset: 10, limit: 5, maxBytes: 65536 }); // lines 10-14
 * ```
 */
export async function readLines(ws: Workspace, input: string, options: ReadLinesOptions): Promise<ReadLinesResult> {
  using file = ws.open(input, { expect: "file" });
  try {
    return await readOpenLines(file, options);
  } catch (error) {
    throw fromOsError(error, file.rel);
  }
}

async function readOpenLines(file: Handle, options: ReadLinesOptions): Promise<ReadLinesResult> {
  const { rel, stat: { size } } = file;
  const { limit, byteOffset } = options;
  // A UTF-8 byte is at least a third of a JSON character: more bytes than that could never fit the ceiling.
  const maxBytes = options.maxChars === undefined ? options.maxBytes : Math.min(options.maxBytes, 3 * options.maxChars);
  if (byteOffset !== undefined && byteOffset > size) {
    throw invalidByteOffset(byteOffset, `is past the end of the file (${size} bytes)`);
  }
  // Grown with the reads (a 1 MiB buffer zeroed for every small file cost more than reading it).
  let buffer = new Uint8Array(FIRST_READ_BYTES);
  let want = FIRST_READ_BYTES;
  let bytesRead = 0;
  /** File position of buffer[0]. */
  let base = 0;
  let bom = false;
  // A known line at a known byte: nothing before it is read but the first three bytes (the BOM).
  const jump = byteOffset !== undefined && options.lineAtByte !== undefined && byteOffset > 0 && byteOffset < size;
  if (jump) {
    const head = buffer.subarray(0, BOM.length);
    const n = await file.read(head, 0);
    bytesRead += n;
    bom = n === BOM.length && BOM.every((byte, k) => head[k] === byte);
    base = byteOffset;
  }

  // Skip phase: count lines until the range starts.
  let line = jump ? options.lineAtByte! : 1;
  let lastByte = -1;
  let startPos = -1; // absolute position where the returned text starts
  let chunk = new Uint8Array(0);
  let i = 0;
  while (startPos < 0) {
    if (i >= chunk.length) {
      base += chunk.length;
      if (buffer.length < want) buffer = new Uint8Array(want);
      const n = await file.read(buffer.subarray(0, want), base);
      want = Math.min(READ_CHUNK_BYTES, want * 2);
      if (n === 0) break;
      bytesRead += n;
      chunk = buffer.subarray(0, n);
      i = 0;
      if (!jump && base === 0 && n >= 3 && chunk[0] === BOM[0] && chunk[1] === BOM[1] && chunk[2] === BOM[2]) {
        bom = true;
        if (byteOffset === undefined) i = 3;
      }
    }
    if (byteOffset !== undefined) {
      const stop = Math.min(chunk.length, byteOffset - base);
      line += countNewlines(chunk, i, stop);
      if (stop < chunk.length || base + chunk.length === byteOffset) {
        i = stop;
        startPos = byteOffset;
      } else i = chunk.length;
    } else {
      const inChunk = line < options.offset ? countNewlines(chunk, i, chunk.length) : 0;
      if (line + inChunk < options.offset) {
        // The range starts in a later chunk: count this one in bulk.
        line += inChunk;
        i = chunk.length;
      }
      while (line < options.offset && i < chunk.length) {
        const at = chunk.indexOf(LF, i);
        if (at < 0) break;
        line++;
        i = at + 1;
      }
      if (line === options.offset) startPos = base + i;
      else i = chunk.length;
    }
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1];
  }
  if (startPos < 0) {
    // The file ends before the range starts.
    const totalLines = line - 1 + (lastByte >= 0 && lastByte !== LF ? 1 : 0);
    return emptyPage(rel, byteOffset === undefined ? options.offset : line, size, bytesRead, bom, totalLines);
  }
  if (byteOffset !== undefined && i < chunk.length && (chunk[i] & 0xc0) === 0x80) {
    throw invalidByteOffset(byteOffset, "falls inside a UTF-8 character");
  }

  // Collect phase: whole lines while they fit.
  const parts: Uint8Array[] = [];
  let kept = 0; // bytes in parts
  let committed = 0; // bytes of complete lines in parts
  let lines = 0;
  let truncatedBy: ReadLinesResult["truncated_by"] = null;
  let endPos = -1; // absolute position after the returned text
  let cutLine = false;
  // Kept bytes of the current chunk are copied once per chunk, not line by line: from `from` to `i`.
  let from = i;
  const flush = () => {
    if (i > from) parts.push(chunk.slice(from, i));
    from = i;
  };
  while (endPos < 0) {
    if (i >= chunk.length) {
      flush();
      base += chunk.length;
      if (buffer.length < want) buffer = new Uint8Array(want);
      const n = await file.read(buffer.subarray(0, want), base);
      want = Math.min(READ_CHUNK_BYTES, want * 2);
      if (n === 0) {
        if (kept > committed) lines++; // a last line without a final newline
        committed = kept;
        endPos = base;
        break;
      }
      bytesRead += n;
      chunk = buffer.subarray(0, n);
      i = from = 0;
    }
    const at = chunk.indexOf(LF, i);
    const segmentEnd = at < 0 ? chunk.length : at + 1;
    if (kept + segmentEnd - i > maxBytes) {
      flush();
      truncatedBy = maxBytes < options.maxBytes ? "result_size" : "bytes";
      if (lines > 0) {
        endPos = startPos + committed;
      } else {
        // The first line alone is longer than maxBytes: cut it on a character boundary.
        const head = chunk.slice(i, Math.min(segmentEnd, i + maxBytes - kept + 4));
        parts.push(head);
        const joined = joinBytes(parts);
        let cut = utf8CutIndex(joined, maxBytes);
        if (cut === 0) cut = Math.min(joined.length, utf8SequenceLength(joined[0]));
        parts.length = 0;
        parts.push(joined.subarray(0, cut));
        committed = kept = cut;
        lines = 1;
        cutLine = true;
        endPos = startPos + cut;
      }
      break;
    }
    kept += segmentEnd - i;
    if (at >= 0) {
      lines++;
      committed = kept;
      if (lines === limit) {
        endPos = base + segmentEnd;
        truncatedBy = endPos < size ? "lines" : null;
      }
    }
    i = segmentEnd;
  }
  flush();
  const bytes = joinBytes(parts).subarray(0, committed);
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0) {
    const badLine = line + count(bytes.subarray(0, invalid), LF);
    throw new ToolError("NOT_UTF8", `${rel} is not valid UTF-8: byte ${startPos + invalid} (line ${badLine})`, {
      details: { path: rel, byte_offset: startPos + invalid, line: badLine },
    });
  }
  const page = (text: string, bytes: Uint8Array, lines: number, cutLine: boolean): ReadLinesResult => {
    const endPos = startPos + bytes.length;
    const hasMore = endPos < size;
    const crlf = countCrlf(bytes);
    const lf = count(bytes, LF) - crlf;
    return {
      path: rel,
      text,
      start_line: line,
      end_line: line + lines - 1,
      lines_returned: lines,
      has_more: hasMore,
      next_offset: hasMore ? (cutLine ? line : line + lines) : null,
      next_byte_offset: hasMore ? endPos : null,
      bytes_read: bytesRead,
      file_size: size,
      newline: lf + crlf === 0 ? "none" : lf === 0 ? "crlf" : crlf === 0 ? "lf" : "mixed",
      bom,
      truncated_by: hasMore ? truncatedBy : null,
      total_lines: hasMore ? null : line + lines - 1,
      start_byte: startPos,
    };
  };
  const whole = page(new TextDecoder().decode(bytes), bytes, lines, cutLine);
  const over = options.maxChars === undefined ? 0 : jsonChars(whole) - options.maxChars;
  if (over <= 0) return whole;
  // Keep what fits of the text; the other fields change by a few digits at most.
  const fitted = fitLines(whole.text, jsonStringChars(whole.text) - over - FIT_SLACK_CHARS);
  truncatedBy = "result_size";
  return page(fitted.text, new TextEncoder().encode(fitted.text), fitted.lines, fitted.cut);
}

/** Number of CR LF pairs in `bytes`. */
function countCrlf(bytes: Uint8Array): number {
  let n = 0;
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, at + 1)) if (at > 0 && bytes[at - 1] === CR) n++;
  return n;
}

function emptyPage(
  rel: string,
  offset: number,
  size: number,
  bytesRead: number,
  bom: boolean,
  totalLines: number,
): ReadLinesResult {
  return {
    path: rel,
    text: "",
    start_line: offset,
    end_line: offset - 1,
    lines_returned: 0,
    has_more: false,
    next_offset: null,
    next_byte_offset: null,
    bytes_read: bytesRead,
    file_size: size,
    newline: "none",
    bom,
    truncated_by: null,
    total_lines: totalLines,
    start_byte: size,
  };
}

/**
 * Number of `\n` bytes in `bytes[from, to)`, four bytes at a time: for each 32-bit word, the high bit of
 * every byte that equals 0x0a is set exactly (no carries cross bytes), then those bits are counted.
 */
function countNewlines(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  let at = from;
  const head = Math.min(to, (bytes.byteOffset + at + 3 & ~3) - bytes.byteOffset);
  for (; at < head; at++) if (bytes[at] === LF) n++;
  const words = Math.max(0, (to - at) >> 2);
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + at, words);
    for (let k = 0; k < words; k++) {
      const x = view[k] ^ 0x0a0a0a0a;
      const hit = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
      if (hit !== 0) n += ((hit >>> 7) & 1) + ((hit >>> 15) & 1) + ((hit >>> 23) & 1) + ((hit >>> 31) & 1);
    }
    at += words * 4;
  }
  for (; at < to; at++) if (bytes[at] === LF) n++;
  return n;
}

function count(bytes: Uint8Array, byte: number): number {
  let n = 0;
  for (let at = bytes.indexOf(byte); at >= 0; at = bytes.indexOf(byte, at + 1)) n++;
  return n;
}
