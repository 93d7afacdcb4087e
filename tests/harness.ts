/**
 * End-to-end harness: spawns the real server over stdio with the one
 * permission list and drives it with the SDK's Client.
 *
 * @example
 * await using server = await startServer();
 * const result = await server.call("server_info", {});
 */
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import * as path from "node:path";
import { ElicitRequestSchema, ListRootsRequestSchema } from "../src/sdk/mod.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { FILE_BACKEND_ENV } from "../src/workspace/workspace.ts";

/** A running server with a connected client. */
export interface TestServer extends AsyncDisposable {
  client: Client;
  /** The --workspace root (a fresh temp dir unless one was given), or the directory a server without one started in. */
  workspace: string;
  /** Calls a tool and returns the result with structuredContent typed loosely. */
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  /** Collected stderr of the server so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** A tool result as the tests read it. */
export interface CallResult {
  isError: boolean;
  text: string;
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  // deno-lint-ignore no-explicit-any
  structured: any;
}

/** Adapts an SDK tool result to the shape the tests read. */
export function toCallResult(result: Awaited<ReturnType<Client["callTool"]>>): CallResult {
  const content = result.content as CallResult["content"];
  return {
    isError: result.isError === true,
    content,
    text: content.filter((block) => block.type === "text").map((block) => block.text).join("\n"),
    structured: result.structuredContent,
  };
}

/** Options for {@linkcode startServer}. */
export interface StartOptions {
  /**
   * The workspace passed as --workspace (a fresh temp dir by default); null starts the server without
   * --workspace, so CLAUDE_PROJECT_DIR, the client's roots or `cwd` decide, with the grant of `deno task start`.
   */
  workspace?: string | null;
  /** The directory the server starts in (default: the workspace). */
  cwd?: string;
  /** The client declares the roots capability and answers roots/list with these URIs (mutable: list_changed). */
  roots?: string[];
  args?: string[];
  clientCapabilities?: Record<string, unknown>;
  /** A command the server is started through, e.g. `["setpriv", "--bounding-set=-dac_override", "--"]`. */
  wrapper?: string[];
  /** Answers elicitation/create (declare `clientCapabilities: { elicitation: {} }` too). */
  onElicit?: (request: { message: string; requestedSchema: unknown }) => ElicitAnswer | Promise<ElicitAnswer>;
  /** Extra environment for the server process (on top of PATH, HOME, NO_COLOR). */
  env?: Record<string, string>;
  /** The Deno binary to run the server with (default: this one). */
  deno?: string;
}

/** What the test client answers to an elicitation. */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean>;
}

/** Creates a fresh temp directory; the caller removes it (startServer does for its own). */
export async function tempWorkspace(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-test-" }));
}

/**
 * The command that starts the server on `workspace`: the compiled binary when
 * WORKCELL_BINARY is set (tests/build_test.ts runs the e2e suite that way),
 * else `deno run` from source with the one permission list.
 */
export function serverCommand(
  workspace: string,
  http: { host: string; port: number } | null,
  args: string[],
  deno = Deno.execPath(),
): { command: string; args: string[] } {
  const binary = Deno.env.get("WORKCELL_BINARY");
  if (binary) return { command: binary, args: ["--workspace", workspace, ...args] };
  return {
    command: deno,
    args: [...sourceRunArgs({ http }), "--workspace", workspace, ...args],
  };
}

/**
 * The environment the test servers get: a bare PATH and HOME, no colour, and the file backend this test process
 * was started with (WORKCELL_FILE_BACKEND, to run a test file against the POSIX fd backend).
 */
export function serverEnv(): Record<string, string> {
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root", NO_COLOR: "1" };
  const backend = Deno.env.get(FILE_BACKEND_ENV);
  return backend === undefined ? env : { ...env, [FILE_BACKEND_ENV]: backend };
}

/**
 * The command that starts the server without --workspace, as `deno task start` does, or the compiled binary
 * when WORKCELL_BINARY is set.
 */
function unplacedServerCommand(args: string[]): { command: string; args: string[] } {
  const binary = Deno.env.get("WORKCELL_BINARY");
  if (binary) return { command: binary, args };
  return {
    command: Deno.execPath(),
    args: [...sourceRunArgs({ http: null }), ...args],
  };
}

/** Starts the server from source exactly as `deno task start` does (or the compiled binary, see serverCommand). */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownWorkspace = options.workspace === undefined;
  const workspace = options.workspace === undefined ? await tempWorkspace() : options.workspace;
  const env = { ...serverEnv(), ...options.env };
  const cwd = options.cwd ?? workspace ?? Deno.cwd();
  const server = workspace === null
    ? unplacedServerCommand(options.args ?? [])
    : serverCommand(workspace, null, options.args ?? [], options.deno);
  const [command, ...prefix] = [...(options.wrapper ?? []), server.command];
  const transport = new StdioClientTransport({
    command,
    args: [...prefix, ...server.args],
    env,
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const roots = options.roots;
  const capabilities = { ...options.clientCapabilities, ...(roots ? { roots: { listChanged: true } } : {}) };
  const client = new Client({ name: "workcell-e2e", version: "1.0.0" }, { capabilities });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
  const onElicit = options.onElicit;
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      const answer = await onElicit({ message: params.message, requestedSchema: params.requestedSchema });
      return { ...answer } as Record<string, unknown>;
    });
  }
  await client.connect(transport);
  const close = async () => {
    await client.close();
    if (ownWorkspace && workspace !== null) await Deno.remove(workspace, { recursive: true }).catch(() => {});
  };
  return {
    client,
    workspace: workspace ?? cwd,
    stderr: () => stderr,
    close,
    [Symbol.asyncDispose]: close,
    call: async (name, args = {}) => toCallResult(await client.callTool({ name, arguments: args })),
  };
}

/** A JSON-RPC message as read back from the server. */
// deno-lint-ignore no-explicit-any
export type RawMessage = Record<string, any>;

/** A server driven over raw stdio: bytes in, newline-delimited JSON out, no SDK client in between. */
export interface RawServer extends AsyncDisposable {
  workspace: string;
  /** Writes bytes (or text) to the server's stdin exactly as given. */
  write(data: string | Uint8Array): Promise<void>;
  /** Sends one request with a fresh numeric id (unless `id` is given) and waits for the response with that id. */
  request(
    method: string,
    params?: unknown,
    options?: { id?: string | number; timeoutMs?: number },
  ): Promise<RawMessage>;
  /** Whether the server process is still running. */
  alive(): boolean;
  /** Lines the server wrote to stdout that were not JSON (there must be none). */
  nonJsonOutput(): string[];
  /** Collected stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Spawns the server like {@linkcode startServer} (with `args` after its
 * --workspace) but hands the test its raw stdin and stdout, for
 * protocol-level tests (malformed JSON, odd bytes).
 *
 * @example
 * await using server = await startRawServer();
 * await server.write("{not json\n");
 * (await server.request("ping")).result; // {}
 */
export async function startRawServer(args: string[] = []): Promise<RawServer> {
  const workspace = await tempWorkspace();
  const spec = serverCommand(workspace, null, args);
  const child = new Deno.Command(spec.command, {
    args: spec.args,
    env: serverEnv(),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let running = true;
  const status = child.status.then((value) => {
    running = false;
    return value;
  });
  const writer = child.stdin.getWriter();
  const pending = new Map<string, (message: RawMessage) => void>();
  const nonJson: string[] = [];
  let stderr = "";
  const drainStderr = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (stderr += chunk) }),
  ).catch(() => {});
  const readStdout = (async () => {
    let buffered = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message: RawMessage;
        try {
          message = JSON.parse(line);
        } catch {
          nonJson.push(line.slice(0, 200)); // stdout must carry JSON-RPC only
          continue;
        }
        const key = JSON.stringify(message.id ?? null);
        pending.get(key)?.(message);
        pending.delete(key);
      }
    }
  })();
  let nextId = 1;
  const encoder = new TextEncoder();
  const write = (data: string | Uint8Array) => writer.write(typeof data === "string" ? encoder.encode(data) : data);
  const close = async () => {
    await writer.close().catch(() => {});
    const timer = setTimeout(() => running && child.kill("SIGKILL"), 5000);
    await status;
    clearTimeout(timer);
    await Promise.all([readStdout.catch(() => {}), drainStderr]);
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  };
  return {
    workspace,
    write,
    alive: () => running,
    nonJsonOutput: () => nonJson,
    stderr: () => stderr,
    close,
    [Symbol.asyncDispose]: close,
    request(method, params, options = {}) {
      const id = options.id ?? nextId++;
      const key = JSON.stringify(id);
      const answer = new Promise<RawMessage>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(key);
          reject(new Error(`no answer to ${method} (id ${key}) within ${options.timeoutMs ?? 10000} ms`));
        }, options.timeoutMs ?? 10000);
        pending.set(key, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
      });
      const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
      return write(JSON.stringify(message) + "\n").then(() => answer);
    },
  };
}

/** The uid and gid tests run the server as when they check an unprivileged user (nobody). */
export const NOBODY = 65534;

/**
 * How to start the server as an ordinary user (nobody) from a root test run: a copy of the Deno binary any
 * user may run, a Deno cache of that user's own, and `setpriv` dropping to it. Pass the result to
 * {@linkcode startServer} with a workspace nobody owns.
 *
 * @example
 * const asNobody = await unprivileged();
 * await using server = await startServer({ workspace, ...asNobody });
 */
export async function unprivileged(): Promise<Pick<StartOptions, "wrapper" | "env"> & { deno: string }> {
  const dir = path.join(Deno.env.get("TMPDIR") ?? "/tmp", `workcell-nobody-deno-${Deno.version.deno}`);
  const deno = path.join(dir, "deno");
  await Deno.mkdir(path.join(dir, "cache"), { recursive: true });
  await Deno.mkdir(path.join(dir, "home"), { recursive: true });
  const size = await Deno.stat(deno).then((info) => info.size, () => -1);
  if (size !== (await Deno.stat(Deno.execPath())).size) await Deno.copyFile(Deno.execPath(), deno);
  await Deno.chmod(dir, 0o755);
  await Deno.chmod(deno, 0o755);
  for (const sub of ["cache", "home"]) await Deno.chown(path.join(dir, sub), NOBODY, NOBODY);
  return {
    deno,
    wrapper: ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--"],
    env: { DENO_DIR: path.join(dir, "cache"), HOME: path.join(dir, "home") },
  };
}
