import type { Command } from "../exec/command.ts";
import { SETTLE_MS } from "../exec/registry.ts";
import type { ToolContext } from "./tool.ts";

/** How long to wait and whether to return once the program has answered. */
export interface CommandWait {
  yieldMs: number;
  /** Return after new output followed by SETTLE_MS of quiet (write_stdin), not only on exit. */
  settle: boolean;
}

/**
 * Waits for `command`; a cancelled call kills and reaps its process group, so nothing it started outlives it unseen.
 * @example
 * ```ts
 * declare const ctx: import("./tool.ts").ToolContext;
 * declare const command: import("../exec/command.ts").Command;
 * await waitForCommand(ctx, command, { yieldMs: 10_000, settle: false });
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
