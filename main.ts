/**
 * workcell: an MCP server that gives a coding agent a confined workspace.
 *
 * CLI: flags -> Config -> transport. stdout carries protocol only.
 */
import * as path from "node:path";
import { type Config, parseArgs, USAGE, UsageError } from "./src/config.ts";
import { openWorkspace, WorkspaceError } from "./src/workspace/confine.ts";
import { createServices, type Services } from "./src/services.ts";
import { createMcpServer, type Runtime } from "./src/server.ts";
import { LineTransport } from "./src/transport/stdio.ts";
import { SERVER_NAME, SERVER_VERSION } from "./src/version.ts";
import { serverCard } from "./src/card/server_card.ts";
import { AuthSetupError, loadAuthToken } from "./src/http/auth.ts";
import { relaunchIntoWorkspace } from "./src/compiled/relaunch.ts";

function exitWithUsage(message: string): never {
  console.error(`${SERVER_NAME}: ${message}`);
  console.error(USAGE);
  Deno.exit(2);
}

/** Runs `shutdown` once, on the first SIGINT or SIGTERM. */
function onTerminate(shutdown: () => Promise<void>): void {
  // Windows delivers only SIGINT and SIGBREAK to Deno.
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, () => void shutdown());
}

async function serveStdio(runtime: Runtime): Promise<void> {
  // Anything that logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // stdio needs no network; a compiled binary carries a net grant for --http, so drop it.
  await Deno.permissions.revoke({ name: "net" });
  const server = createMcpServer(runtime, "stdio");
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await runtime.services.close();
    Deno.exit(0);
  };
  // Chain, do not replace: createMcpServer's own close handling releases the session's commands.
  const closeSession = server.onclose;
  server.onclose = () => {
    closeSession?.();
    void shutdown();
  };
  onTerminate(shutdown);
  await server.connect(new LineTransport(Deno.stdin.readable, Deno.stdout.writable));
}

async function serveOverHttp(runtime: Runtime, token: string | null): Promise<void> {
  const { config, services } = runtime;
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
    await services.close();
    Deno.exit(1);
  }
  console.error(
    `${SERVER_NAME}: serving MCP Streamable HTTP at ${http.url} (${token === null ? "no auth" : "bearer auth"})`,
  );
  let closing = false;
  onTerminate(async () => {
    if (closing) return;
    closing = true;
    await http.shutdown();
    await services.close();
    Deno.exit(0);
  });
}

async function main(args: string[]): Promise<void> {
  const launch = await relaunchIntoWorkspace(args);
  let parsed;
  try {
    parsed = parseArgs(args, launch.cwd);
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
  const config: Config = { ...parsed.config, workspace: path.resolve(launch.cwd, parsed.config.workspace) };
  if (parsed.kind === "card") {
    const { endpointUrl } = await import("./src/http/serve.ts");
    console.log(
      JSON.stringify(serverCard(config, config.http ? { url: endpointUrl(config.http) } : undefined), null, 2),
    );
    return;
  }
  let workspace;
  try {
    workspace = await openWorkspace(config.workspace);
  } catch (error) {
    if (error instanceof WorkspaceError) exitWithUsage(error.message);
    throw error;
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
  const services: Services = await createServices(config, workspace);
  const runtime: Runtime = { config, workspace, services };
  if (config.http) await serveOverHttp(runtime, token);
  else await serveStdio(runtime);
}

if (import.meta.main) await main(Deno.args);
