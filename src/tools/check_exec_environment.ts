import { z } from "../zod.ts";
import { defineTool } from "./tool.ts";
import { commandExecution, gatesInForce, MODE_POLICIES } from "../policy/modes.ts";
import { SHELL } from "../policy/command_policy.ts";
import { ENV_RULES } from "../policy/child_environment.ts";
import { COMMAND_LIMITS } from "../exec/limits.ts";
import type { CommandListing } from "../exec/views.ts";
import { type ProgramName, PROGRAMS } from "../exec/programs.ts";
import type { SandboxReport } from "../policy/sandboxed_spawners.ts";
import type { SandboxDescription } from "../policy/child_sandbox_plan.ts";
import type { Services } from "../services.ts";
import { type Dependency, hostKernelSandbox } from "../policy/kernel_sandbox.ts";

const sandboxSchema = z.object({
  enforced: z.boolean(),
  layers: z.array(z.string()).describe(
    "Kernel layers in force: landlock, seccomp, mount namespace, capabilities (Linux); seatbelt (macOS).",
  ),
  writes: z.union([z.literal("anywhere"), z.array(z.string())]).describe("Trees it may write beneath."),
  reads: z.union([z.literal("anywhere"), z.literal("all but credential stores"), z.array(z.string())]),
  executes: z.union([z.literal("anything"), z.array(z.string())]),
  network: z.enum(["allowed", "denied", "TCP denied, other protocols allowed (no seccomp filter)"]),
  signals_scoped: z.boolean().describe("It can signal only itself and its own children (not the server)."),
  read_only: z.array(z.string()).describe("Paths it sees read-only: the workspace's git dirs in safe mode."),
  capabilities_dropped: z.boolean(),
});

function describeChild(name: string, child: SandboxDescription): string {
  if (!child.enforced) return `${name}: NO sandbox (the server's own rights)`;
  const list = (value: string | string[]) => (typeof value === "string" ? value : value.join(", ") || "nowhere");
  return `${name}: ${child.layers.join(" + ")}; writes ${list(child.writes)}; reads ${list(child.reads)}; ` +
    `executes ${list(child.executes)}; network ${child.network}` +
    (child.read_only.length > 0 ? `; read-only ${child.read_only.join(", ")}` : "") +
    (child.capabilities_dropped ? "; no capabilities" : "");
}

function dependencies(services: Services, sandbox: SandboxReport): Dependency[] {
  const { facts, policy } = services;
  const programs = (Object.keys(PROGRAMS) as ProgramName[]).map((name) => ({
    name,
    available: facts.programs[name] !== null,
    detail: facts.programs[name] ??
      `not found ${PROGRAMS[name].lookup === "PATH" ? "on PATH" : `at ${PROGRAMS[name].lookup}`}`,
    needed_by: PROGRAMS[name].neededBy,
  }));
  return [
    {
      name: "private temp dir",
      available: policy.tmpdir !== null,
      detail: [policy.tmpdir ?? "none could be made", ...policy.tmpdirProblems.map((problem) => `refused ${problem}`)]
        .join("; "),
      needed_by: "commands' TMPDIR (without one they get no TMPDIR and may write only in the workspace)",
    },
    {
      name: "writable workspace",
      available: services.workspaceWritable,
      detail: services.workspaceWritable ? "writable" : "read-only file system, or no write permission",
      needed_by: "apply_patch (WORKSPACE_READ_ONLY without it) and commands that write in the workspace",
    },
    {
      name: "pseudo-terminal",
      available: facts.tty.supported,
      detail: facts.tty.reason ?? "/dev/ptmx opens",
      needed_by: "exec_command tty:true (TTY_UNSUPPORTED without it)",
    },
    hostKernelSandbox(facts.landlock, sandbox.missing),
    ...programs,
  ];
}

/** Most commands the text names one by one (the structured list has them all). */
const LISTED_COMMANDS = 20;

function commandLines(commands: CommandListing[]): string[] {
  if (commands.length === 0) return ["commands: none in this session"];
  const running = commands.filter((command) => command.status === "running").length;
  const lines = commands.slice(-LISTED_COMMANDS).map((command) =>
    `  ${command.command_id} ${
      command.status === "running" ? `running, pid ${command.pid}` : `exited ${command.signal ?? command.exit_code}`
    }${
      command.tty ? ", tty" : ""
    }, since ${command.started_at}, ${command.stdout_bytes}+${command.stderr_bytes} bytes: ${command.cmd.slice(0, 80)}`
  );
  const older = commands.length - lines.length;
  return [
    `commands: ${commands.length} in this session, ${running} running${
      older > 0 ? ` (the ${older} oldest not shown)` : ""
    }`,
    ...lines,
  ];
}

export const checkExecEnvironmentTool = defineTool({
  name: "check_exec_environment",
  title: "Check exec environment",
  description:
    "Describe how exec_command runs commands here: mode, shell, gates, what the kernel enforces on commands, git and rg (Landlock, seccomp, mount namespace, capabilities on Linux; Seatbelt on macOS), stripped environment names, limits, TTY support, and this session's commands (ids, status, pids). Runs nothing.",
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
      rules: z.array(z.object({
        id: z.string(),
        kind: z.enum(["server", "loader", "secret"]),
        description: z.string(),
      })).describe("The rules in force: children get the server's environment minus what these strip."),
      stripped: z.array(z.string()).describe("Names of the server's variables children do not get (never values)."),
      stripped_by: z.record(z.string(), z.string()).describe("The rule id that stripped each name."),
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
    dependencies: z.array(z.object({
      name: z.string(),
      available: z.boolean(),
      detail: z.string().describe("Where it was found, or why it is missing."),
      needed_by: z.string().describe("What works only with it (everything else works without it)."),
    })).describe("Optional pieces of the machine, probed once at start-up: what is there and what is missing."),
    commands: z.array(z.object({
      command_id: z.string(),
      cmd: z.string(),
      status: z.enum(["running", "exited"]),
      pid: z.int(),
      started_at: z.string().describe("ISO 8601 start time."),
      exit_code: z.int().nullable(),
      signal: z.string().nullable(),
      tty: z.boolean(),
      stdout_bytes: z.int(),
      stderr_bytes: z.int(),
    })).describe(
      "This session's commands still held (running, and finished ones until pruned), in start order: poll one with write_stdin, stop it with kill_command, page it with read_output.",
    ),
  }),
  handler: async (_args, ctx) => {
    const mode = ctx.config.mode;
    const modePolicy = MODE_POLICIES[mode];
    const { policy } = ctx.services;
    const grants = ctx.sessionState.grants;
    const execution = commandExecution(mode, grants);
    const sandbox = await policy.sandbox(grants);
    const data = {
      mode,
      summary: modePolicy.summary,
      execution,
      shell: execution === "shell" ? SHELL : null,
      gates: [...gatesInForce(mode, grants)],
      mode_gates: [...modePolicy.gates],
      grants: [...grants].sort(),
      sandbox,
      env: {
        rules: ENV_RULES.filter((rule) => mode !== "dangerous" || rule.kind === "server")
          .map(({ id, kind, description }) => ({ id, kind, description })),
        stripped: policy.environment.stripped,
        stripped_by: policy.environment.strippedBy,
        added: policy.environment.added,
      },
      limits: {
        max_active_commands: COMMAND_LIMITS.maxActiveCommands,
        max_retained_commands: COMMAND_LIMITS.maxRetainedCommands,
        per_stream_bytes: COMMAND_LIMITS.perStreamBytes,
        total_output_bytes: COMMAND_LIMITS.totalOutputBytes,
        retention_ms: COMMAND_LIMITS.retentionMs,
      },
      tty: ctx.services.facts.tty,
      dependencies: dependencies(ctx.services, sandbox),
      commands: ctx.services.commands.list(ctx.sessionState.commandIds),
    };
    const missing = data.dependencies.filter((dependency) => !dependency.available);
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
      `environment: the server's, minus ${
        mode === "dangerous" ? "its own WORKCELL_* variables" : "secret-looking and loader variables"
      }; stripped: ${
        data.env.stripped.map((name) => `${name} (${data.env.stripped_by[name]})`).join(", ") || "none"
      }; TMPDIR=${policy.tmpdir ?? "(none: no private temp dir could be made)"}`,
      `tty: ${data.tty.supported ? "supported" : `unsupported (${data.tty.reason})`}`,
      missing.length === 0
        ? "dependencies: all present"
        : `dependencies missing: ${missing.map(({ name, needed_by }) => `${name} (${needed_by})`).join("; ")}`,
      `limits: ${COMMAND_LIMITS.maxActiveCommands} active, ${COMMAND_LIMITS.maxRetainedCommands} retained, ` +
      `${COMMAND_LIMITS.perStreamBytes} bytes per stream, ${COMMAND_LIMITS.totalOutputBytes} bytes total, retention ${
        COMMAND_LIMITS.retentionMs / 60000
      } min`,
      ...commandLines(data.commands),
    ].join("\n");
    return { text, data };
  },
});
