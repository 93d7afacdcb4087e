import { z } from "zod";
import { defineTool } from "./tool.ts";
import { SERVER_NAME, SERVER_VERSION } from "../version.ts";
import { projectContext } from "../project/context.ts";
import { gatesInForce, MODE_POLICIES } from "../policy/modes.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../sdk/mod.ts";

const annotationsSchema = z.object({
  readOnlyHint: z.boolean(),
  destructiveHint: z.boolean(),
  idempotentHint: z.boolean(),
  openWorldHint: z.boolean(),
});

export const serverInfoTool = defineTool({
  name: "server_info",
  title: "Server info",
  description:
    "Describe this server: workspace, project context (git, manifests, AGENTS.md/README excerpt), permission policy, runtime, auth, protocol and the tool catalog with its real annotations.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}),
  output: z.object({
    server: z.object({ name: z.string(), version: z.string() }),
    workspace: z.object({ root: z.string(), writable: z.boolean() }),
    project: z.object({
      git: z.object({
        relation: z.enum(["workspace", "inside", "parent"]),
        root: z.string(),
        branch: z.string().nullable(),
        head: z.string().nullable(),
        dirty: z.boolean(),
      }).nullable(),
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
    catalog: z.object({
      count: z.int(),
      names: z.array(z.string()),
      list_changed: z.literal(false),
      view_image_enabled: z.boolean(),
      tools: z.array(z.object({ name: z.string(), title: z.string(), annotations: annotationsSchema })),
    }),
  }),
  handler: async (_args, ctx) => {
    const { config, workspace, services, session, catalog } = ctx;
    const policy = MODE_POLICIES[config.mode];
    const project = await projectContext(workspace);
    const facts = services.facts;
    const sandbox = await services.policy.sandboxStatus(ctx.sessionState.grants);
    const gatesNow = gatesInForce(config.mode, ctx.sessionState.grants);
    const commands = services.commands.list(ctx.sessionState.commandIds);
    const running = commands.filter((command) => command.status === "running");
    const data = {
      server: { name: SERVER_NAME, version: SERVER_VERSION },
      workspace: { root: workspace.root, writable: facts.workspaceWritable },
      project,
      policy: {
        mode: config.mode,
        summary: policy.summary,
        gates: [...policy.gates],
        gates_in_force: [...gatesNow],
        execution: gatesNow.has("shell_syntax") ? "argv" as const : "shell" as const,
        landlock: sandbox.enforced,
        grants: [...ctx.sessionState.grants].sort(),
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
        ripgrep: facts.ripgrep,
        landlock: {
          abi: facts.landlock.abi,
          enforced: sandbox.enforced,
          reason: sandbox.reason ?? facts.landlock.reason,
        },
        tty: facts.tty,
      },
      auth: {
        transport: session.transport,
        scheme: session.transport === "http" && !config.httpNoAuth ? "bearer" : "none",
      },
      protocol: {
        negotiated_version: session.protocolVersion,
        supported_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
        client: session.client ? { name: session.client.name, version: session.client.version } : null,
        client_capabilities: session.capabilities as Record<string, unknown> | null,
      },
      commands: { count: commands.length, running: running.length, ids: commands.map((command) => command.command_id) },
      catalog: {
        count: catalog.length,
        names: catalog.map((tool) => tool.name),
        list_changed: false as const,
        view_image_enabled: config.viewImageEnabled,
        tools: catalog.map((tool) => ({ name: tool.name, title: tool.title, annotations: tool.annotations })),
      },
    };
    const git = project.git;
    const lines = [
      `${SERVER_NAME} ${SERVER_VERSION} — workspace ${workspace.root}${facts.workspaceWritable ? "" : " (read-only)"}`,
      `mode: ${policy.summary}`,
      `sandbox: ${sandbox.enforced ? `Landlock enforced for commands` : `NOT enforced (${sandbox.reason})`}`,
      git
        ? `git: ${git.branch ?? "(detached)"} at ${git.head?.slice(0, 12) ?? "(no commits)"}${
          git.dirty ? ", dirty" : ", clean"
        }` +
          (git.relation === "parent" ? ` (repository root ${git.root} is above the workspace)` : "")
        : facts.programs.git === null
        ? "git: unavailable (git is not on the server's PATH)"
        : "git: not a repository",
      `manifests: ${project.manifests.join(", ") || "none"}`,
      `runtime: deno ${Deno.version.deno}${
        data.runtime.compiled ? " (compiled)" : ""
      }, ${Deno.build.os}/${Deno.build.arch}, ` +
      `ripgrep ${facts.ripgrep.version ?? "unavailable"}, landlock ${
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
      `tools (${catalog.length}): ${catalog.map((tool) => tool.name).join(", ")}`,
      ...project.instructions.map((file) =>
        `\n--- ${file.path} (first ${
          file.excerpt.length < file.bytes ? `part of ${file.bytes} bytes` : "all"
        }) ---\n${file.excerpt}`
      ),
    ];
    return { text: lines.join("\n"), data };
  },
});
