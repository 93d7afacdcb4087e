import { AUDIT_LIMITS, AUDIT_LOG_ENV } from "./audit/limits.ts";
import { DEFAULT_MAX_RESULT_CHARS, MAX_MAX_RESULT_CHARS, MIN_MAX_RESULT_CHARS } from "./paging/budget.ts";
import { type Mode, MODES } from "./policy/modes.ts";

/** Host used when --http gives only a port. */
export const DEFAULT_HTTP_HOST = "127.0.0.1";

/** Where --http serves. */
export interface HttpAddress {
  host: string;
  port: number;
}

/** Everything the command line decides. */
export interface Config {
  /** --workspace, or null: CLAUDE_PROJECT_DIR, the client's roots or the cwd decide (src/workspace/resolve.ts). */
  workspace: string | null;
  mode: Mode;
  http: HttpAddress | null;
  authTokenFile: string | null;
  httpNoAuth: boolean;
  viewImageEnabled: boolean;
  fakeReadonlyAnnotations: boolean;
  /** Ceiling on any result's structuredContent JSON, in characters (declared to clients in tools/list). */
  maxResultChars: number;
  /** --audit-log (else WORKCELL_AUDIT_LOG), or null: no audit trail (src/audit/). */
  auditLog: string | null;
  auditLogMaxBytes: number;
  /** Whether a log that cannot be written (or that commands may write) stops the server. */
  auditRequired: boolean;
}

/** What the command line asks for. */
export type ParsedArgs =
  | { kind: "run"; config: Config }
  | { kind: "card"; config: Config }
  | { kind: "audit-summary"; file: string }
  | { kind: "help" }
  | { kind: "version" };

/** A bad command line; main.ts prints the message and `see --help` on one line, then exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The usage text printed by --help. */
export const USAGE = `usage: workcell [--workspace DIR] [--mode safe|trusted|dangerous]
                [--http HOST:PORT] [--auth-token-file FILE] [--http-no-auth]
                [--disable-view-image] [--dangerously-fake-readonly-annotations]
                [--max-result-chars N] [--audit-log FILE] [--audit-log-max-bytes SIZE]
                [--audit-required] [--audit-summary FILE] [--print-server-card] [--version] [--help]

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
  --audit-log FILE   append one JSON line per session start/end and tool call to FILE
                     (or set ${AUDIT_LOG_ENV}); secrets and contents are never written
  --audit-log-max-bytes SIZE
                     rotate the audit log at SIZE bytes (K, M, G suffixes; default
                     ${AUDIT_LIMITS.defaultMaxBytes / 1024 / 1024}M), keeping ${AUDIT_LIMITS.keptFiles} old files
  --audit-required   stop instead of serving on when the audit log cannot be written
  --audit-summary FILE
                     print a summary of the audit log FILE (and its rotated files) and exit
  --print-server-card
                     print the server card (name, version, transport, tools, auth) as JSON and exit
  --version          print the version and exit
  --help             print this help and exit`;

/** The flags USAGE lists, each with whether it takes a value (a metavariable follows it there). */
const FLAGS = new Map([...USAGE.matchAll(/^ {2}(--[a-z-]+)( [A-Z:]+)?/gm)].map((match) => [match[1], !!match[2]]));

/** Whether `host` is a loopback address or name. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Parses `HOST:PORT`, `[V6]:PORT` or `:PORT`.
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

const SIZE_UNITS: Record<string, number> = { "": 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * Parses `--audit-log-max-bytes`: bytes, or with a K, M or G suffix (powers of 1024).
 * @example
 * ```ts
 * parseSize("16M"); // 16777216
 * ```
 */
export function parseSize(value: string): number {
  const match = /^(\d{1,12})([KMG]?)$/i.exec(value);
  if (!match) throw new UsageError(`--audit-log-max-bytes expects a size such as 16M, got ${JSON.stringify(value)}`);
  const bytes = Number(match[1]) * SIZE_UNITS[match[2].toUpperCase()];
  if (bytes < AUDIT_LIMITS.minMaxBytes) {
    throw new UsageError(`--audit-log-max-bytes must be at least ${AUDIT_LIMITS.minMaxBytes / 1024}K, got ${value}`);
  }
  return bytes;
}

/**
 * Parses the command line strictly: unknown, repeated or valueless flags and positional arguments are errors. `env`
 * supplies WORKCELL_AUDIT_LOG when `--audit-log` does not.
 * @example
 * ```ts
 * parseArgs(["--workspace", "/repo", "--mode=trusted"]);
 * ```
 */
export function parseArgs(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ParsedArgs {
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const takesValue = FLAGS.get(name);
    if (values.has(name) || switches.has(arg)) throw new UsageError(`${name} given more than once`);
    if (takesValue) {
      let value: string | undefined;
      if (eq > 0 && name !== arg) value = arg.slice(eq + 1);
      else {
        value = args[++i];
        if (value === undefined || value.startsWith("--")) throw new UsageError(`${name} needs a value`);
      }
      if (value === "") throw new UsageError(`${name} needs a non-empty value`);
      values.set(name, value);
    } else if (takesValue === false && name === arg) {
      switches.add(arg);
    } else if (takesValue === false) {
      throw new UsageError(`${name} takes no value`);
    } else if (arg.startsWith("-")) {
      throw new UsageError(`unknown flag ${name}`);
    } else {
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    }
  }
  if (switches.has("--help")) return { kind: "help" };
  if (switches.has("--version")) return { kind: "version" };
  const summary = values.get("--audit-summary");
  if (summary !== undefined) return { kind: "audit-summary", file: summary };

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
  const auditLog = values.get("--audit-log") ?? (env[AUDIT_LOG_ENV] || null);
  const maxBytes = values.get("--audit-log-max-bytes");
  if (!auditLog && maxBytes !== undefined) throw new UsageError("--audit-log-max-bytes only applies with --audit-log");
  if (!auditLog && switches.has("--audit-required")) {
    throw new UsageError(`--audit-required needs --audit-log FILE (or ${AUDIT_LOG_ENV})`);
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
      auditLog,
      auditLogMaxBytes: maxBytes === undefined ? AUDIT_LIMITS.defaultMaxBytes : parseSize(maxBytes),
      auditRequired: switches.has("--audit-required"),
    },
  };
}
