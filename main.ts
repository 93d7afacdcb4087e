/**
 * workcell: an MCP server that gives a coding agent a confined workspace.
 *
 * CLI: flags -> Config -> transport. stdout carries protocol only.
 */
import { parseArgs, USAGE, UsageError } from "./src/config.ts";
import { openWorkspace, WorkspaceError } from "./src/workspace/confine.ts";
import { createServices } from "./src/services.ts";
import { createMcpServer, type Runtime } from "./src/server.ts";
import { StdioServerTransport } from "./src/sdk/mod.ts";
import { SERVER_NAME, SERVER_VERSION } from "./src/version.ts";

function exitWithUsage(message: string): never {
  console.error(`${SERVER_NAME}: ${message}`);
  console.error(USAGE);
  Deno.exit(2);
}

async function main(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs(args, Deno.cwd());
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
  const config = parsed.config;
  let workspace;
  try {
    workspace = await openWorkspace(config.workspace);
  } catch (error) {
    if (error instanceof WorkspaceError) exitWithUsage(error.message);
    throw error;
  }
  if (config.http) {
    console.error(`${SERVER_NAME}: --http is not implemented in this build; use stdio`);
    Deno.exit(1);
  }
  // Anything that logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const services = await createServices(config, workspace);
  const runtime: Runtime = { config, workspace, services };
  const server = createMcpServer(runtime, "stdio");
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    await services.close();
    Deno.exit(code);
  };
  const closeSession = server.onclose;
  server.onclose = () => {
    closeSession?.();
    void shutdown(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => void shutdown(0));
  await server.connect(new StdioServerTransport());
}

if (import.meta.main) await main(Deno.args);
