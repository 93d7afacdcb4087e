import { z } from "zod";
import { defineTool } from "./tool.ts";
import { readLines, type ReadLinesResult } from "../files/read_file.ts";

/** The agent-facing page: a header, then numbered lines (`cat -n` style). */
function render(page: ReadLinesResult): string {
  if (page.lines_returned === 0) {
    return page.total_lines !== null && page.start_line > page.total_lines + 1
      ? `${page.path}: offset ${page.start_line} is past the end of the file (${page.total_lines} lines).`
      : `${page.path}: no lines from line ${page.start_line} (file is ${page.file_size} bytes).`;
  }
  const lines = page.text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const width = String(page.end_line).length;
  const numbered = lines.map((line, i) =>
    `${String(page.start_line + i).padStart(width)}\t${line.endsWith("\r") ? line.slice(0, -1) : line}`
  );
  const facts = [`${page.file_size} bytes`, page.newline === "none" ? null : page.newline, page.bom ? "BOM" : null]
    .filter(Boolean).join(", ");
  const header = `${page.path} lines ${page.start_line}-${page.end_line} (${facts})`;
  let footer = "";
  if (page.next_byte_offset !== null) {
    footer = `\n[line ${page.end_line} continues: call again with byte_offset=${page.next_byte_offset}]`;
  } else if (page.has_more) {
    footer = `\n[more: call again with offset=${page.next_offset}${
      page.truncated_by === "bytes" ? " (stopped at max_bytes)" : ""
    }]`;
  }
  return `${header}\n${numbered.join("\n")}${footer}`;
}

export const readFileTool = defineTool({
  name: "read_file",
  title: "Read file",
  description:
    "Read a bounded range of a UTF-8 text file by lines, streaming (never the whole file). content shows numbered lines; structuredContent.text has the raw lines. Page with next_offset while has_more is true; a line longer than max_bytes is cut and resumes with byte_offset=next_byte_offset.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().describe("File path, relative to the workspace root (or absolute inside it)."),
    offset: z.int().min(1).default(1).describe("1-based line to start at."),
    limit: z.int().min(1).max(100000).default(2000).describe("Maximum number of lines."),
    max_bytes: z.int().min(1).max(1048576).default(65536).describe("Maximum bytes of text returned."),
    byte_offset: z.int().min(0).optional().describe(
      "Resume inside a long line at this byte offset (a previous next_byte_offset); offset is then ignored.",
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
    truncated_by: z.enum(["lines", "bytes"]).nullable(),
    total_lines: z.int().nullable(),
  }),
  handler: async (args, ctx) => {
    const page = await readLines(ctx.workspace, args.path, {
      offset: args.offset,
      limit: args.limit,
      maxBytes: args.max_bytes,
      byteOffset: args.byte_offset,
    });
    return { text: render(page), data: { ...page } };
  },
});
