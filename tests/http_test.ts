import * as path from "node:path";
import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { serverCommand, tempWorkspace } from "./harness.ts";
import { startHttpServer, TEST_TOKEN } from "./http_harness.ts";
import { loadCatalog, TOOL_NAMES } from "../src/catalog.ts";
import { CARD_META_KEY, CARD_NAME, SERVER_CARD_PATH } from "../src/card/server_card.ts";
import { SERVER_CARD_MEDIA_TYPE } from "../src/http/card_response.ts";
import { MAX_REQUEST_BODY_BYTES } from "../src/http/sessions.ts";

/** Linux-only: these find a session's commands in /proc. */
const LINUX_ONLY = Deno.build.os !== "linux";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<Response> {
  const response = await fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });
  await response.body?.cancel();
  return response;
}

/** A `sleep` duration no other process uses, to find the command in /proc. */
function uniqueSleep(): string {
  return `${30 + Math.floor(Math.random() * 100_000) / 100_000}`;
}

/** Pids of live `sleep MARKER` processes. */
async function processesWith(marker: string): Promise<string[]> {
  const pids: string[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`).catch(() => "");
    if (cmdline === `sleep\0${marker}\0` && !/^\d+ \(.*\) Z/.test(stat)) pids.push(entry.name);
  }
  return pids;
}

/** Runs the server to completion (for refusals at start-up). */
async function runToExit(args: string[], env: Record<string, string> = {}) {
  const workspace = await tempWorkspace();
  try {
    const { command, args: full } = serverCommand(workspace, { host: "127.0.0.1", port: 1 }, args);
    const out = await new Deno.Command(command, {
      args: full,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test("http: start-up refuses a missing, short or off-loopback-less token, and --http-no-auth off loopback", async () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--http", "127.0.0.1:1"], {}, /--http needs a bearer token: give --auth-token-file/],
    [["--http", "0.0.0.0:1"], {}, /refusing to serve non-loopback host 0\.0\.0\.0 without one/],
    [["--http", "0.0.0.0:1", "--http-no-auth"], {}, /--http-no-auth is refused on non-loopback host 0\.0\.0\.0/],
    [["--http", "127.0.0.1:1"], { WORKCELL_AUTH_TOKEN: "short" }, /is 5 characters; use at least 16/],
    [["--http", "127.0.0.1:1", "--auth-token-file", "/nonexistent/token"], {}, /cannot read --auth-token-file/],
  ];
  for (const [args, env, pattern] of cases) {
    const result = await runToExit(args, env);
    assertEquals(result.code, 2, args.join(" "));
    assert(pattern.test(result.stderr), `${args.join(" ")}: ${result.stderr}`);
    assertEquals(result.stdout, "");
  }
});

Deno.test("http: bearer auth refuses missing and wrong tokens with 401 + WWW-Authenticate, accepts the right one", async () => {
  await using server = await startHttpServer({ token: TEST_TOKEN });
  const missing = await post(server.url, {});
  assertEquals(missing.status, 401);
  assertEquals(missing.headers.get("www-authenticate"), 'Bearer realm="workcell"');
  const wrong = await post(server.url, { Authorization: `Bearer ${TEST_TOKEN}x` });
  assertEquals(wrong.status, 401);
  assert(/error="invalid_token"/.test(wrong.headers.get("www-authenticate") ?? ""));
  const otherScheme = await post(server.url, { Authorization: `Basic ${btoa(`u:${TEST_TOKEN}`)}` });
  assertEquals(otherScheme.status, 401);
  await assertRejects(() => server.connect({ token: "wrong-token-0123456789" }));

  await using client = await server.connect();
  const info = await client.call("server_info");
  assert(!info.isError, info.text);
  assertEquals(info.structured.auth, { transport: "http", scheme: "bearer" });
  assertEquals(info.structured.protocol.client.name, "workcell-http-e2e");
  assert(!JSON.stringify(info).includes(TEST_TOKEN), "server_info must never carry the token");
});

Deno.test("http: WORKCELL_AUTH_TOKEN is removed before any command runs, even in dangerous mode", async () => {
  await using server = await startHttpServer({ token: TEST_TOKEN, args: ["--mode", "dangerous"] });
  await using client = await server.connect();
  const env = await client.call("exec_command", { cmd: "env", yield_time_ms: 10_000 });
  assert(!env.isError, env.text);
  assert(!JSON.stringify(env.structured).includes(TEST_TOKEN), "a child saw the token");
  assert(!/WORKCELL_AUTH_TOKEN/.test(env.structured.stdout ?? ""), env.text);
});

Deno.test("http: the token can come from --auth-token-file (trailing newline trimmed)", async () => {
  const workspace = await tempWorkspace();
  try {
    await Deno.writeTextFile(path.join(workspace, "token"), `${TEST_TOKEN}\n`);
    await using server = await startHttpServer({
      token: TEST_TOKEN,
      tokenFile: path.join(workspace, "token"),
      workspace,
    });
    assertEquals((await post(server.url, {})).status, 401);
    assertEquals((await post(server.url, { Authorization: `Bearer ${TEST_TOKEN}` })).status, 200);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("http: Host and Origin are checked against DNS rebinding; body size and sessions are enforced", async () => {
  await using server = await startHttpServer({ token: null });
  const ok = await post(server.url, { Origin: `http://localhost:${server.port}` });
  assertEquals(ok.status, 200);
  assert(ok.headers.get("mcp-session-id"));
  assertEquals((await post(server.url, { Origin: "http://evil.example" })).status, 403);
  assertEquals((await post(server.url, { Origin: "null" })).status, 403);
  // fetch will not forge Host; a raw request does.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  await conn.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: evil.example:${server.port}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\nConnection: close\r\n\r\n${INITIALIZE}`,
  ));
  const raw = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  assert(raw.startsWith("HTTP/1.1 403"), raw.slice(0, 80));

  const huge = await post(server.url, {}, JSON.stringify({ pad: "x".repeat(MAX_REQUEST_BODY_BYTES) }));
  assertEquals(huge.status, 413);
  const unknownSession = await post(
    server.url,
    { "Mcp-Session-Id": "not-a-session" },
    '{"jsonrpc":"2.0","id":2,"method":"ping"}',
  );
  assertEquals(unknownSession.status, 404);
  const noSession = await post(server.url, {}, '{"jsonrpc":"2.0","id":2,"method":"ping"}');
  assertEquals(noSession.status, 400);

  await using client = await server.connect();
  const id = client.transport.sessionId!;
  const info = await client.call("server_info");
  assertEquals(info.structured.auth, { transport: "http", scheme: "none" });
  await client.transport.terminateSession();
  const afterDelete = await post(server.url, { "Mcp-Session-Id": id }, '{"jsonrpc":"2.0","id":3,"method":"ping"}');
  assertEquals(afterDelete.status, 404);
});

Deno.test("http: two concurrent sessions are isolated from each other's commands", { ignore: LINUX_ONLY }, async () => {
  await using server = await startHttpServer({ token: TEST_TOKEN });
  await using alice = await server.connect({ name: "alice" });
  await using bob = await server.connect({ name: "bob" });
  assert(alice.transport.sessionId !== bob.transport.sessionId);
  const [aliceInfo, bobInfo] = await Promise.all([alice.call("server_info"), bob.call("server_info")]);
  assertEquals(aliceInfo.structured.protocol.client.name, "alice");
  assertEquals(bobInfo.structured.protocol.client.name, "bob");

  const started = await alice.call("exec_command", { cmd: "sleep 30", yield_time_ms: 200 });
  assert(!started.isError, started.text);
  assertEquals(started.structured.status, "running");
  const commandId = started.structured.command_id;
  const [poll, kill, output] = await Promise.all([
    bob.call("write_stdin", { command_id: commandId, chars: "", yield_time_ms: 0 }),
    bob.call("kill_command", { command_id: commandId }),
    bob.call("read_output", { output_ref: `command:${commandId}:stdout` }),
  ]);
  assertEquals(poll.structured.error?.code, "UNKNOWN_COMMAND");
  assertEquals(kill.structured.error?.code, "UNKNOWN_COMMAND");
  assertEquals(output.structured.error?.code, "OUTPUT_REF_INVALID");
  const stillMine = await alice.call("write_stdin", { command_id: commandId, chars: "", yield_time_ms: 0 });
  assert(!stillMine.isError, stillMine.text);
  assertEquals(stillMine.structured.status, "running");
  const killed = await alice.call("kill_command", { command_id: commandId, signal: "KILL" });
  assert(!killed.isError, killed.text);

  // Ending a session (DELETE) kills the commands it started, and only those.
  const marker = uniqueSleep();
  const bobs = await bob.call("exec_command", { cmd: `sleep ${marker}`, yield_time_ms: 200 });
  assertEquals(bobs.structured.status, "running", bobs.text);
  assertEquals((await processesWith(marker)).length, 1);
  await bob.close();
  const deadline = Date.now() + 5_000;
  while ((await processesWith(marker)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assertEquals(await processesWith(marker), [], "a closed session's command must die with it");
  const aliceStill = await alice.call("server_info");
  assert(!aliceStill.isError);
});

Deno.test("http: the server card is served without auth and matches tools/list, with the real annotations", async () => {
  await using server = await startHttpServer({ token: TEST_TOKEN, args: ["--dangerously-fake-readonly-annotations"] });
  const response = await fetch(new URL(SERVER_CARD_PATH, server.url));
  assertEquals(response.status, 200);
  assertEquals(response.headers.get("content-type"), SERVER_CARD_MEDIA_TYPE);
  assertEquals(response.headers.get("access-control-allow-origin"), "*");
  const body = await response.text();
  const card = JSON.parse(body);
  assertEquals(body, JSON.stringify(card), "compact JSON: no indentation");
  assertEquals(card.name, CARD_NAME);
  assertEquals(card.remotes[0].url, server.url);
  assertEquals(card.remotes[0].headers[0].name, "Authorization");
  const details = card._meta[CARD_META_KEY];
  assertEquals(details.transport, "streamable-http");
  assertEquals(details.auth, { scheme: "bearer" });
  assert(!JSON.stringify(card).includes(TEST_TOKEN));

  await using client = await server.connect();
  const { tools } = await client.client.listTools();
  assertEquals(details.tools.length, 18);
  assertEquals(details.tools.map((tool: { name: string }) => tool.name), tools.map((tool) => tool.name));
  for (const [i, tool] of tools.entries()) {
    const entry = details.tools[i];
    assertEquals(entry.inputSchema, tool.inputSchema, tool.name);
    assertEquals(entry.outputSchema, tool.outputSchema, tool.name);
    assertEquals(entry.description, tool.description, tool.name);
    assertEquals(tool.annotations?.readOnlyHint, true, `${tool.name} is faked read-only in tools/list`);
    const real = (await loadCatalog()).find((candidate) => candidate.name === tool.name)!;
    assertEquals(entry.annotations, { title: real.title, ...real.annotations }, tool.name);
  }
});

Deno.test("http: SIGTERM ends sessions, kills child commands and exits 0", { ignore: LINUX_ONLY }, async () => {
  await using server = await startHttpServer({ token: TEST_TOKEN });
  const client = await server.connect();
  const marker = uniqueSleep();
  const started = await client.call("exec_command", { cmd: `sleep ${marker}`, yield_time_ms: 200 });
  const status = await server.stop("SIGTERM");
  assertEquals(status.code, 0, server.stderr());
  if (!started.isError) assertEquals(await processesWith(marker), [], "the command outlived the server");
});

Deno.test("--print-server-card prints the stdio card with the tools and exits 0", async () => {
  const workspace = await tempWorkspace();
  try {
    const { command, args } = serverCommand(workspace, null, ["--print-server-card", "--disable-view-image"]);
    const out = await new Deno.Command(command, { args, stdin: "null", stdout: "piped", stderr: "piped" }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    const printed = new TextDecoder().decode(out.stdout);
    const card = JSON.parse(printed);
    assertEquals(printed, JSON.stringify(card) + "\n", "one compact line");
    assertEquals(card.remotes, undefined);
    const details = card._meta[CARD_META_KEY];
    assertEquals(details.transport, "stdio");
    assertEquals(details.auth, { scheme: "none" });
    assertEquals(details.tools.length, 17);
    assertEquals(
      details.tools.map((tool: { name: string }) => tool.name),
      TOOL_NAMES.slice(0, 17),
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
