import { z } from "../zod.ts";
import { MAX_TEXT_BYTES } from "../paging/budget.ts";
import { utf8CutIndex } from "../text/utf8.ts";
import { defineTool, type ToolContext } from "./tool.ts";
import { SERVER_NAME, SERVER_VERSION } from "../version.ts";
import { projectContext } from "../project/context.ts";
import { commandExecution, gatesInForce, MODE_POLICIES } from "../policy/modes.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../sdk/mod.ts";
import { ERROR_CODES } from "../errors.ts";
import { writeGrant } from "../permissions.ts";
import type { RootsReport } from "../session/roots.ts";
import { SOURCE_LABELS, type WorkspaceChoice } from "../workspace/resolve.ts";
import { AUDIT_OFF, type AuditStatus, auditStatusSchema } from "../audit/trail.ts";

const annotationsSchema = z.object({
  readOnlyHint: z.boolean(),
  destructiveHint: z.boolean(),
  idempotentHint: z.boolean(),
  openWorldHint: z.boolean(),
});

function sourceDetail(choice: WorkspaceChoice | null, roots: RootsReport | null): string {
  if (choice === null) return "nowhere: nothing named a workspace";
  if (choice.source === "roots" && roots) {
    return `the client's first MCP root ${roots.uris.find((uri) => uri.startsWith("file:")) ?? choice.dir}`;
  }
  if (choice.source === "cwd" && roots) {
    return `the server's working directory (the client's roots gave none${roots.error ? `: ${roots.error}` : ""})`;
  }
  return SOURCE_LABELS[choice.source];
}

function auditLine(audit: AuditStatus): string {
  if (!audit.enabled) return "off (--audit-log FILE records every call)";
  const state = audit.state === "ok"
    ? `${audit.events_written} events written`
    : `FAILING, ${audit.events_lost} events lost: ${audit.last_error}`;
  return [`${audit.path} (${state})`, ...audit.warnings.map((warning) => `WARNING: ${warning}`)].join("; ");
}

export const serverInfoTool = defineTool({
  name: "server_info",
  title: "Server info",
  description:
    "Describe this server: workspace, project context (git, manifests, AGENTS.md/README excerpt), permission policy, runtime, auth, protocol and the tool catalog with its real annotations.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}),
  output: z.object({
    server: z.object({ name: z.string(), version: z.string() }),
    workspace: z.object({
      root: z.string().nullable().describe("The workspace root, or null when there is none (see refused)."),
      writable: z.boolean(),
      source: z.enum(["flag", "env", "roots", "cwd"]).nullable().describe(
        "Where it came from: --workspace, CLAUDE_PROJECT_DIR, the client's MCP roots, or the working directory.",
      ),
      source_detail: z.string(),
      refused: z.object({ dir: z.string().nullable(), reason: z.string(), hint: z.string() }).nullable().describe(
        "Why there is no workspace: every tool but server_info answers NO_WORKSPACE.",
      ),
      deno_write_grant: z.enum(["workspace", "wider", "none"]).describe(
        "What Deno's --allow-write covers: exactly the workspace, more than it, or nothing of it.",
      ),
      roots: z.object({
        uris: z.array(z.string()),
        others: z.array(z.string()).describe("Other file:// roots, not served: --workspace chooses one of them."),
        ignored: z.array(z.object({ uri: z.string(), reason: z.string() })),
        error: z.string().nullable(),
        changed_to: z.string().nullable().describe(
          "The first root after a roots/list_changed, when it is not the workspace (which does not move).",
        ),
      }).nullable().describe("The client's roots when they were asked (the command line left the workspace open)."),
    }),
    project: z.object({
      git: z.object({
        relation: z.enum(["workspace", "inside", "parent"]),
        root: z.string(),
        branch: z.string().nullable(),
        head: z.string().nullable(),
      }).nullable().describe("What HEAD names; whether the work tree is clean is git_status's to say."),
      manifests: z.array(z.string()),
      instructions: z.array(z.object({
        path: z.string(),
        excerpt: z.string(),
        truncated: z.boolean(),
        bytes: z.int(),
      })),
    }),
    policy: z.object({
      mode: z.enum(["safe", "trusted", "dangerous"]),
      summary: z.string(),
      gates: z.array(z.string()),
      gates_in_force: z.array(z.string()).describe("The mode's gates minus what this session's grants lift."),
      execution: z.enum(["argv", "shell"]),
      landlock: z.boolean().describe("Whether children of this session run inside the Landlock sandbox."),
      grants: z.array(z.string()),
      grantable: z.array(z.string()).describe("Permissions request_permissions can grant in this mode."),
      fake_readonly_annotations: z.boolean(),
    }),
    runtime: z.object({
      deno: z.string(),
      v8: z.string(),
      typescript: z.string(),
      os: z.string(),
      arch: z.string(),
      compiled: z.boolean(),
      ripgrep: z.object({ path: z.string(), version: z.string().nullable(), origin: z.string() }),
      landlock: z.object({ abi: z.int().nullable(), enforced: z.boolean(), reason: z.string().nullable() }),
      tty: z.object({ supported: z.boolean(), reason: z.string().nullable() }),
    }),
    auth: z.object({ transport: z.enum(["stdio", "http"]), scheme: z.enum(["none", "bearer"]) }),
    protocol: z.object({
      negotiated_version: z.string().nullable(),
      supported_versions: z.array(z.string()),
      client: z.object({ name: z.string(), version: z.string() }).nullable(),
      client_capabilities: z.record(z.string(), z.unknown()).nullable(),
    }),
    commands: z.object({
      count: z.int().describe("This session's commands still held (running or finished, until pruned)."),
      running: z.int(),
      ids: z.array(z.string()).describe("Their command_ids in start order; check_exec_environment lists them in full."),
    }),
    audit: auditStatusSchema.describe("The audit trail (--audit-log): where, and whether its events are written."),
    catalog: z.object({
      count: z.int(),
      names: z.array(z.string()),
      list_changed: z.literal(false),
      view_image_enabled: z.boolean(),
      tools: z.array(z.object({ name: z.string(), title: z.string(), annotations: annotationsSchema })),
    }),
  }),
  handler: async (_args, ctx) => {
    const { config, facts, session, catalog } = ctx;
    const state = await observe(ctx);
    const policy = MODE_POLICIES[config.mode];
    const grants = ctx.sessionState.grants;
    const data = {
      server: { name: SERVER_NAME, version: SERVER_VERSION },
      workspace: state.workspace,
      project: state.project,
      policy: {
        mode: config.mode,
        summary: policy.summary,
        gates: [...policy.gates],
        gates_in_force: [...gatesInForce(config.mode, grants)],
        execution: commandExecution(config.mode, grants),
        landlock: state.sandbox.enforced,
        grants: [...grants].sort(),
        grantable: [...policy.grantable],
        fake_readonly_annotations: config.fakeReadonlyAnnotations,
      },
      runtime: {
        deno: Deno.version.deno,
        v8: Deno.version.v8,
        typescript: Deno.version.typescript,
        os: Deno.build.os,
        arch: Deno.build.arch,
        compiled: Deno.build.standalone === true,
        ripgrep: { path: facts.ripgrep.path, version: facts.ripgrep.version, origin: facts.ripgrep.origin },
        landlock: {
          abi: facts.landlock.abi,
          enforced: state.sandbox.enforced,
          reason: state.sandbox.reason ?? facts.landlock.reason,
        },
        tty: facts.tty,
      },
      auth: {
        transport: session.transport,
        scheme: session.transport === "http" && !config.httpNoAuth ? "bearer" as const : "none" as const,
      },
      protocol: {
        negotiated_version: session.protocolVersion,
        supported_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
        client: session.client ? { name: session.client.name, version: session.client.version } : null,
        client_capabilities: session.capabilities as Record<string, unknown> | null,
      },
      commands: {
        count: state.commands.length,
        running: state.running.length,
        ids: state.commands.map((command) => command.command_id),
      },
      audit: state.audit,
      catalog: {
        count: catalog.length,
        names: catalog.map((tool) => tool.name),
        list_changed: false as const,
        view_image_enabled: config.viewImageEnabled,
        tools: catalog.map((tool) => ({ name: tool.name, title: tool.title, annotations: tool.annotations })),
      },
    };
    const lines = summaryLines(ctx, state);
    return { text: [...lines, ...excerptLines(state.project.instructions, lines.join("\n"))].join("\n"), data };
  },
});

/** What server_info reads from the bound workspace and the session before it reports. */
async function observe(ctx: ToolContext) {
  const { session } = ctx;
  const bound = ctx.binding.bound;
  const refusal = ctx.binding.refusal;
  const project = bound ? await projectContext(bound.services.git) : { git: null, manifests: [], instructions: [] };
  const report = bound ? await bound.services.policy.sandbox(ctx.sessionState.grants) : null;
  const sandbox = report
    ? {
      enforced: report.commands.layers.includes("landlock"),
      reason: report.missing.length > 0 ? report.missing.join("; ") : null,
    }
    : { enforced: false, reason: "there is no workspace, so no command runs" };
  const commands = bound?.services.commands.list(ctx.sessionState.commandIds) ?? [];
  const choice = bound?.choice ?? refusal?.choice ?? null;
  const workspace = {
    root: bound?.workspace.root ?? null,
    writable: bound?.services.workspaceWritable ?? false,
    source: choice?.source ?? null,
    source_detail: sourceDetail(choice, session.roots),
    refused: refusal
      ? { dir: refusal.choice?.dir ?? null, reason: refusal.reason, hint: ERROR_CODES.NO_WORKSPACE.hint }
      : null,
    deno_write_grant: bound ? await writeGrant(bound.workspace.root) : "none" as const,
    roots: session.roots,
  };
  return {
    project,
    report,
    sandbox,
    commands,
    running: commands.filter((command) => command.status === "running"),
    workspace,
    audit: ctx.audit?.status() ?? AUDIT_OFF,
  };
}

function summaryLines(
  { binding, session, facts, config, catalog }: ToolContext,
  state: Awaited<ReturnType<typeof observe>>,
): string[] {
  const { workspace, report, sandbox, commands, running } = state;
  const git = state.project.git;
  const roots = session.roots;
  return [
    binding.bound
      ? `${SERVER_NAME} ${SERVER_VERSION} — workspace ${binding.bound.workspace.root} (from ${workspace.source_detail}${
        workspace.writable ? "" : "; read-only"
      })`
      : `${SERVER_NAME} ${SERVER_VERSION} — NO WORKSPACE: ${binding.refusal?.reason}. ${ERROR_CODES.NO_WORKSPACE.hint}`,
    ...(roots && roots.others.length > 0
      ? [`other roots, not served: ${roots.others.join(", ")} (start with --workspace DIR to serve another one)`]
      : []),
    ...(roots?.changed_to
      ? [
        `the client's roots changed to ${roots.changed_to}; this session keeps its workspace (restart, or pass --workspace, to switch)`,
      ]
      : []),
    `mode: ${MODE_POLICIES[config.mode].summary}`,
    `sandbox: ${
      report?.commands.enforced
        ? `commands under ${report.commands.layers.join(", ")}; git and rg read-only`
        : `NOT enforced for commands${sandbox.reason ? ` (${sandbox.reason})` : ""}`
    }`,
    git
      ? `git: ${git.branch ?? "(detached)"} at ${git.head?.slice(0, 12) ?? "(no commits)"}` +
        (git.relation === "parent" ? ` (repository root ${git.root} is above the workspace)` : "")
      : facts.programs.git === null
      ? "git: unavailable (git is not on the server's PATH)"
      : "git: not a repository",
    `manifests: ${state.project.manifests.join(", ") || "none"}`,
    `runtime: deno ${Deno.version.deno}${Deno.build.standalone === true ? " (compiled)" : ""}, ` +
    `${Deno.build.os}/${Deno.build.arch}, ripgrep ${facts.ripgrep.version ?? "unavailable"}, landlock ${
      facts.landlock.abi === null ? `unavailable (${facts.landlock.reason})` : `ABI ${facts.landlock.abi}`
    }`,
    `protocol: ${session.protocolVersion ?? "not negotiated"}, client ${
      session.client ? `${session.client.name} ${session.client.version}` : "unknown"
    }`,
    `commands: ${
      commands.length === 0
        ? "none in this session"
        : `${commands.length} in this session, ${running.length} running${
          running.length > 0 ? ` (${running.map((command) => command.command_id).join(", ")})` : ""
        }`
    }`,
    `audit log: ${auditLine(state.audit)}`,
    `tools (${catalog.length}): ${catalog.map((tool) => tool.name).join(", ")}`,
  ];
}

/** Room the text keeps for its own lines around the excerpts. */
const EXCERPT_SLACK_BYTES = 512;

/** Instruction excerpts after `head`: whole while they fit, then one cut at a line end; partials end in read_file. */
function excerptLines(files: { path: string; excerpt: string; bytes: number }[], head: string): string[] {
  const encoder = new TextEncoder();
  let room = MAX_TEXT_BYTES - encoder.encode(head).length - EXCERPT_SLACK_BYTES;
  const lines: string[] = [];
  for (const file of files) {
    const whole = file.excerpt.length >= file.bytes;
    const next = `next: read_file ${JSON.stringify({ path: file.path })}`;
    const title = `\n--- ${file.path} (first ${whole ? "all" : `part of ${file.bytes} bytes`}) ---`;
    const needed = encoder.encode(`${title}\n${file.excerpt}\n${next}`).length;
    if (needed <= room) {
      lines.push(title, file.excerpt, ...(whole ? [] : [next]));
      room -= needed;
      continue;
    }
    const bytes = encoder.encode(file.excerpt);
    const fit = room - encoder.encode(`${title}\n\n${next}`).length;
    const cut = fit <= 0 ? 0 : bytes.lastIndexOf(0x0a, utf8CutIndex(bytes, fit) - 1) + 1;
    if (cut > 0) {
      lines.push(
        title.replace("(first ", "(first lines of "),
        new TextDecoder().decode(bytes.subarray(0, cut)).trimEnd(),
        next,
      );
    } else lines.push(`\n--- ${file.path}: not shown (no room left) --- ${next}`);
    room = 0;
  }
  return lines;
}
