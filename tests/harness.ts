/**
 * End-to-end harness: spawns the real server over stdio with the one
 * permission list and drives it with the SDK's Client.
 *
 * @example
 * await using server = await startServer();
 * const result = await server.call("server_info", {});
 */
import { Client, ElicitRequestSchema, StdioClientTransport } from "../src/sdk/mod.ts";
import { sourceRunArgs } from "../src/permissions.ts";

/** A running server with a connected client. */
export interface TestServer extends AsyncDisposable {
  client: Client;
  /** The workspace root (a fresh temp dir unless one was given). */
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

/** Options for {@linkcode startServer}. */
export interface StartOptions {
  workspace?: string;
  args?: string[];
  clientCapabilities?: Record<string, unknown>;
  /** Answers elicitation/create (declare `clientCapabilities: { elicitation: {} }` too). */
  onElicit?: (request: { message: string; requestedSchema: unknown }) => ElicitAnswer | Promise<ElicitAnswer>;
  /** Extra environment for the server process (on top of PATH, HOME, NO_COLOR). */
  env?: Record<string, string>;
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
): { command: string; args: string[] } {
  const binary = Deno.env.get("WORKCELL_BINARY");
  if (binary) return { command: binary, args: ["--workspace", workspace, ...args] };
  return {
    command: Deno.execPath(),
    args: [...sourceRunArgs({ writeRoot: workspace, http }), "--workspace", workspace, ...args],
  };
}

/** Starts the server from source exactly as `deno task start` does (or the compiled binary, see serverCommand). */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const ownWorkspace = options.workspace === undefined;
  const workspace = options.workspace ?? await tempWorkspace();
  const transport = new StdioClientTransport({
    ...serverCommand(workspace, null, options.args ?? []),
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/root",
      NO_COLOR: "1",
      ...options.env,
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client(
    { name: "workcell-e2e", version: "1.0.0" },
    { capabilities: options.clientCapabilities ?? {} },
  );
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
    if (ownWorkspace) await Deno.remove(workspace, { recursive: true }).catch(() => {});
  };
  return {
    client,
    workspace,
    stderr: () => stderr,
    close,
    [Symbol.asyncDispose]: close,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as CallResult["content"];
      return {
        isError: result.isError === true,
        content,
        text: content.filter((block) => block.type === "text").map((block) => block.text).join("\n"),
        structured: result.structuredContent,
      };
    },
  };
}
