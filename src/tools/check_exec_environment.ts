import { z } from "zod";
import { defineTool } from "./tool.ts";
import { MODE_POLICIES } from "../policy/modes.ts";
import { COMMAND_LIMITS } from "../exec/limits.ts";

export const checkExecEnvironmentTool = defineTool({
  name: "check_exec_environment",
  title: "Check exec environment",
  description:
    "Describe how exec_command runs commands here: mode, shell, gates, Landlock sandbox status, stripped environment names, limits and TTY support. Runs nothing.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}),
  output: z.object({
    mode: z.enum(["safe", "trusted", "dangerous"]),
    summary: z.string(),
    execution: z.enum(["argv", "shell"]),
    shell: z.string().nullable(),
    gates: z.array(z.string()),
    landlock: z.object({
      supported: z.boolean(),
      abi: z.int().nullable(),
      enforced: z.boolean(),
      reason: z.string().nullable(),
      writable_roots: z.array(z.string()),
      network_restricted: z.boolean(),
      signals_scoped: z.boolean(),
    }),
    env: z.object({
      stripped: z.array(z.string()),
      added: z.record(z.string(), z.string()),
    }),
    limits: z.object({
      max_active_commands: z.int(),
      max_retained_commands: z.int(),
      per_stream_bytes: z.int(),
      total_output_bytes: z.int(),
      retention_ms: z.int(),
    }),
    tty: z.object({ supported: z.boolean(), reason: z.string().nullable() }),
  }),
  handler: (_args, ctx) => {
    const policy = MODE_POLICIES[ctx.config.mode];
    const { landlock, tty } = ctx.services.facts;
    const data = {
      mode: ctx.config.mode,
      summary: policy.summary,
      execution: policy.execution,
      shell: policy.execution === "shell" ? "/bin/sh" : null,
      gates: [...policy.gates],
      landlock: {
        supported: landlock.abi !== null,
        abi: landlock.abi,
        enforced: false,
        reason: policy.landlock
          ? "the Landlock sandbox for children is not implemented in this build"
          : "dangerous mode runs children without a sandbox",
        writable_roots: [],
        network_restricted: false,
        signals_scoped: false,
      },
      env: { stripped: [], added: {} },
      limits: {
        max_active_commands: COMMAND_LIMITS.maxActiveCommands,
        max_retained_commands: COMMAND_LIMITS.maxRetainedCommands,
        per_stream_bytes: COMMAND_LIMITS.perStreamBytes,
        total_output_bytes: COMMAND_LIMITS.totalOutputBytes,
        retention_ms: COMMAND_LIMITS.retentionMs,
      },
      tty,
    };
    const text = [
      policy.summary,
      `landlock: ${
        data.landlock.supported ? `ABI ${landlock.abi}` : "unsupported"
      }, enforced: no (${data.landlock.reason})`,
      `tty: ${tty.supported ? "supported" : `unsupported (${tty.reason})`}`,
      `limits: ${COMMAND_LIMITS.maxActiveCommands} active, ${COMMAND_LIMITS.maxRetainedCommands} retained, ` +
      `${COMMAND_LIMITS.perStreamBytes} bytes per stream, ${COMMAND_LIMITS.totalOutputBytes} bytes total, retention ${
        COMMAND_LIMITS.retentionMs / 60000
      } min`,
    ].join("\n");
    return Promise.resolve({ text, data });
  },
});
