import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { readLines, type ReadLinesResult } from "../files/read_file.ts";
import { dataBudget, MAX_TEXT_BYTES } from "../paging/budget.ts";
import { layoutText, nextCall } from "../paging/text_layout.ts";
import { utf8CutIndex } from "../text/utf8.ts";

/** Default bytes of a page: holds a typical source file whole (docs/results.md), its JSON under 32,000 characters. */
export const DEFAULT_READ_BYTES = 24 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Bytes of a line the text shows when one line alone is over the text bound (the rest follows by byte_offset). */
const LONG_LINE_TEXT_BYTES = MAX_TEXT_BYTES - 1024;

/** Numbered lines (`cat -n` style), then the call that continues after the last one shown (the text bound may cut). */
function render(page: ReadLinesResult, given: Readonly<Record<string, unknown>>): string {
  if (page.lines_returned === 0) {
    return page.total_lines !== null && page.start_line > page.total_lines + 1
      ? `${page.path}: offset ${page.start_line} is past the end of the file (${page.total_lines} lines).`
      : `${page.path}: no lines from line ${page.start_line} (file is ${page.file_size} bytes).`;
  }
  const lines = page.text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const content = lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const facts = [`${page.file_size} bytes`, page.newline === "none" ? null : page.newline, page.bom ? "BOM" : null]
    .filter(Boolean).join(", ");
  // Every continuation names its line and that line's byte: the next page starts there without counting lines.
  const from = (line: number, byte: number) => nextCall("read_file", given, { offset: line, byte_offset: byte });
  const first = encoder.encode(content[0]);
  if (first.length > LONG_LINE_TEXT_BYTES) {
    // One line over the text bound: show its start, continue inside it; its length is known only if the page spans it.
    const shown = utf8CutIndex(first, LONG_LINE_TEXT_BYTES);
    const whole = given.byte_offset === undefined && (page.text.includes("\n") || !page.has_more);
    const next = page.start_byte + shown;
    return [
      `${page.path} line ${page.start_line} is longer than one answer shows: ${shown} bytes of it here` +
      `${whole ? ` (of ${first.length})` : ""}, from byte ${page.start_byte} of the file (${facts}); ` +
      `the call below goes on at byte ${next}.`,
      `${page.start_line}\t${decoder.decode(first.subarray(0, shown))}`,
      from(page.start_line, next),
    ].join("\n");
  }
  const width = String(page.end_line).length;
  const numbered = content.map((line, i) => `${String(page.start_line + i).padStart(width)}\t${line}`);
  return layoutText({
    header: (shown) => `${page.path} lines ${page.start_line}-${page.start_line + shown - 1} (${facts})`,
    items: numbered,
    next: (shown) => {
      if (shown < page.lines_returned) {
        // The lines shown, each with its LF: where the first one not shown starts.
        const skipped = lines.slice(0, shown).reduce((sum, line) => sum + encoder.encode(line).length + 1, 0);
        return from(page.start_line + shown, page.start_byte + skipped);
      }
      return page.has_more ? from(page.next_offset!, page.next_byte_offset!) : null;
    },
  }).text;
}

export const readFileTool = defineTool({
  name: "read_file",
  title: "Read file",
  description:
    "Read a bounded range of a UTF-8 text file by lines, streaming (never the whole file). content shows numbered lines and ends with the exact call that continues; structuredContent.text has the raw lines. While has_more is true, continue with offset=next_offset and byte_offset=next_byte_offset (the next page then starts there at once, however deep in the file; a line longer than a page resumes inside it the same way).",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().describe("File path, relative to the workspace root (or absolute inside it)."),
    offset: z.int().min(1).default(1).describe(
      "1-based line to start at; with byte_offset, the line byte_offset is in (next_offset with next_byte_offset).",
    ),
    limit: z.int().min(1).max(100000).default(2000).describe("Maximum number of lines."),
    max_bytes: z.int().min(1).max(1048576).default(DEFAULT_READ_BYTES).describe(
      "Maximum bytes of text returned (the result ceiling may stop the page sooner).",
    ),
    byte_offset: z.int().min(0).optional().describe(
      "Start at this byte (a previous next_byte_offset, even inside a long line). With offset, that is its line " +
        "number and nothing before it is read; alone, the lines before it are counted.",
    ),
  }),
  output: z.object({
    path: z.string(),
    text: z.string(),
    start_line: z.int(),
    end_line: z.int(),
    lines_returned: z.int(),
    has_more: z.boolean(),
    next_offset: z.int().nullable(),
    next_byte_offset: z.int().nullable(),
    bytes_read: z.int(),
    file_size: z.int(),
    newline: z.enum(["lf", "crlf", "mixed", "none"]),
    bom: z.boolean(),
    truncated_by: z.enum(["lines", "bytes", "result_size"]).nullable(),
    total_lines: z.int().nullable(),
  }),
  handler: async (args, ctx) => {
    const page = await readLines(ctx.workspace, args.path, {
      offset: args.offset,
      limit: args.limit,
      maxBytes: args.max_bytes,
      byteOffset: args.byte_offset,
      // offset has a default: only an offset the caller gave names byte_offset's line.
      lineAtByte: ctx.arguments.offset === undefined ? undefined : args.offset,
      maxChars: dataBudget(ctx.config.maxResultChars),
    });
    const { start_byte: _start, ...data } = page;
    return { text: render(page, ctx.arguments), data };
  },
});
