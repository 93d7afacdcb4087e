/**
 * workcell: an MCP server that gives a coding agent a confined workspace.
 *
 * CLI: flags -> Config -> transport. stdout carries protocol only.
 */
import { Buffer } from "node:buffer";
import { type Config, parseArgs, USAGE, UsageError } from "./src/config.ts";
import { probeFacts } from "./src/services.ts";
import { createMcpServer, type Runtime } from "./src/server.ts";
import { LineTransport } from "./src/transport/stdio.ts";
import { FdInput } from "./src/transport/fd_input.ts";
import { SERVER_NAME, SERVER_VERSION } from "./src/version.ts";
import { serverCard } from "./src/card/server_card.ts";
import { AuthSetupError, loadAuthToken } from "./src/http/auth.ts";
import { relaunchIntoWorkspace } from "./src/compiled/relaunch.ts";
import { type Bound, openChoice, type OpenOptions, type Refusal, WorkspaceBinding } from "./src/session/binding.ts";
import { type HandoffState, takeHandoff } from "./src/session/handoff.ts";
import { chooseWorkspaceLate } from "./src/session/late_workspace.ts";
import { watchRootChanges } from "./src/session/roots.ts";
import { launchWorkspace, PROJECT_DIR_ENV, type WorkspaceChoice } from "./src/workspace/resolve.ts";
import { AuditTrail } from "./src/audit/trail.ts";
import { resolveLogPath } from "./src/audit/file.ts";
import { printAuditSummary } from "./src/audit/summary.ts";
import * as path from "node:path";

function exitWithUsage(message: string): never {
  console.error(`${SERVER_NAME}: ${message}`);
  console.error(USAGE);
  Deno.exit(2);
}

/** Runs `shutdown` once, on the first SIGINT or SIGTERM. */
function onTerminate(shutdown: () => Promise<void>): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void shutdown());
}

/** What a stdio session needs besides the runtime. */
interface StdioStart {
  /** The session a previous process handed over, or null. */
  handoff: HandoffState | null;
  /** The working directory, when the client's roots may still decide the workspace. */
  fallback: WorkspaceChoice | null;
  /** Opens a choice and settles the binding with it. */
  bind(choice: WorkspaceChoice): Promise<Bound | Refusal>;
  /** Real paths: the home directory (or null) and the directory this process started in. */
  home: string | null;
  startDir: string;
  launchCwd: string;
}

async function serveStdio(runtime: Runtime, start: StdioStart): Promise<void> {
  // Anything that logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // stdio needs no network; a compiled binary carries a net grant for --http, so drop it.
  await Deno.permissions.revoke({ name: "net" });
  const { binding } = runtime;
  const handoff = start.handoff;
  const input = new FdInput(0, handoff ? Buffer.from(handoff.replay, "base64") : undefined);
  const transport = new LineTransport(input.readable, Deno.stdout.writable);
  const server = createMcpServer(runtime, "stdio", { restored: handoff?.session });
  const bound = binding.bound;
  if (handoff?.session.roots && bound) watchRootChanges(server, handoff.session.roots, bound.choice.dir);
  if (binding.pending && start.fallback) {
    const { fallback, bind, home, startDir, launchCwd } = start;
    chooseWorkspaceLate({ server, binding, fallback, startDir, home, launchCwd, input, transport, bind });
  }
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    runtime.audit?.stopping();
    await binding.close();
    await runtime.audit?.close();
    Deno.exit(0);
  };
  // Chain, do not replace: createMcpServer's own close handling releases the session's commands.
  const closeSession = server.onclose;
  server.onclose = () => {
    closeSession?.();
    void shutdown();
  };
  onTerminate(shutdown);
  await server.connect(transport);
}

async function serveOverHttp(runtime: Runtime, token: string | null): Promise<void> {
  const { config, binding } = runtime;
  // Loaded only here: stdio servers never pay for the HTTP transport's modules.
  const { endpointUrl, serveHttp } = await import("./src/http/serve.ts");
  let http;
  try {
    http = await serveHttp({
      address: config.http!,
      token,
      config,
      openSession: () => createMcpServer(runtime, "http"),
    });
  } catch (error) {
    console.error(`${SERVER_NAME}: cannot listen on ${endpointUrl(config.http!)}: ${(error as Error).message}`);
    await binding.close();
    await runtime.audit?.close();
    Deno.exit(1);
  }
  console.error(
    `${SERVER_NAME}: serving MCP Streamable HTTP at ${http.url} (${token === null ? "no auth" : "bearer auth"})`,
  );
  let closing = false;
  onTerminate(async () => {
    if (closing) return;
    closing = true;
    runtime.audit?.stopping();
    await http.shutdown();
    await binding.close();
    await runtime.audit?.close();
    Deno.exit(0);
  });
}

/** Opens the trail of --audit-log FILE; a log that cannot be opened is fatal (exit 2) only with --audit-required. */
function openAuditTrail(
  config: Config,
  file: string,
  token: string | null,
  stop: (message: string) => Promise<void>,
): AuditTrail {
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
  if (config.auditRequired) exitWithUsage(`--audit-log ${file}: ${problem}`);
  console.error(
    `${SERVER_NAME}: WARNING: audit log ${trail.path}: ${problem}; serving without an audit trail until it can be written`,
  );
  return trail;
}

/**
 * Checks the audit log against the trees the workspace's commands may write (their sandbox's writable roots):
 * a warning when they could alter it, and, with --audit-required, the refusal of a log inside one of them.
 */
async function auditPlacement(audit: AuditTrail | null, bound: Bound): Promise<string | null> {
  if (audit === null) return null;
  const { commands } = await bound.services.policy.sandbox(new Set());
  const problem = audit.notePlacement(commands.writes);
  return problem !== null && audit.status().required
    ? `${problem} (--audit-required: choose a log outside the workspace and the private TMPDIR)`
    : null;
}

async function realPathOrNull(dir: string | undefined): Promise<string | null> {
  return dir ? await Deno.realPath(dir).catch(() => null) : null;
}

async function main(args: string[]): Promise<void> {
  const startDir = Deno.cwd();
  const launch = await relaunchIntoWorkspace(args);
  let parsed;
  try {
    parsed = parseArgs(args, Deno.env.toObject());
  } catch (error) {
    if (error instanceof UsageError) exitWithUsage(error.message);
    throw error;
  }
  if (parsed.kind === "help") {
    console.log(USAGE);
    return;
  }
  if (parsed.kind === "version") {
    console.log(`${SERVER_NAME} ${SERVER_VERSION}`);
    return;
  }
  if (parsed.kind === "audit-summary") {
    Deno.exit(await printAuditSummary(path.resolve(launch.cwd, parsed.file)));
  }
  const config: Config = parsed.config;
  if (parsed.kind === "card") {
    const { endpointUrl } = await import("./src/http/serve.ts");
    console.log(
      JSON.stringify(serverCard(config, config.http ? { url: endpointUrl(config.http) } : undefined), null, 2),
    );
    return;
  }
  let token: string | null = null;
  if (config.http) {
    try {
      token = await loadAuthToken(config, launch.cwd);
    } catch (error) {
      if (error instanceof AuthSetupError) exitWithUsage(error.message);
      throw error;
    }
  }
  const facts = await probeFacts();
  const openOptions: OpenOptions = { config, facts, home: await realPathOrNull(Deno.env.get("HOME")) };
  const binding = new WorkspaceBinding();
  /** Stops a serving server whose --audit-required trail cannot hold (its commands are killed first). */
  const stop = async (message: string) => {
    console.error(`${SERVER_NAME}: ${message}`);
    await binding.close();
    Deno.exit(1);
  };
  const audit = config.auditLog ? openAuditTrail(config, path.resolve(launch.cwd, config.auditLog), token, stop) : null;
  /** Opens and binds a choice; without a workspace the server keeps no write grant at all. */
  const bind = async (choice: WorkspaceChoice) => {
    const outcome = await openChoice(choice, openOptions);
    binding.settle(outcome);
    if (!("workspace" in outcome)) {
      console.error(`${SERVER_NAME}: no workspace: ${outcome.reason}`);
      await Deno.permissions.revoke({ name: "write" });
    } else {
      const refused = await auditPlacement(audit, outcome);
      if (refused !== null) await stop(refused);
    }
    return outcome;
  };
  const handoff = await takeHandoff();
  const plan = handoff
    ? { kind: "fixed" as const, choice: handoff.choice }
    : launchWorkspace({ flag: config.workspace, projectDir: Deno.env.get(PROJECT_DIR_ENV), cwd: launch.cwd });
  if (plan.kind === "fixed" && plan.choice.source === "flag") {
    // A --workspace that cannot be served is the user's mistake: say so at once, as for any bad flag.
    const outcome = await openChoice(plan.choice, openOptions);
    if (!("workspace" in outcome)) exitWithUsage(outcome.reason);
    binding.settle(outcome);
    const refused = await auditPlacement(audit, outcome);
    if (refused !== null) exitWithUsage(refused);
  } else if (plan.kind === "fixed") await bind(plan.choice);
  else if (config.http) await bind(plan.fallback); // one process serves every HTTP session: no roots
  const runtime: Runtime = { config, facts, binding, audit };
  if (config.http) await serveOverHttp(runtime, token);
  else {
    await serveStdio(runtime, {
      handoff,
      fallback: plan.kind === "pending" ? plan.fallback : null,
      bind,
      home: openOptions.home,
      startDir: await Deno.realPath(startDir),
      launchCwd: launch.cwd,
    });
  }
}

if (import.meta.main) await main(Deno.args);
