/**
 * How exec_command and write_stdin wait for a command on behalf of a call:
 * progress notifications while waiting, and when the client cancels the
 * call (`notifications/cancelled`) the command's process group is killed and
 * reaped, so nothing the call started outlives it unseen. The command stays
 * in the registry: its output is readable by id and check_exec_environment
 * lists it.
 *
 * @example
 * ```ts
 * import type { Command } from "../exec/command.ts";
 * import type { ToolContext } from "./tool.ts";
 *
 * declare const ctx: ToolContext; // the call's
 * declare const command: Command; // the command it started or polls
 * await waitForCommand(ctx, command, { yieldMs: 10_000, settle: true });
 * ```
 */
import type { Command } from "../exec/command.ts";
import { SETTLE_MS } from "../exec/registry.ts";
import type { ToolContext } from "./tool.ts";

/** How long to wait and whether to return once the program has answered. */
export interface CommandWait {
  yieldMs: number;
  /** Return after new output followed by {@linkcode SETTLE_MS} of quiet (write_stdin), not only on exit. */
  settle: boolean;
}

/**
 * Waits for `command`; a cancelled call kills and reaps it and says so on stderr.
 *
 * @example
 * ```ts
 * import type { Command } from "../exec/command.ts";
 * import type { ToolContext } from "./tool.ts";
 *
 * declare const ctx: ToolContext; // the call's
 * declare const command: Command; // the command it started or polls
 * await waitForCommand(ctx, command, { yieldMs: 10_000, settle: false }); // exec_command: until exit or yield
 * ```
 */
export async function waitForCommand(ctx: ToolContext, command: Command, wait: CommandWait): Promise<void> {
  const commands = ctx.services.commands;
  await commands.wait(command, wait.yieldMs, {
    signal: ctx.signal,
    settleMs: wait.settle ? SETTLE_MS : undefined,
    onProgress: (elapsed) =>
      void ctx.progress(Math.round(elapsed), wait.yieldMs, `running ${command.id}`).catch(() => {}),
  });
  if (!ctx.signal.aborted || command.status === "exited") return;
  await commands.kill(command, "KILL");
  console.error(
    `workcell: the client cancelled the call waiting for command ${command.id} (${JSON.stringify(command.cmd)}); ` +
      `its process group was killed (${command.exit !== null ? "and reaped" : "not reaped yet"}); ` +
      `its output stays readable as command:${command.id}:stdout and command:${command.id}:stderr`,
  );
}
