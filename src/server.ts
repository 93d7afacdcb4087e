/** The MCP server of one session: tools/call validates arguments itself, so every failure is a contract envelope. */
import { Snapshots } from "./paging/snapshots.ts";
import { z } from "./zod.ts";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  type RequestHandlerExtra,
  Server,
  type ServerNotification,
  type ServerRequest,
} from "./sdk/mod.ts";
import { isToolName, loadTool } from "./catalog.ts";
import { fail, ok } from "./envelope.ts";
import { ToolError } from "./errors.ts";
import { listedTools, toolSummaries, type ToolSummary } from "./catalog_listing.ts";
import { serverInfo } from "./metadata.ts";
import { serverInstructions } from "./instructions.ts";
import { negotiateProtocolVersion, SERVER_CAPABILITIES } from "./session/initialize.ts";
import type { Config } from "./config.ts";
import type { RuntimeFacts } from "./services.ts";
import type { WorkspaceBinding } from "./session/binding.ts";
import type { ToolContext } from "./tools/tool.ts";
import type { SessionInfo, SessionState } from "./session/info.ts";
import type { AuditTrail, SessionAudit, SessionBegin } from "./audit/trail.ts";

/** Any `arguments` type, so a non-object one gets the SDK's invalid params (-32602), not an internal error (-32603). */
const LAX_CALL_TOOL_REQUEST = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

/** What every session of one process shares. */
export interface Runtime {
  config: Config;
  facts: RuntimeFacts;
  binding: WorkspaceBinding;
  audit?: AuditTrail | null;
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
export function createMcpServer(runtime: Runtime, transport: SessionInfo["transport"]): Server {
  const session = new ServedSession(runtime, transport);
  served.set(session.server, session);
  return session.server;
}

const served = new WeakMap<Server, ServedSession>();

/**
 * What sees each message first, so the session records the client's initialize before the SDK answers it: set it as
 * the transport's `onmessage` before `connect` (the SDK's router calls it) and pass it to `routeByShape`.
 * @example
 * ```ts
 * import type { Server, Transport } from "./sdk/mod.ts";
 * declare const server: Server, transport: Transport;
 * transport.onmessage = initializeTap(server);
 * ```
 */
export function initializeTap(server: Server): (message: JSONRPCMessage) => void {
  const session = served.get(server);
  return (message) => session?.observe(message);
}

/** What the client of `server` said at initialize (and about its roots), for the late workspace's choice. */
export function sessionOf(server: Server): SessionInfo {
  return served.get(server)!.info;
}

type CallRequest = z.infer<typeof LAX_CALL_TOOL_REQUEST>;
type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

class ServedSession {
  readonly server: Server;
  readonly #runtime: Runtime;
  readonly #summaries: readonly ToolSummary[];
  readonly info: SessionInfo;
  readonly #state: SessionState = { grants: new Set(), commandIds: new Set(), snapshots: new Snapshots() };
  readonly #audit: SessionAudit | null;

  constructor(runtime: Runtime, transport: SessionInfo["transport"]) {
    // The SDK answers initialize itself, as ./session/initialize.ts does early (initialize_test.ts compares them).
    const instructions = serverInstructions(runtime.config, runtime.binding.bound?.workspace.root ?? null);
    this.server = new Server(serverInfo(), { capabilities: SERVER_CAPABILITIES, instructions });
    this.#runtime = runtime;
    this.#summaries = toolSummaries(runtime.config);
    this.info = {
      id: crypto.randomUUID(),
      protocolVersion: null,
      client: null,
      capabilities: null,
      transport,
      roots: null,
    };
    this.#audit = runtime.audit?.session({ id: this.info.id, transport }) ?? null;
    // A session's commands die with its transport (chain, do not replace, this handler).
    this.server.onclose = () => {
      this.#audit?.end();
      this.#state.snapshots.clear();
      void runtime.binding.bound?.services.commands.release(this.#state.commandIds);
    };
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(runtime.config) }));
    this.server.setRequestHandler(LAX_CALL_TOOL_REQUEST, (request, extra) => this.#auditedCall(request, extra));
  }

  #auditBegin(): SessionBegin {
    return {
      client: this.info.client,
      protocolVersion: this.info.protocolVersion,
      workspace: this.#runtime.binding.bound?.workspace.root ?? null,
    };
  }

  /** Records the client's initialize (a valid one: the SDK refuses the others) before the SDK answers it. */
  observe(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "initialize" || !("id" in message)) return;
    const parsed = InitializeRequestSchema.safeParse(message);
    if (!parsed.success) return;
    const { protocolVersion, clientInfo, capabilities } = parsed.data.params;
    this.info.protocolVersion = negotiateProtocolVersion(protocolVersion);
    this.info.client = clientInfo;
    this.info.capabilities = capabilities;
    this.#audit?.begin(this.#auditBegin());
  }

  /** The one place every call passes: the audit trail records it here, after it ended, from its structured result. */
  async #auditedCall(request: CallRequest, extra: CallExtra): Promise<CallToolResult> {
    const trace = { parsed: null as Record<string, unknown> | null };
    const audit = this.#audit;
    if (audit === null) return await this.#dispatch(request, extra, trace);
    const startedAt = Date.now();
    const started = performance.now();
    let result: CallToolResult | undefined;
    let outcome: string | undefined;
    try {
      result = await this.#dispatch(request, extra, trace);
      return result;
    } catch (error) {
      // A protocol error (an unknown tool) is an argument the client got wrong: the log says so, not INTERNAL.
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) outcome = "INVALID_ARGUMENT";
      throw error;
    } finally {
      const grants = this.#state.grants;
      await audit.call({
        tool: request.params.name,
        requestId: extra.requestId,
        arguments: request.params.arguments,
        parsed: trace.parsed,
        structured: result?.structuredContent ?? { ok: false, error: { code: outcome ?? "INTERNAL" } },
        startedAt,
        durationMs: performance.now() - started,
        cancelled: extra.signal.aborted,
        grants: [...grants],
        sandbox: () => this.#runtime.binding.bound?.services.policy.appliedSandbox(grants) ?? null,
      }, this.#auditBegin());
    }
  }

  async #dispatch(
    request: CallRequest,
    extra: CallExtra,
    trace: { parsed: Record<string, unknown> | null },
  ): Promise<CallToolResult> {
    const { config, binding } = this.#runtime;
    const name = request.params.name;
    if (!isToolName(name)) {
      // -32602, not a tool result: MCP 2025-11-25 lists unknown tools among protocol errors (docs/tools-and-schemas.md).
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}; tools/list names the tools`);
    }
    if (!this.#summaries.some((tool) => tool.name === name)) {
      return fail(new ToolError("TOOL_DISABLED", `${name} is disabled on this server (--disable-view-image)`));
    }
    const tool = await loadTool(name);
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return fail(invalidArguments(parsed.error));
    trace.parsed = parsed.data;
    // Without a workspace on the command line, stdio waits for the client's roots.
    await binding.wait(extra.signal);
    const noWorkspace = binding.noWorkspace();
    if (noWorkspace && tool.name !== "server_info") return fail(noWorkspace);
    const missing = tool.requires?.find((program) => this.#runtime.facts.programs[program] === null);
    if (missing) {
      return fail(
        new ToolError("PROGRAM_UNAVAILABLE", `${name} needs ${missing}, which is not on the server's PATH`, {
          details: { program: missing, path: Deno.env.get("PATH") ?? "" },
        }),
      );
    }
    // A listing kept for its next pages must not outlive a change to what it lists (src/paging/snapshots.ts).
    if (!tool.annotations.readOnlyHint) this.#state.snapshots.clear();
    try {
      return ok(await tool.handler(parsed.data, this.#context(request, extra)), config.maxResultChars);
    } catch (error) {
      if (!(error instanceof ToolError)) console.error(`workcell: ${name} failed:`, error);
      return fail(error);
    }
  }

  #context(request: CallRequest, extra: CallExtra): ToolContext {
    const { config, facts, binding } = this.#runtime;
    const progressToken = request.params._meta?.progressToken;
    return {
      config,
      facts,
      binding,
      get workspace() {
        return binding.require().workspace;
      },
      get services() {
        return binding.require().services;
      },
      arguments: (request.params.arguments ?? {}) as Record<string, unknown>, // validated by the caller
      session: this.info,
      sessionState: this.#state,
      catalog: this.#summaries,
      audit: this.#runtime.audit ?? null,
      signal: extra.signal,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress, total, message },
        });
      },
      elicit: (form) => this.server.elicitInput({ mode: "form", ...form }),
    };
  }
}
