import type { Command } from "../exec/command.ts";
import { SETTLE_MS } from "../exec/registry.ts";
import type { ToolContext } from "./tool.ts";

/**
 * Waits up to `yieldMs` for `command` to exit, or with `settle` (write_stdin) for new output then SETTLE_MS of quiet;
 * a cancelled call kills and reaps its process group, so nothing it started outlives it unseen.
 * @example
 * ```ts
 * declare const ctx: import("./tool.ts").ToolContext;
 * declare const command: import("../exec/command.ts").Command;
 * await waitForCommand(ctx, command, 10_000, false);
 * ```
 */
export async function waitForCommand(
  ctx: ToolContext,
  command: Command,
  yieldMs: number,
  settle: boolean,
): Promise<void> {
  const commands = ctx.services.commands;
  await commands.wait(command, yieldMs, {
    signal: ctx.signal,
    settleMs: settle ? SETTLE_MS : undefined,
    onProgress: (elapsed) => void ctx.progress(Math.round(elapsed), yieldMs, `running ${command.id}`).catch(() => {}),
  });
  if (!ctx.signal.aborted || command.status === "exited") return;
  await commands.kill(command, "KILL");
  console.error(
    `workcell: the client cancelled the call waiting for command ${command.id} (${JSON.stringify(command.cmd)}); ` +
      `its process group was killed (${command.exit !== null ? "and reaped" : "not reaped yet"}); ` +
      `its output stays readable as command:${command.id}:stdout and command:${command.id}:stderr`,
  );
}
