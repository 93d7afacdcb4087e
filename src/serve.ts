/** Runs the server. main.ts loads it lazily: --version, --help and a stdio client's initialize never wait for it. */
import * as path from "node:path";
import { type Config, UsageError } from "./config.ts";
import { probeFacts } from "./services.ts";
import { createMcpServer, initializeTap, sessionOf } from "./server.ts";
import { LineTransport } from "./transport/stdio.ts";
import { SERVER_NAME } from "./version.ts";
import { serverCard } from "./card/server_card.ts";
import { loadAuthToken } from "./http/auth.ts";
import { type Bound, openChoice, withServices, WorkspaceBinding } from "./session/binding.ts";
import type { Pinned, Refusal } from "./session/pin.ts";
import type { EarlyStart } from "./session/early_initialize.ts";
import type { Termination } from "./termination.ts";
import { chooseWorkspaceLate } from "./session/late_workspace.ts";
import { launchWorkspace, PROJECT_DIR_ENV, type WorkspaceChoice } from "./workspace/resolve.ts";
import { AuditTrail } from "./audit/trail.ts";
import { resolveLogPath } from "./audit/file.ts";
import { routeByShape } from "./sdk/route_by_shape.ts";

/** `--audit-summary FILE`, FILE resolved against the directory main.ts was launched in. */
export { printAuditSummary } from "./audit/summary.ts";

/** A log that cannot be opened is a UsageError with --audit-required; else calls go unrecorded until it can be. */
function openAuditTrail(
  config: Config,
  launchCwd: string,
  token: string | null,
  stop: (message: string) => Promise<void>,
): AuditTrail | null {
  if (!config.auditLog) return null;
  const file = path.resolve(launchCwd, config.auditLog);
  const trail = new AuditTrail({
    file: resolveLogPath(file),
    maxBytes: config.auditLogMaxBytes,
    required: config.auditRequired,
    mode: config.mode,
    env: Deno.env.toObject(),
    secrets: token === null ? [] : [token],
    onFatal: stop,
  });
  const problem = trail.open();
  if (problem === null) return trail;
  if (config.auditRequired) throw new UsageError(`--audit-log ${file}: ${problem}`);
  console.error(
    `${SERVER_NAME}: WARNING: audit log ${trail.path}: ${problem}; serving without an audit trail until it can be written`,
  );
  return trail;
}

/**
 * What settles the binding on an outcome, warning when the workspace's commands could write the audit log. With
 * --audit-required, refusing the command line's own workspace is a usage error; a later refusal stops the server.
 */
function settler(
  binding: WorkspaceBinding,
  audit: AuditTrail | null,
  stop: (message: string) => Promise<void>,
): (outcome: Bound | Refusal) => Promise<Bound | Refusal> {
  return async (outcome) => {
    binding.settle(outcome);
    if (!("workspace" in outcome)) {
      console.error(`${SERVER_NAME}: no workspace: ${outcome.reason}`);
      return outcome;
    }
    if (audit === null) return outcome;
    const { commands } = await outcome.services.policy.sandbox(new Set());
    const problem = audit.notePlacement(commands.writes);
    if (problem === null || !audit.status().required) return outcome;
    const refused = `${problem} (--audit-required: choose a log outside the workspace and the private TMPDIR)`;
    if (outcome.choice.source === "flag") throw new UsageError(refused);
    await stop(refused);
    return outcome;
  };
}

/** The sessions end (`first`: the HTTP listener stops), then the workspace is released and the log closed. */
async function closeAndExit(
  binding: WorkspaceBinding,
  audit: AuditTrail | null,
  code: number,
  first?: () => Promise<void>,
): Promise<never> {
  audit?.stopping();
  await first?.();
  await binding.close();
  await audit?.close();
  Deno.exit(code);
}

/** This process's runtime, its audit trail open (`token`: a secret it never writes), and what settles its binding. */
async function startRuntime(config: Config, launchCwd: string, token: string | null) {
  const facts = await probeFacts();
  const binding = new WorkspaceBinding();
  const stop = async (message: string) => {
    console.error(`${SERVER_NAME}: ${message}`);
    await binding.close();
    Deno.exit(1);
  };
  const audit = openAuditTrail(config, launchCwd, token, stop);
  return { runtime: { config, facts, binding, audit }, settle: settler(binding, audit, stop) };
}

/** What main.ts has settled before a stdio session starts. */
export interface StdioStart {
  config: Config;
  /** The workspace the command line or CLAUDE_PROJECT_DIR fixed, pinned or refused; null when late. */
  pinned: Pinned | Refusal | null;
  /** The working directory, when the client's roots may still decide the workspace. */
  fallback: WorkspaceChoice | null;
  home: string | null;
  launchCwd: string;
  /** What was answered before the server loaded (initialize, tools/list), and the input from its first byte. */
  early: Promise<EarlyStart>;
  termination: Termination;
}

/**
 * Serves one MCP session over stdin and stdout.
 * @example
 * ```ts
 * declare const start: StdioStart;
 * await serveStdio(start);
 * ```
 */
export async function serveStdio(start: StdioStart): Promise<void> {
  const { config, home, termination } = start;
  const { runtime, settle } = await startRuntime(config, start.launchCwd, null);
  const { facts, binding, audit } = runtime;
  if (start.pinned) await settle(await withServices(start.pinned, config, facts));
  termination.set(() => closeAndExit(binding, audit, 0));
  const server = createMcpServer(runtime, "stdio");
  // Chain, do not replace: createMcpServer's own close handling releases the session's commands.
  const closeSession = server.onclose;
  server.onclose = () => {
    closeSession?.();
    void termination.run();
  };
  const early = await start.early;
  const transport = new LineTransport(early.input, Deno.stdout.writable);
  for (const id of early.answered) transport.skipAnswer(id);
  if (binding.pending && start.fallback) {
    const bind = async (choice: WorkspaceChoice) => await settle(await openChoice(choice, { config, facts, home }));
    chooseWorkspaceLate({ server, session: sessionOf(server), binding, fallback: start.fallback, bind });
  }
  const tap = initializeTap(server);
  transport.onmessage = tap; // chained by the SDK's connect (1.32.2)
  await server.connect(transport);
  routeByShape(server, transport, tap);
}

/**
 * Prints the server card for this configuration (`--print-server-card`).
 * @example
 * ```ts
 * declare const config: import("./config.ts").Config;
 * await printServerCard(config);
 * ```
 */
export async function printServerCard(config: Config): Promise<void> {
  const { endpointUrl } = await import("./http/serve.ts");
  console.log(JSON.stringify(serverCard(config, config.http ? { url: endpointUrl(config.http) } : undefined)));
}

/**
 * Serves MCP Streamable HTTP at `config.http` (one workspace, many sessions); UsageError for a bad token or workspace.
 * @example
 * ```ts
 * import { Termination } from "./termination.ts";
 * declare const config: import("./config.ts").Config;
 * await serveHttp(config, Deno.cwd(), "/home/u", new Termination());
 * ```
 */
export async function serveHttp(
  config: Config,
  launchCwd: string,
  home: string | null,
  termination: Termination,
): Promise<void> {
  const token = await loadAuthToken(config, launchCwd);
  const { runtime, settle } = await startRuntime(config, launchCwd, token);
  const { facts, binding, audit } = runtime;
  const plan = launchWorkspace({ flag: config.workspace, projectDir: Deno.env.get(PROJECT_DIR_ENV), cwd: launchCwd });
  // One process serves every HTTP session: no roots.
  const choice = plan.kind === "fixed" ? plan.choice : plan.fallback;
  const outcome = await openChoice(choice, { config, facts, home });
  if (!("workspace" in outcome) && choice.source === "flag") throw new UsageError(outcome.reason);
  await settle(outcome);
  // Loaded only here: stdio servers never pay for the HTTP transport's modules.
  const { endpointUrl, serveHttp: listen } = await import("./http/serve.ts");
  let http;
  try {
    http = await listen({
      address: config.http!,
      token,
      config,
      openSession: () => {
        const server = createMcpServer(runtime, "http");
        return { server, tap: initializeTap(server) };
      },
    });
  } catch (error) {
    console.error(`${SERVER_NAME}: cannot listen on ${endpointUrl(config.http!)}: ${(error as Error).message}`);
    return await closeAndExit(binding, audit, 1);
  }
  console.error(
    `${SERVER_NAME}: serving MCP Streamable HTTP at ${http.url} (${token === null ? "no auth" : "bearer auth"})`,
  );
  termination.set(() => closeAndExit(binding, audit, 0, () => http.shutdown()));
}
