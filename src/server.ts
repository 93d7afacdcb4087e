/**
 * Builds the MCP server for one session from the catalog: tools/list from
 * the stored JSON Schemas (src/catalog_listing.ts), and tools/call with our
 * own argument validation, so every failure is a contract envelope.
 *
 * @example
 * ```ts
 * import { LineTransport } from "./transport/stdio.ts";
 *
 * declare const runtime: Runtime; // config, facts and the workspace binding of this process
 * const server = createMcpServer(runtime, "stdio");
 * await server.connect(new LineTransport(Deno.stdin.readable, Deno.stdout.writable));
 * ```
 */
import { z } from "./zod.ts";
import {
  CallToolRequestSchema,
  type CallToolResult,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  Server,
} from "./sdk/mod.ts";
import { advertisedTools, CATALOG } from "./catalog.ts";
import { fail, ok } from "./envelope.ts";
import { ToolError } from "./errors.ts";
import { listedTools } from "./catalog_listing.ts";
import { serverInfo } from "./metadata.ts";
import { serverInstructions } from "./instructions.ts";
import { initializeResult, negotiateProtocolVersion, SERVER_CAPABILITIES } from "./session/initialize.ts";
import type { Config } from "./config.ts";
import type { RuntimeFacts } from "./services.ts";
import type { WorkspaceBinding } from "./session/binding.ts";
import type { ToolContext } from "./tools/tool.ts";
import { recordSession, type RestoredSession, type SessionInfo, type SessionState } from "./session/info.ts";
import type { AuditTrail } from "./audit/trail.ts";

/**
 * tools/call as the transport layer parses it: `arguments` of any type. With the SDK's own schema a
 * non-object `arguments` failed that parse and came back as an internal error (-32603); this way it reaches
 * the SDK's tools/call check, which answers invalid params (-32602).
 */
const LAX_CALL_TOOL_REQUEST = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

/** What every session of one process shares. */
export interface Runtime {
  config: Config;
  facts: RuntimeFacts;
  /** The process's workspace and its services, once bound. */
  binding: WorkspaceBinding;
  /** The audit trail (--audit-log); absent without one. */
  audit?: AuditTrail | null;
}

/** Options of {@linkcode createMcpServer}. */
export interface ServerOptions {
  /** Start as already initialized with this session (its initialize answer went out from another process). */
  restored?: RestoredSession;
}

/** Turns zod issues into one INVALID_ARGUMENT naming every offending field. */
export function invalidArguments(error: z.ZodError): ToolError {
  const issues = error.issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return { field: issue.keys.join(", "), message: `unknown propert${issue.keys.length > 1 ? "ies" : "y"}` };
    }
    return { field: field || "(arguments)", message: issue.message };
  });
  const message = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
  return new ToolError("INVALID_ARGUMENT", message, {
    details: { fields: issues.map((issue) => issue.field), issues },
  });
}

/** Creates one MCP server (one session) over the shared runtime. */
export function createMcpServer(
  runtime: Runtime,
  transport: SessionInfo["transport"],
  options: ServerOptions = {},
): Server {
  const { config, binding } = runtime;
  const tools = advertisedTools(config);
  const session: SessionInfo = {
    id: crypto.randomUUID(),
    protocolVersion: null,
    client: null,
    capabilities: null,
    transport,
    roots: null,
  };
  const sessionState: SessionState = { grants: new Set(), commandIds: new Set() };
  const restored = options.restored;
  if (restored) Object.assign(session, restored);
  // A handed-over session's start was recorded by the process that answered its initialize.
  const audit = runtime.audit?.session({ id: session.id, transport }, restored !== undefined) ?? null;
  const auditBegin = () => ({
    client: session.client,
    protocolVersion: session.protocolVersion,
    workspace: binding.bound?.workspace.root ?? null,
  });

  const server = new Server(serverInfo(), { capabilities: SERVER_CAPABILITIES });
  recordSession(server, session);
  // A session's commands die with its transport (chain, do not replace, this handler).
  server.onclose = () => {
    audit?.end();
    void binding.bound?.services.commands.release(sessionState.commandIds);
  };

  // The answer is ours (./session/initialize.ts, shared with the early answer on stdio); the SDK's own handler
  // still runs, for the client's capabilities and version that elicitation and roots/list check.
  const initialize = (server as unknown as { _oninitialize(request: unknown): Promise<unknown> })._oninitialize
    .bind(server);
  const instructions = serverInstructions(config, binding.bound?.workspace.root ?? null);
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const requested = request.params.protocolVersion;
    session.protocolVersion = negotiateProtocolVersion(requested);
    session.client = request.params.clientInfo;
    session.capabilities = request.params.capabilities;
    audit?.begin(auditBegin());
    await initialize(request);
    return initializeResult(requested, instructions) as never;
  });
  if (restored) {
    // The SDK keeps the client's capabilities from initialize; the answer itself already went out.
    void initialize({
      method: "initialize",
      params: {
        protocolVersion: restored.protocolVersion,
        capabilities: restored.capabilities,
        clientInfo: restored.client,
      },
    });
  }

  // The stored conversion (schemas/tools.json, checked against the live one by catalog_listing_test.ts).
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(config) }));

  type CallRequest = z.infer<typeof LAX_CALL_TOOL_REQUEST>;
  type CallExtra = Parameters<Parameters<typeof server.setRequestHandler<typeof LAX_CALL_TOOL_REQUEST>>[1]>[1];
  /** One tools/call; `trace.parsed` gets the validated arguments for the audit trail. */
  const dispatch = async (
    request: CallRequest,
    extra: CallExtra,
    trace: { parsed: Record<string, unknown> | null },
  ): Promise<CallToolResult> => {
    const name = request.params.name;
    const tool = tools.find((candidate) => candidate.name === name);
    if (!tool) {
      if (CATALOG.some((candidate) => candidate.name === name)) {
        return fail(new ToolError("TOOL_DISABLED", `${name} is disabled on this server (--disable-view-image)`));
      }
      return fail(
        new ToolError("INVALID_ARGUMENT", `unknown tool ${JSON.stringify(name)}`, {
          hint: "Call tools/list for the available tools.",
          details: { field: "name" },
        }),
      );
    }
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return fail(invalidArguments(parsed.error));
    trace.parsed = parsed.data;
    // A stdio session without a workspace on the command line waits for the client's roots.
    await binding.wait({ id: extra.requestId, request, signal: extra.signal });
    const noWorkspace = binding.noWorkspace();
    if (noWorkspace && tool.name !== "server_info") return fail(noWorkspace);
    const missing = tool.requires?.find((program) => runtime.facts.programs[program] === null);
    if (missing) {
      return fail(
        new ToolError("PROGRAM_UNAVAILABLE", `${name} needs ${missing}, which is not on the server's PATH`, {
          details: { program: missing, path: Deno.env.get("PATH") ?? "" },
        }),
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const ctx: ToolContext = {
      config,
      facts: runtime.facts,
      binding,
      get workspace() {
        return binding.require().workspace;
      },
      get services() {
        return binding.require().services;
      },
      arguments: (request.params.arguments ?? {}) as Record<string, unknown>, // validated above
      session,
      sessionState,
      catalog: tools,
      audit: runtime.audit ?? null,
      signal: extra.signal,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress, total, message },
        });
      },
      elicit: async (form) => {
        const answer = await server.elicitInput({ mode: "form", ...form } as never);
        return { action: answer.action, content: answer.content as Record<string, unknown> | undefined };
      },
    };
    try {
      return ok(await tool.handler(parsed.data, ctx), config.maxResultChars);
    } catch (error) {
      if (!(error instanceof ToolError)) console.error(`workcell: ${name} failed:`, error);
      return fail(error);
    }
  };

  // The one place every call passes: the audit trail records it here, after it ended, from its structured result.
  server.setRequestHandler(LAX_CALL_TOOL_REQUEST, async (request, extra): Promise<CallToolResult> => {
    const trace = { parsed: null as Record<string, unknown> | null };
    if (audit === null) return await dispatch(request, extra, trace);
    const startedAt = Date.now();
    const started = performance.now();
    let result: CallToolResult | undefined;
    try {
      result = await dispatch(request, extra, trace);
      return result;
    } finally {
      await audit.call({
        tool: request.params.name,
        requestId: extra.requestId,
        arguments: request.params.arguments,
        parsed: trace.parsed,
        structured: result ? result.structuredContent : { ok: false, error: { code: "INTERNAL" } },
        startedAt,
        durationMs: performance.now() - started,
        cancelled: extra.signal.aborted,
        grants: [...sessionState.grants],
        sandbox: () => binding.bound?.services.policy.appliedSandbox(sessionState.grants) ?? null,
      }, auditBegin());
    }
  });
  return server;
}
