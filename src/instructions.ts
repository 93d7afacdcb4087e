import type { Config } from "./config.ts";
import { MODE_POLICIES } from "./policy/modes.ts";

/** Upper bound of the instructions text, in UTF-8 bytes. */
export const MAX_INSTRUCTIONS_BYTES = 2000;

/**
 * The `instructions` of initialize: what a model needs before its first call (clients such as Claude Code load them
 * with the tool names, before any definition). Kept under {@linkcode MAX_INSTRUCTIONS_BYTES}.
 */
export function serverInstructions(config: Pick<Config, "mode">, root: string | null): string {
  const policy = MODE_POLICIES[config.mode];
  const workspace = root ?? "the directory server_info names (it is chosen from this client's roots)";
  return [
    `workcell gives you one workspace: ${workspace}. Every path is relative to it (absolute paths only inside it); ` +
    `nothing outside it can be read or written by the file, search and git tools, and results name paths relative ` +
    `to it.`,
    `Mode ${policy.summary}` +
    (policy.grantable.length > 0 ? ` request_permissions can ask the user for: ${policy.grantable.join(", ")}.` : ""),
    "Edit files with apply_patch, not with commands. Long-running commands return a command_id: poll with " +
    "write_stdin (empty chars), stop with kill_command.",
    "Results are capped pages. When one continues, its text ends with the exact call that continues it, " +
    'e.g. next: read_file {"path":"a.ts","offset":256} or next: list_files {"cursor":"…"}; structuredContent ' +
    "has next_offset, next_cursor or next_action. Repeat the call's other arguments unchanged with a cursor " +
    "(a cursor from other arguments is refused). read_output pages a command's retained output by byte offset.",
  ].join("\n");
}
