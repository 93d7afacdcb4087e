import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import type { OutputPage } from "../exec/views.ts";
import { dataBudget, jsonChars, jsonStringChars, MAX_TEXT_BYTES } from "../paging/budget.ts";
import { nextCall } from "../paging/text_layout.ts";
import { BYTES, headWithin, JSON_CHARS } from "./output_window.ts";

/** A page cut to its first `data`: the offsets after it, and eof only when nothing was cut. */
function cutPage(page: OutputPage, data: string): OutputPage {
  if (data.length === page.data.length) return page;
  return { ...page, data, next_offset: page.offset + BYTES.size(data), eof: false };
}

function render(page: OutputPage, given: Readonly<Record<string, unknown>>): string {
  const header = (shown: OutputPage) => {
    const gap = shown.evicted_gap_bytes > 0
      ? `; ${shown.evicted_gap_bytes} evicted bytes skipped before offset ${shown.offset}`
      : "";
    return `${shown.output_ref} bytes ${shown.offset}-${shown.next_offset} of ${shown.total_bytes}${gap} ` +
      `(${shown.omitted_bytes} bytes evicted in total${shown.eof ? "; end of stream" : ""})`;
  };
  const next = (shown: OutputPage) =>
    shown.eof ? "" : `\n${nextCall("read_output", given, { offset: shown.next_offset })}`;
  // Room for the data besides the longest header and next line (a page only shrinks from here).
  const room = MAX_TEXT_BYTES - BYTES.size(header(page) + next({ ...page, eof: false })) - 64;
  const shown = cutPage(page, headWithin(page.data, room, BYTES));
  return `${header(shown)}\n${shown.data}${next(shown)}`;
}

export const readOutputTool = defineTool({
  name: "read_output",
  title: "Read command output",
  description:
    "Page a command's retained stdout or stderr by absolute byte offset. Evicted bytes (between the frozen head and the rolling tail) are reported, never silently skipped. content ends with the exact call for the next bytes.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    output_ref: z.string().min(1).describe("command:<id>:stdout or command:<id>:stderr."),
    offset: z.int().min(0).default(0).describe("Absolute byte offset in the stream."),
    limit: z.int().min(1).max(65536).default(4096).describe(
      "Maximum bytes returned (the result ceiling may return fewer; next_offset says where to go on).",
    ),
  }),
  output: z.object({
    output_ref: z.string(),
    data: z.string(),
    offset: z.int(),
    next_offset: z.int(),
    eof: z.boolean(),
    total_bytes: z.int(),
    retained: z.array(z.object({ start: z.int(), end: z.int() })),
    evicted_gap_bytes: z.int(),
    omitted_bytes: z.int(),
    command_status: z.enum(["running", "exited"]),
  }),
  handler: (args, ctx) => {
    const read = ctx.services.commands.read(args.output_ref, args.offset, args.limit, ctx.sessionState.commandIds);
    // Data that could not fit the ceiling (control characters take six in JSON) is cut, at a line end if near.
    const room = dataBudget(ctx.config.maxResultChars) - (jsonChars(read) - jsonStringChars(read.data)) - 32;
    const page = cutPage(read, headWithin(read.data, room, JSON_CHARS));
    return Promise.resolve({ text: render(page, ctx.arguments), data: { ...page } });
  },
});
