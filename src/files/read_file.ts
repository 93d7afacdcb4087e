/**
 * Streaming, bounded reads of a UTF-8 text file by line range. Lines split on `\n` only; the text is the range's
 * exact bytes (terminators included, a leading BOM removed), so consecutive pages concatenate to the file.
 */
import { fromOsError, ToolError } from "../errors.ts";
import type { Handle } from "../workspace/handle.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { firstInvalidUtf8, isContinuation, utf8CutIndex, utf8SequenceLength } from "../text/utf8.ts";
import { fitLines, jsonChars, jsonStringChars } from "../paging/budget.ts";
import { joinBytes } from "../text/join_bytes.ts";
import { ChunkReader, countNewlines } from "./chunk_reader.ts";

/** Room left for the fields besides the text changing when the text is shortened (line numbers, offsets). */
const FIT_SLACK_CHARS = 64;

const LF = 0x0a;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf];

/** What to read. */
export interface ReadLinesOptions {
  /** 1-based first line; ignored when `byteOffset` is given. */
  offset: number;
  limit: number;
  maxBytes: number;
  /** Absolute byte position to start at (from a previous `next_byte_offset`). */
  byteOffset?: number;
  /** The line `byteOffset` is in (the last `next_offset`): reading starts there at once; it only sets line numbers. */
  lineAtByte?: number;
  /** Bound on the characters of the whole page's JSON (the result ceiling less the envelope). */
  maxChars?: number;
}

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
  /** Where the next page starts: line `next_offset`'s first byte, or inside it when it was cut; null at the end. */
  next_byte_offset: number | null;
  bytes_read: number;
  file_size: number;
  /** Newline style of the returned lines. */
  newline: "lf" | "crlf" | "mixed" | "none";
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
 * Reads a page of lines of the regular file `input`; throws NOT_A_FILE for other kinds, NOT_UTF8 with the byte offset.
 * @example
 * ```ts
 * declare const ws: import("../workspace/workspace.ts").Workspace;
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
  const { byteOffset } = options;
  // A UTF-8 byte is at least a third of a JSON character: more bytes than that could never fit the ceiling.
  const maxBytes = options.maxChars === undefined ? options.maxBytes : Math.min(options.maxBytes, 3 * options.maxChars);
  if (byteOffset !== undefined && byteOffset > size) {
    throw invalidByteOffset(byteOffset, `is past the end of the file (${size} bytes)`);
  }
  // A known line at a known byte: nothing before it is read but the first three bytes (the BOM).
  const jump = byteOffset !== undefined && options.lineAtByte !== undefined && byteOffset > 0 && byteOffset < size;
  const reader = new ChunkReader(file, jump ? byteOffset : 0);
  const headBom = jump && startsWithBom(await reader.peek(0, BOM.length));
  const found = await findRangeStart(reader, options, jump ? options.lineAtByte! : 1);
  const bom = headBom || found.bom;
  if (found.start === null) {
    const totalLines = found.line - 1 + (found.lastByte >= 0 && found.lastByte !== LF ? 1 : 0);
    const line = byteOffset === undefined ? options.offset : found.line;
    const facts: PageFacts = { rel, size, bom, bytesRead: reader.bytesRead, line, start: size };
    const empty: Range = { bytes: new Uint8Array(0), lines: 0, cutLine: false, truncatedBy: null };
    return { ...pageOf(facts, "", empty), total_lines: totalLines };
  }
  if (byteOffset !== undefined && !reader.exhausted && isContinuation(reader.chunk[reader.at])) {
    throw invalidByteOffset(byteOffset, "falls inside a UTF-8 character");
  }
  const byBytes = maxBytes < options.maxBytes ? "result_size" : "bytes";
  const range = await collectRange(reader, options.limit, maxBytes, byBytes);
  const invalid = firstInvalidUtf8(range.bytes);
  if (invalid >= 0) {
    const badLine = found.line + countNewlines(range.bytes, 0, invalid);
    const at = found.start + invalid;
    throw new ToolError("NOT_UTF8", `${rel} is not valid UTF-8: byte ${at} (line ${badLine})`, {
      details: { path: rel, byte_offset: at, line: badLine },
    });
  }
  const facts: PageFacts = { rel, size, bom, bytesRead: reader.bytesRead, line: found.line, start: found.start };
  const whole = pageOf(facts, new TextDecoder().decode(range.bytes), range);
  const over = options.maxChars === undefined ? 0 : jsonChars(whole) - options.maxChars;
  if (over <= 0) return whole;
  const fitted = fitLines(whole.text, jsonStringChars(whole.text) - over - FIT_SLACK_CHARS);
  const bytes = new TextEncoder().encode(fitted.text);
  return pageOf(facts, fitted.text, { bytes, lines: fitted.lines, cutLine: fitted.cut, truncatedBy: "result_size" });
}

function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= BOM.length && BOM.every((byte, k) => bytes[k] === byte);
}

interface RangeStart {
  /** The number of the line the range starts in; when the file ends first, one past the lines counted. */
  line: number;
  /** The file position where the returned text starts; null when the file ends before the range. */
  start: number | null;
  bom: boolean;
  /** The file's last byte when it ends before the range (-1 for an empty file). */
  lastByte: number;
}

/** The skip phase: counts lines from `line` (the reader's start) to the range's start, leaving the scan there. */
async function findRangeStart(reader: ChunkReader, options: ReadLinesOptions, line: number): Promise<RangeStart> {
  const { byteOffset } = options;
  let bom = false;
  let lastByte = -1;
  for (;;) {
    if (reader.exhausted) {
      if (!(await reader.next())) return { line, start: null, bom, lastByte };
      if (reader.base === 0 && startsWithBom(reader.chunk)) {
        bom = true;
        if (byteOffset === undefined) reader.at = BOM.length;
      }
    }
    const { chunk, base } = reader;
    if (byteOffset !== undefined) {
      const stop = Math.min(chunk.length, byteOffset - base);
      line += countNewlines(chunk, reader.at, stop);
      reader.at = stop;
      if (stop < chunk.length || base + chunk.length === byteOffset) return { line, start: byteOffset, bom, lastByte };
    } else {
      const inChunk = line < options.offset ? countNewlines(chunk, reader.at, chunk.length) : 0;
      if (line + inChunk < options.offset) {
        line += inChunk;
        reader.at = chunk.length;
      }
      while (line < options.offset && reader.at < chunk.length) {
        const at = chunk.indexOf(LF, reader.at);
        if (at < 0) break;
        line++;
        reader.at = at + 1;
      }
      if (line === options.offset) return { line, start: base + reader.at, bom, lastByte };
      reader.at = chunk.length;
    }
    lastByte = chunk[chunk.length - 1];
  }
}

interface Range {
  bytes: Uint8Array;
  lines: number;
  /** The range is the start of a line longer than `maxBytes`, cut on a character boundary. */
  cutLine: boolean;
  truncatedBy: ReadLinesResult["truncated_by"];
}

/** The collect phase: whole lines while they fit `limit` and `maxBytes`, or the first line cut if it alone does not. */
async function collectRange(
  reader: ChunkReader,
  limit: number,
  maxBytes: number,
  byBytes: "bytes" | "result_size",
): Promise<Range> {
  const parts: Uint8Array[] = [];
  let kept = 0; // bytes in parts
  let committed = 0; // bytes of complete lines in parts
  let lines = 0;
  let truncatedBy: Range["truncatedBy"] = null;
  // Kept bytes of the current chunk are copied once per chunk, not line by line: from `from` to the scan position.
  let from = reader.at;
  const flush = () => {
    if (reader.at > from) parts.push(reader.chunk.slice(from, reader.at));
    from = reader.at;
  };
  for (;;) {
    if (reader.exhausted) {
      flush();
      if (!(await reader.next())) {
        if (kept > committed) lines++; // a last line without a final newline
        committed = kept;
        break;
      }
      from = 0;
    }
    const { chunk, at: i } = reader;
    const at = chunk.indexOf(LF, i);
    const segmentEnd = at < 0 ? chunk.length : at + 1;
    if (kept + segmentEnd - i > maxBytes) {
      flush();
      truncatedBy = byBytes;
      if (lines > 0) break;
      // The first line alone is longer than maxBytes: cut it on a character boundary.
      const joined = joinBytes([...parts, chunk.slice(i, Math.min(segmentEnd, i + maxBytes - kept + 4))]);
      let cut = utf8CutIndex(joined, maxBytes);
      if (cut === 0) cut = Math.min(joined.length, utf8SequenceLength(joined[0]));
      return { bytes: joined.subarray(0, cut), lines: 1, cutLine: true, truncatedBy };
    }
    kept += segmentEnd - i;
    reader.at = segmentEnd;
    if (at >= 0) {
      lines++;
      committed = kept;
      if (lines === limit) {
        truncatedBy = "lines"; // pageOf drops it when the file ends here
        break;
      }
    }
  }
  flush();
  return { bytes: joinBytes(parts).subarray(0, committed), lines, cutLine: false, truncatedBy };
}

interface PageFacts {
  rel: string;
  size: number;
  bom: boolean;
  bytesRead: number;
  line: number;
  start: number;
}

function pageOf(facts: PageFacts, text: string, range: Range): ReadLinesResult {
  const { line, start, size } = facts;
  const { bytes, lines, cutLine } = range;
  const endPos = start + bytes.length;
  const hasMore = endPos < size;
  let crlf = 0;
  for (let at = bytes.indexOf(LF); at >= 0; at = bytes.indexOf(LF, at + 1)) if (at > 0 && bytes[at - 1] === CR) crlf++;
  const lf = countNewlines(bytes, 0, bytes.length) - crlf;
  return {
    path: facts.rel,
    text,
    start_line: line,
    end_line: line + lines - 1,
    lines_returned: lines,
    has_more: hasMore,
    next_offset: hasMore ? (cutLine ? line : line + lines) : null,
    next_byte_offset: hasMore ? endPos : null,
    bytes_read: facts.bytesRead,
    file_size: size,
    newline: lf + crlf === 0 ? "none" : lf === 0 ? "crlf" : crlf === 0 ? "lf" : "mixed",
    bom: facts.bom,
    truncated_by: hasMore ? range.truncatedBy : null,
    total_lines: hasMore ? null : line + lines - 1,
    start_byte: start,
  };
}
