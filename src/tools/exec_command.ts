import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { readOnlyGitHint } from "../policy/modes.ts";
import { commandOutput, commandResultSchema, maxOutputBytesSchema } from "./command_result.ts";
import { ToolError } from "../errors.ts";
import { waitForCommand } from "./command_wait.ts";

export const execCommandTool = defineTool({
  name: "exec_command",
  title: "Run command",
  description:
    "Run a command in the workspace under the permission mode's policy and wait up to yield_time_ms. Exited: exit code and bounded output. Still running: command_id and a next_action to poll with write_stdin.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  input: z.strictObject({
    cmd: z.string().describe('The command line (not blank), e.g. "deno test -A".'),
    workdir: z.string().default(".").describe("Working directory, relative to the workspace root."),
    yield_time_ms: z.int().min(0).max(300000).default(10000).describe("How long to wait before returning."),
    tty: z.boolean().default(false).describe("Run on a real pseudo-terminal (POSIX only)."),
    env: z.record(z.string(), z.string()).optional().describe("Extra environment variables."),
    max_output_bytes: maxOutputBytesSchema,
  }),
  output: commandResultSchema,
  handler: async (args, ctx) => {
    if (args.cmd.trim() === "") {
      throw new ToolError("INVALID_ARGUMENT", "cmd is empty", {
        hint: 'Pass the command line to run in cmd, e.g. {"cmd":"ls -la"}.',
        details: { field: "cmd" },
      });
    }
    const commands = ctx.services.commands;
    let command;
    {
      using workdir = ctx.workspace.open(args.workdir, { expect: "any" });
      if (workdir.stat.kind !== "dir") {
        throw new ToolError("NOT_A_DIRECTORY", `workdir ${workdir.rel} is not a directory`, {
          details: { field: "workdir", path: workdir.rel },
        });
      }
      const request = { cmd: args.cmd, env: args.env ?? {}, tty: args.tty, grants: ctx.sessionState.grants };
      command = await commands.start(
        { ...request, cwd: workdir.abs, chdir: workdir.childCwd() },
        ctx.sessionState.commandIds,
      );
    }
    await waitForCommand(ctx, command, args.yield_time_ms, false);
    const notFound = commands.notFoundError(command);
    if (notFound) throw notFound;
    const poll = commands.poll(command, args.max_output_bytes);
    const hint = readOnlyGitHint(ctx.config.mode, ctx.sessionState.grants, poll.stderr.text);
    return commandOutput(poll, args.yield_time_ms, ctx.config.maxResultChars, hint);
  },
});
