import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { commandOutput, commandResultSchema, DEFAULT_PREVIEW_BYTES } from "./command_result.ts";

/** yield_time_ms suggested for polling a command that outlived its signal. */
const POLL_YIELD_MS = 10000;

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
  handler: async (args, ctx) => {
    const commands = ctx.services.commands;
    const command = commands.get(args.command_id, ctx.sessionState.commandIds);
    await commands.kill(command, args.signal);
    return commandOutput(commands.poll(command, DEFAULT_PREVIEW_BYTES), POLL_YIELD_MS, ctx.config.maxResultChars);
  },
});
