import { z } from "zod";
import { defineTool } from "./tool.ts";
import { notImplemented } from "./not_implemented.ts";

export const readFileTool = defineTool({
  name: "read_file",
  title: "Read file",
  description:
    "Read a bounded range of a UTF-8 text file by lines, streaming (never the whole file). content shows numbered lines; structuredContent.text has the raw lines. Page with next_offset while has_more is true.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    path: z.string().describe("File path, relative to the workspace root (or absolute inside it)."),
    offset: z.int().min(1).default(1).describe("1-based line to start at."),
    limit: z.int().min(1).max(100000).default(2000).describe("Maximum number of lines."),
    max_bytes: z.int().min(1).max(1048576).default(65536).describe("Maximum bytes of text returned."),
    byte_offset: z.int().min(0).optional().describe(
      "Resume inside a long line at this byte offset (from a previous next_byte_offset).",
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
  }),
  handler: () => notImplemented("read_file"),
});
