/**
 * workcell: an MCP server that gives a coding agent a confined workspace.
 *
 * CLI: flags -> Config -> transport. stdout carries protocol only.
 *
 * This module loads only what `--version`, `--help`, a usage error and a
 * stdio server's answer to `initialize` need (about 15 small modules, no
 * npm package): the server itself, with the MCP SDK, zod and the catalog
 * (about 200 ms of module loading), is src/serve.ts, imported while the
 * first line of input is awaited, or once it (and the tools/list that
 * follows it) is answered (src/session/early_initialize.ts).
 *
 * On a system other than Linux and macOS it prints one line and exits with
 * {@linkcode UNSUPPORTED_SYSTEM_EXIT} before it does anything else.
 */
import { parseArgs, USAGE, UsageError } from "./src/config.ts";
import { SERVER_NAME, SERVER_VERSION } from "./src/version.ts";
import { pinChoice, type Pinned, type Refusal } from "./src/session/pin.ts";
import { answerInitializeEarly, type EarlyStart } from "./src/session/early_initialize.ts";
import { serverInstructions } from "./src/instructions.ts";
import { listedTools } from "./src/catalog_listing.ts";
import { FdInput } from "./src/transport/fd_input.ts";
import { Termination } from "./src/termination.ts";
import { launchWorkspace, PROJECT_DIR_ENV } from "./src/workspace/resolve.ts";
import { mapLargeBlocksApart } from "./src/os/allocator.ts";

/** The systems workcell runs on, as the refusal names them (README's platform table has the details). */
export const SUPPORTED_SYSTEMS = "Linux (x86_64, arm64) and macOS (x86_64, arm64)";

/** Exit status on an unsupported system (2 stays a usage error: docs/runtime-contract.md). */
export const UNSUPPORTED_SYSTEM_EXIT = 1;

const SYSTEM_NAMES: Readonly<Record<string, string>> = {
  windows: "Windows",
  android: "Android",
  freebsd: "FreeBSD",
  netbsd: "NetBSD",
  aix: "AIX",
  solaris: "Solaris",
  illumos: "illumos",
};

/**
 * The one line printed on a system workcell does not run on (`Deno.build.os`), or null on Linux and darwin.
 *
 * @example
 * ```ts
 * systemRefusal("windows"); // "workcell: Windows is not supported; workcell runs on Linux (x86_64, arm64) and macOS (x86_64, arm64)"
 * ```
 */
export function systemRefusal(os: string): string | null {
  if (os === "linux" || os === "darwin") return null;
  return `${SERVER_NAME}: ${SYSTEM_NAMES[os] ?? os} is not supported; ${SERVER_NAME} runs on ${SUPPORTED_SYSTEMS}`;
}

/**
 * The one line a usage error prints: what was wrong, then where the flags are described.
 *
 * @example
 * ```ts
 * usageLine("unknown flag --foo"); // "workcell: unknown flag --foo; see --help"
 * ```
 */
export function usageLine(message: string): string {
  return `${SERVER_NAME}: ${message}; see --help`;
}

function exitWithUsage(message: string): never {
  console.error(usageLine(message));
  Deno.exit(2);
}

/**
 * The server (src/serve.ts), imported by a computed specifier: Deno builds the module graph of a literal `import()`
 * before main.ts runs (18 ms, paid by `--version` and before the early initialize answer too), and `deno compile`
 * does not follow a computed one: build.ts includes this module explicitly.
 */
export const SERVER_MODULE: URL = new URL("./src/serve.ts", import.meta.url);

async function loadServer(): Promise<typeof import("./src/serve.ts")> {
  return await import(SERVER_MODULE.href);
}

async function realPathOrNull(dir: string | undefined): Promise<string | null> {
  return dir ? await Deno.realPath(dir).catch(() => null) : null;
}

async function main(args: string[]): Promise<void> {
  const launchCwd = Deno.cwd();
  const parsed = parseArgs(args, Deno.env.toObject());
  if (parsed.kind === "help") {
    console.log(USAGE);
    return;
  }
  if (parsed.kind === "version") {
    console.log(`${SERVER_NAME} ${SERVER_VERSION}`);
    return;
  }
  if (parsed.kind === "audit-summary") {
    Deno.exit(await (await loadServer()).printAuditSummary(parsed.file, launchCwd));
  }
  const config = parsed.config;
  mapLargeBlocksApart();
  if (parsed.kind === "card") return (await loadServer()).printServerCard(config);
  const home = await realPathOrNull(Deno.env.get("HOME"));
  const termination = new Termination();
  if (config.http) return await (await loadServer()).serveHttp(config, launchCwd, home, termination);

  const plan = launchWorkspace({ flag: config.workspace, projectDir: Deno.env.get(PROJECT_DIR_ENV), cwd: launchCwd });
  let pinned: Pinned | Refusal | null = null;
  if (plan.kind === "fixed") {
    pinned = pinChoice(plan.choice, home);
    // A --workspace that cannot be served is the user's mistake: say so at once, as for any bad flag.
    if (!("workspace" in pinned) && plan.choice.source === "flag") exitWithUsage(pinned.reason);
  }
  // Anything that logs must not corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  // stdio needs no network; a compiled binary carries a net grant for --http, so drop it.
  await Deno.permissions.revoke({ name: "net" });
  const input = new FdInput(0);
  const root = pinned && "workspace" in pinned ? pinned.workspace.root : null;
  const serverReady = Promise.withResolvers<void>();
  const early: Promise<EarlyStart> = answerInitializeEarly(input.readable, Deno.stdout.writable, {
    instructions: serverInstructions(config, root),
    tools: () => listedTools(config),
    readyWithin: (ms) => input.readyWithin(ms),
    serverReady: serverReady.promise,
  });
  // Evaluating the server's modules holds the thread for ~150 ms: when the first line is already there (clients
  // send initialize as soon as they spawn), answer it first, and the tools/list that follows; otherwise load
  // while it is awaited.
  if (input.ready()) await early;
  const { serveStdio } = await loadServer();
  serverReady.resolve();
  await serveStdio({
    config,
    pinned,
    fallback: plan.kind === "pending" ? plan.fallback : null,
    home,
    launchCwd,
    early,
    termination,
  });
}

if (import.meta.main) {
  const refusal = systemRefusal(Deno.build.os);
  if (refusal !== null) {
    console.error(refusal);
    Deno.exit(UNSUPPORTED_SYSTEM_EXIT);
  }
  try {
    await main(Deno.args);
  } catch (error) {
    if (error instanceof UsageError) exitWithUsage(error.message);
    throw error;
  }
}
