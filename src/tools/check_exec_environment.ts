import { z } from "zod";
import { defineTool } from "./tool.ts";
import { gatesInForce, MODE_POLICIES } from "../policy/modes.ts";
import { SHELL } from "../policy/command_policy.ts";
import { ENV_ALLOWLIST, ENV_ALLOWLIST_PREFIXES } from "../policy/env_filter.ts";
import { COMMAND_LIMITS } from "../exec/limits.ts";
import type { SandboxDescription } from "../policy/child_policy.ts";

const sandboxSchema = z.object({
  enforced: z.boolean(),
  layers: z.array(z.string()).describe("Kernel layers in force: landlock, seccomp, mount namespace, capabilities."),
  writes: z.union([z.literal("anywhere"), z.array(z.string())]).describe("Trees it may write beneath."),
  reads: z.union([z.literal("anywhere"), z.literal("all but credential stores"), z.array(z.string())]),
  executes: z.union([z.literal("anything"), z.array(z.string())]),
  network: z.enum(["allowed", "denied", "TCP denied, other protocols allowed (no seccomp filter)"]),
  signals_scoped: z.boolean().describe("It can signal only itself and its own children (not the server)."),
  read_only: z.array(z.string()).describe("Paths it sees read-only: the workspace's git dirs in safe mode."),
  capabilities_dropped: z.boolean(),
});

/** One line per kind of child for the text. */
function describeChild(name: string, child: SandboxDescription): string {
  if (!child.enforced) return `${name}: NO sandbox (the server's own rights)`;
  const list = (value: string | string[]) => (typeof value === "string" ? value : value.join(", ") || "nowhere");
  return `${name}: ${child.layers.join(" + ")}; writes ${list(child.writes)}; reads ${list(child.reads)}; ` +
    `executes ${list(child.executes)}; network ${child.network}` +
    (child.read_only.length > 0 ? `; read-only ${child.read_only.join(", ")}` : "") +
    (child.capabilities_dropped ? "; no capabilities" : "");
}

export const checkExecEnvironmentTool = defineTool({
  name: "check_exec_environment",
  title: "Check exec environment",
  description:
    "Describe how exec_command runs commands here: mode, shell, gates, what the kernel enforces on commands, git and rg (Landlock, seccomp, mount namespace, capabilities), stripped environment names, limits and TTY support. Runs nothing.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}),
  output: z.object({
    mode: z.enum(["safe", "trusted", "dangerous"]),
    summary: z.string(),
    execution: z.enum(["argv", "shell"]).describe("argv: no shell (safe); shell: /bin/sh -c cmd."),
    shell: z.string().nullable(),
    gates: z.array(z.string()).describe("Command gates in force for this session (the mode's, minus grants)."),
    mode_gates: z.array(z.string()),
    grants: z.array(z.string()),
    sandbox: z.object({
      landlock_abi: z.int().nullable(),
      missing: z.array(z.string()).describe("Kernel layers this machine cannot give, each with why."),
      commands: sandboxSchema.describe("What exec_command's children get in this session."),
      git: sandboxSchema.describe("What the git of the git tools gets."),
      ripgrep: sandboxSchema.describe("What the rg of list_files and search_text gets."),
    }),
    env: z.object({
      allowlist: z.array(z.string()).describe("Inherited names children keep (LC_* as a prefix)."),
      stripped: z.array(z.string()).describe("Names of the server's variables children do not get (never values)."),
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
  handler: async (_args, ctx) => {
    const mode = ctx.config.mode;
    const modePolicy = MODE_POLICIES[mode];
    const { policy } = ctx.services;
    const grants = ctx.sessionState.grants;
    const gates = gatesInForce(mode, grants);
    const execution = gates.has("shell_syntax") ? "argv" as const : "shell" as const;
    const sandbox = await policy.sandbox(grants);
    const tty = ctx.services.facts.tty;
    const data = {
      mode,
      summary: modePolicy.summary,
      execution,
      shell: execution === "shell" ? SHELL : null,
      gates: [...gates],
      mode_gates: [...modePolicy.gates],
      grants: [...grants].sort(),
      sandbox,
      env: {
        allowlist: mode === "dangerous" ? ["*"] : [...ENV_ALLOWLIST, ...ENV_ALLOWLIST_PREFIXES.map((p) => `${p}*`)],
        stripped: policy.environment.stripped,
        added: policy.environment.added,
      },
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
      modePolicy.summary,
      `execution: ${execution === "argv" ? "plain argv, no shell" : `${SHELL} -c`}`,
      `gates in force: ${data.gates.join(", ") || "none"}${
        data.grants.length ? ` (grants: ${data.grants.join(", ")})` : ""
      }`,
      describeChild("commands", sandbox.commands),
      describeChild("git", sandbox.git),
      describeChild("rg", sandbox.ripgrep),
      ...(sandbox.missing.length > 0 ? [`missing: ${sandbox.missing.join("; ")}`] : []),
      `environment: ${
        mode === "dangerous" ? "the server's whole environment is inherited" : "allowlisted variables only"
      }; stripped: ${data.env.stripped.join(", ") || "none"}; TMPDIR=${policy.tmpdir}`,
      `tty: ${tty.supported ? "supported" : `unsupported (${tty.reason})`}`,
      `limits: ${COMMAND_LIMITS.maxActiveCommands} active, ${COMMAND_LIMITS.maxRetainedCommands} retained, ` +
      `${COMMAND_LIMITS.perStreamBytes} bytes per stream, ${COMMAND_LIMITS.totalOutputBytes} bytes total, retention ${
        COMMAND_LIMITS.retentionMs / 60000
      } min`,
    ].join("\n");
    return { text, data };
  },
});
