import { z } from "zod";
import { defineTool } from "./tool.ts";
import { commandResultSchema } from "./command_result.ts";
import { notImplemented } from "./not_implemented.ts";

export const killCommandTool = defineTool({
  name: "kill_command",
  title: "Kill command",
  description:
    "Signal a command's whole process group (TERM by default), wait briefly for it to exit, and report its final status.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({
    command_id: z.string().min(1).describe("The command_id from exec_command."),
    signal: z.enum(["TERM", "KILL", "INT", "HUP"]).default("TERM").describe("Signal to send."),
  }),
  output: commandResultSchema,
  handler: () => notImplemented("kill_command"),
});
