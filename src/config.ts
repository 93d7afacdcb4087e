/**
 * The command line: strict flag parsing into a {@linkcode Config}.
 *
 * @example
 * ```ts
 * const parsed = parseArgs(["--workspace", "/repo", "--mode", "trusted"]);
 * if (parsed.kind === "run") console.error(parsed.config.mode);
 * ```
 */

import { DEFAULT_MAX_RESULT_CHARS, MAX_MAX_RESULT_CHARS, MIN_MAX_RESULT_CHARS } from "./paging/budget.ts";

/** Permission modes, from most to least restrictive. */
export const MODES = ["safe", "trusted", "dangerous"] as const;
export type Mode = typeof MODES[number];

/** Host used when --http gives only a port. */
export const DEFAULT_HTTP_HOST = "127.0.0.1";

/** Where --http serves. */
export interface HttpAddress {
  host: string;
  port: number;
}

/** Everything the command line decides. */
export interface Config {
  /** --workspace as given, or null (then CLAUDE_PROJECT_DIR, the client's roots or the cwd: src/workspace/resolve.ts). */
  workspace: string | null;
  mode: Mode;
  http: HttpAddress | null;
  authTokenFile: string | null;
  httpNoAuth: boolean;
  viewImageEnabled: boolean;
  fakeReadonlyAnnotations: boolean;
  /** Ceiling on the characters of any result's structuredContent JSON (declared to clients in tools/list). */
  maxResultChars: number;
}

/** What the command line asks for. */
export type ParsedArgs =
  | { kind: "run"; config: Config }
  | { kind: "card"; config: Config }
  | { kind: "help" }
  | { kind: "version" };

/** A bad command line; main.ts prints the message and usage, then exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The usage text printed by --help and after a usage error. */
export const USAGE = `usage: workcell [--workspace DIR] [--mode safe|trusted|dangerous]
                [--http HOST:PORT] [--auth-token-file FILE] [--http-no-auth]
                [--disable-view-image] [--dangerously-fake-readonly-annotations]
                [--max-result-chars N] [--print-server-card] [--version] [--help]

  --workspace DIR    confine every tool to DIR (default: $CLAUDE_PROJECT_DIR, else the client's
                     MCP roots, else the current directory; never / or the home directory
                     unless named here)
  --mode MODE        command policy: safe (default), trusted or dangerous
  --http HOST:PORT   serve MCP Streamable HTTP at http://HOST:PORT/mcp instead of stdio
                     (HOST defaults to ${DEFAULT_HTTP_HOST}; a bearer token is required)
  --auth-token-file FILE
                     read the HTTP bearer token from FILE (or set WORKCELL_AUTH_TOKEN)
  --http-no-auth     serve HTTP without a token (loopback hosts only)
  --disable-view-image
                     leave view_image out of tools/list (clients without image content)
  --dangerously-fake-readonly-annotations
                     advertise every tool as read-only in tools/list; behaviour is unchanged
  --max-result-chars N
                     ceiling on any result's structuredContent JSON, in characters
                     (default ${DEFAULT_MAX_RESULT_CHARS}, ${MIN_MAX_RESULT_CHARS}-${MAX_MAX_RESULT_CHARS})
  --print-server-card
                     print the server card (name, version, transport, tools, auth) as JSON and exit
  --version          print the version and exit
  --help             print this help and exit`;

const VALUE_FLAGS = ["--workspace", "--mode", "--http", "--auth-token-file", "--max-result-chars"] as const;
const SWITCH_FLAGS = [
  "--http-no-auth",
  "--disable-view-image",
  "--dangerously-fake-readonly-annotations",
  "--print-server-card",
  "--version",
  "--help",
] as const;

/** Whether `host` is a loopback address or name. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Parses `HOST:PORT`, `[V6]:PORT` or `:PORT`.
 *
 * @example
 * ```ts
 * parseHttpAddress("127.0.0.1:8080"); // { host: "127.0.0.1", port: 8080 }
 * ```
 */
export function parseHttpAddress(value: string): HttpAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]]*)):(\d{1,5})$/.exec(value);
  if (!match) throw new UsageError(`--http expects HOST:PORT, got ${JSON.stringify(value)}`);
  const port = Number(match[3]);
  if (port < 1 || port > 65535) throw new UsageError(`--http port must be 1-65535, got ${match[3]}`);
  const host = match[1] ?? (match[2] === "" ? DEFAULT_HTTP_HOST : match[2]);
  return { host, port };
}

function parseMaxResultChars(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESULT_CHARS;
  const chars = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (!(chars >= MIN_MAX_RESULT_CHARS && chars <= MAX_MAX_RESULT_CHARS)) {
    throw new UsageError(
      `--max-result-chars must be an integer from ${MIN_MAX_RESULT_CHARS} to ${MAX_MAX_RESULT_CHARS}, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return chars;
}

/**
 * Parses the command line strictly: unknown flags, missing values, repeated
 * flags and positional arguments are errors.
 *
 * @example
 * ```ts
 * parseArgs(["--mode=trusted"]);
 * ```
 */
export function parseArgs(args: readonly string[]): ParsedArgs {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if ((VALUE_FLAGS as readonly string[]).includes(name)) {
      if (values.has(name)) throw new UsageError(`${name} given more than once`);
      let value: string | undefined;
      if (eq > 0 && name !== arg) value = arg.slice(eq + 1);
      else {
        value = args[++i];
        if (value === undefined || value.startsWith("--")) throw new UsageError(`${name} needs a value`);
      }
      if (value === "") throw new UsageError(`${name} needs a non-empty value`);
      values.set(name, value);
    } else if ((SWITCH_FLAGS as readonly string[]).includes(arg)) {
      if (switches.has(arg)) throw new UsageError(`${arg} given more than once`);
      switches.add(arg);
    } else if ((SWITCH_FLAGS as readonly string[]).includes(name)) {
      throw new UsageError(`${name} takes no value`);
    } else if (arg.startsWith("-")) {
      throw new UsageError(`unknown flag ${name}`);
    } else {
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    }
  }
  if (switches.has("--help")) return { kind: "help" };
  if (switches.has("--version")) return { kind: "version" };

  const mode = values.get("--mode") ?? "safe";
  if (!(MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  }
  const httpValue = values.get("--http");
  const http = httpValue === undefined ? null : parseHttpAddress(httpValue);
  const httpNoAuth = switches.has("--http-no-auth");
  const authTokenFile = values.get("--auth-token-file") ?? null;
  if (!http && httpNoAuth) throw new UsageError("--http-no-auth only applies with --http");
  if (!http && authTokenFile) throw new UsageError("--auth-token-file only applies with --http");
  if (httpNoAuth && authTokenFile) throw new UsageError("--http-no-auth and --auth-token-file exclude each other");
  if (http && httpNoAuth && !isLoopbackHost(http.host)) {
    throw new UsageError(`--http-no-auth is refused on non-loopback host ${http.host}; give a token instead`);
  }
  return {
    kind: switches.has("--print-server-card") ? "card" : "run",
    config: {
      workspace: values.get("--workspace") ?? null,
      mode: mode as Mode,
      http,
      authTokenFile,
      httpNoAuth,
      viewImageEnabled: !switches.has("--disable-view-image"),
      fakeReadonlyAnnotations: switches.has("--dangerously-fake-readonly-annotations"),
      maxResultChars: parseMaxResultChars(values.get("--max-result-chars")),
    },
  };
}
