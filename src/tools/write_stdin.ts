import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { readOnlyGitHint } from "../policy/modes.ts";
import { commandOutput, commandResultSchema, maxOutputBytesSchema } from "./command_result.ts";
import { waitForCommand } from "./command_wait.ts";

export const writeStdinTool = defineTool({
  name: "write_stdin",
  title: "Write to / poll command",
  description:
    "Write chars to a running command's stdin (empty chars: just poll) and return the output produced since the last poll, as soon as the program has answered (new output, then a short quiet interval), on exit, or at yield_time_ms at the latest. close_stdin:true sends end-of-file (closes the pipe; on a TTY sends Ctrl-D).",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z.strictObject({
    command_id: z.string().min(1).describe("The command_id from exec_command."),
    chars: z.string().default("").describe("Text to write; empty to poll."),
    yield_time_ms: z.int().min(0).max(300000).default(10000).describe("The longest wait for an answer or exit."),
    close_stdin: z.boolean().default(false).describe("Close stdin after writing (end-of-file)."),
    max_output_bytes: maxOutputBytesSchema,
  }),
  output: commandResultSchema,
  handler: async (args, ctx) => {
    const commands = ctx.services.commands;
    const command = commands.get(args.command_id, ctx.sessionState.commandIds);
    commands.write(command, args.chars, args.close_stdin);
    await waitForCommand(ctx, command, args.yield_time_ms, true);
    const poll = commands.poll(command, args.max_output_bytes);
    const hint = readOnlyGitHint(ctx.config.mode, ctx.sessionState.grants, poll.stderr.text);
    return commandOutput(poll, args.yield_time_ms, ctx.config.maxResultChars, hint);
  },
});
