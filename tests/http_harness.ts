/**
 * End-to-end harness for the HTTP transport: starts the real server with
 * `--http` on a free loopback port (from source with the one permission
 * list, or the compiled binary named by WORKCELL_BINARY) and connects SDK
 * Streamable HTTP clients to it.
 *
 * @example
 * await using server = await startHttpServer({ token: TEST_TOKEN });
 * await using client = await server.connect();
 * const info = await client.call("server_info");
 */
import { Client, StreamableHTTPClientTransport } from "../src/sdk/client.ts";
import { ListRootsRequestSchema } from "../src/sdk/mod.ts";
import { type CallResult, serverCommand, serverEnv, tempWorkspace, toCallResult } from "./harness.ts";

/** A token long enough for the server's minimum. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

/** Options for {@linkcode startHttpServer}. */
export interface HttpStartOptions {
  /** The bearer token (given through WORKCELL_AUTH_TOKEN); null serves with --http-no-auth. */
  token: string | null;
  /** Give the token through --auth-token-file FILE instead (FILE must hold `token`). */
  tokenFile?: string;
  workspace?: string;
  args?: string[];
}

/** A connected Streamable HTTP client. */
export interface HttpClient extends AsyncDisposable {
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** A running HTTP server. */
export interface HttpTestServer extends AsyncDisposable {
  url: string;
  port: number;
  workspace: string;
  child: Deno.ChildProcess;
  stderr(): string;
  /** Connects an SDK client; `token` defaults to the server's own; with `roots` it declares and answers roots. */
  connect(options?: { token?: string | null; name?: string; roots?: string[] }): Promise<HttpClient>;
  /** Signals the server and waits for it to exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/** A loopback port nothing listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const READY = "serving MCP Streamable HTTP";

/** Starts the server over HTTP and waits until it listens. */
export async function startHttpServer(options: HttpStartOptions): Promise<HttpTestServer> {
  const ownWorkspace = options.workspace === undefined;
  const workspace = options.workspace ?? await tempWorkspace();
  const port = freePort();
  const http = { host: "127.0.0.1", port };
  const auth = options.token === null
    ? ["--http-no-auth"]
    : options.tokenFile === undefined
    ? []
    : ["--auth-token-file", options.tokenFile];
  const flags = ["--http", `127.0.0.1:${port}`, ...auth];
  const { command, args } = serverCommand(workspace, http, [...flags, ...(options.args ?? [])]);
  const env = serverEnv();
  if (options.token !== null && options.tokenFile === undefined) env.WORKCELL_AUTH_TOKEN = options.token;
  const child = new Deno.Command(command, { args, env, clearEnv: true, stdin: "null", stdout: "null", stderr: "piped" })
    .spawn();
  let stderr = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const ready = (async () => {
    while (!stderr.includes(READY)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`server exited before listening:\n${stderr}`);
      stderr += value;
    }
    (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) stderr += chunk.value;
    })();
  })();
  await ready;
  const url = `http://127.0.0.1:${port}/mcp`;
  const clients = new Set<HttpClient>();
  let status: Promise<Deno.CommandStatus> | null = null;
  const stop = (signal: Deno.Signal = "SIGTERM") => {
    if (!status) {
      child.kill(signal);
      status = child.status;
    }
    return status;
  };
  const dispose = async () => {
    await Promise.allSettled([...clients].map((client) => client.close()));
    await stop();
    if (ownWorkspace) await Deno.remove(workspace, { recursive: true }).catch(() => {});
  };
  return {
    url,
    port,
    workspace,
    child,
    stderr: () => stderr,
    stop,
    [Symbol.asyncDispose]: dispose,
    async connect(connectOptions = {}) {
      const token = connectOptions.token === undefined ? options.token : connectOptions.token;
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: token === null ? {} : { headers: { Authorization: `Bearer ${token}` } },
      });
      const roots = connectOptions.roots;
      const client = new Client(
        { name: connectOptions.name ?? "workcell-http-e2e", version: "1.0.0" },
        { capabilities: roots ? { roots: { listChanged: true } } : {} },
      );
      if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
      await client.connect(transport);
      const close = async () => {
        clients.delete(handle);
        await transport.terminateSession().catch(() => {});
        await client.close();
      };
      const handle: HttpClient = {
        client,
        transport,
        close,
        [Symbol.asyncDispose]: close,
        call: async (name, args = {}) => toCallResult(await client.callTool({ name, arguments: args })),
      };
      clients.add(handle);
      return handle;
    },
  };
}
