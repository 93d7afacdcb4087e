/**
 * The limits and budgets table, quoted from the constants of the modules
 * that enforce them.
 */
import { COMMAND_LIMITS } from "../exec/limits.ts";
import { MAX_TEXT_BYTES } from "../envelope.ts";
import { MAX_COMPONENT_BYTES, MAX_PATH_BYTES } from "../workspace/confine.ts";
import { EXCERPT_BYTES } from "../project/context.ts";

/** [what, value, enforced in]. */
const LIMITS: readonly [string, string, string][] = [
  ["model-facing `content` text per result", `${MAX_TEXT_BYTES} bytes`, "src/envelope.ts"],
  ["path length", `${MAX_PATH_BYTES} bytes`, "src/workspace/confine.ts"],
  ["path component length", `${MAX_COMPONENT_BYTES} bytes`, "src/workspace/confine.ts"],
  ["instruction file excerpt in server_info", `${EXCERPT_BYTES} bytes each`, "src/project/context.ts"],
  ["active commands", `${COMMAND_LIMITS.maxActiveCommands}`, "src/exec/limits.ts"],
  ["retained completed commands", `${COMMAND_LIMITS.maxRetainedCommands}`, "src/exec/limits.ts"],
  ["retained output per stream", `${COMMAND_LIMITS.perStreamBytes} bytes`, "src/exec/limits.ts"],
  ["retained output in total", `${COMMAND_LIMITS.totalOutputBytes} bytes`, "src/exec/limits.ts"],
  ["retention after exit", `${COMMAND_LIMITS.retentionMs / 60000} min`, "src/exec/limits.ts"],
];

/** The limits table. */
export function renderLimits(): string {
  return [
    "| limit | value | enforced in |",
    "| --- | --- | --- |",
    ...LIMITS.map(([what, value, where]) => `| ${what} | ${value} | \`${where}\` |`),
  ].join("\n");
}
