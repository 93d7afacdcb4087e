import { z } from "zod";
import { defineTool } from "./tool.ts";

export const readOutputTool = defineTool({
  name: "read_output",
  title: "Read command output",
  description:
    "Page a command's retained stdout or stderr by absolute byte offset. Evicted bytes (between the frozen head and the rolling tail) are reported, never silently skipped.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    output_ref: z.string().min(1).describe("command:<id>:stdout or command:<id>:stderr."),
    offset: z.int().min(0).default(0).describe("Absolute byte offset in the stream."),
    limit: z.int().min(1).max(65536).default(4096).describe("Maximum bytes returned."),
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
    const page = ctx.services.commands.read(args.output_ref, args.offset, args.limit, ctx.sessionState.commandIds);
    const gap = page.evicted_gap_bytes > 0
      ? `; ${page.evicted_gap_bytes} evicted bytes skipped before offset ${page.offset}`
      : "";
    const more = page.eof ? "end of stream" : `continue at offset ${page.next_offset}`;
    const header = `${page.output_ref} bytes ${page.offset}-${page.next_offset} of ${page.total_bytes}${gap} ` +
      `(${page.omitted_bytes} bytes evicted in total; ${more})`;
    return Promise.resolve({ text: `${header}\n${page.data}`, data: { ...page } });
  },
});
