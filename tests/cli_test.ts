import { assert, assertEquals } from "../testing/assert.ts";
import { serverEnv, tempWorkspace, toCallResult } from "./harness.ts";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { SERVER_VERSION } from "../src/version.ts";
import { SUPPORTED_SYSTEMS, systemRefusal, UNSUPPORTED_SYSTEM_EXIT } from "../main.ts";

async function run(args: string[], stdin = "") {
  const workspace = await tempWorkspace();
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [...sourceRunArgs({ http: null }), ...args],
      cwd: workspace,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
    const out = await child.output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr), workspace };
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
}

Deno.test("bad flags: one line on stderr saying what was wrong and 'see --help', exit 2, nothing on stdout", async () => {
  for (const args of [["--bogus"], ["--mode", "yolo"], ["--workspace"], ["--http-no-auth"]]) {
    const result = await run(args);
    assertEquals(result.code, 2, args.join(" "));
    assertEquals(result.stdout, "");
    const lines = result.stderr.trimEnd().split("\n");
    assertEquals(lines.length, 1, result.stderr);
    assert(lines[0].startsWith("workcell: ") && lines[0].endsWith("; see --help"), lines[0]);
    assert(!result.stderr.includes("usage: workcell"), result.stderr);
  }
  const unknown = await run(["--foo"]);
  assertEquals(unknown.stderr, "workcell: unknown flag --foo; see --help\n");
});

Deno.test("a workspace that does not exist or is a file is refused at start", async () => {
  const missing = await run(["--workspace", "/nonexistent/workcell-ws"]);
  assertEquals(missing.code, 2);
  assert(/workspace \/nonexistent\/workcell-ws does not exist/.test(missing.stderr), missing.stderr);
  const file = await run(["--workspace", "/etc/hostname"]);
  assertEquals(file.code, 2);
  assert(/is not a directory/.test(file.stderr), file.stderr);
});

Deno.test("--version and --help print to stdout and exit 0", async () => {
  const version = await run(["--version"]);
  assertEquals(version.code, 0);
  assertEquals(version.stdout.trim(), `workcell ${SERVER_VERSION}`);
  const help = await run(["--help"]);
  assertEquals(help.code, 0);
  assert(help.stdout.includes("--dangerously-fake-readonly-annotations"));
});

Deno.test("stdio: stdout carries only JSON-RPC messages, and the server exits when stdin closes", async () => {
  const requests = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "server_info", arguments: {} } },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_file", arguments: { path: "../x" } } },
  ];
  const result = await run([], requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
  assertEquals(result.code, 0);
  const lines = result.stdout.trim().split("\n");
  const ids = lines.map((line) => JSON.parse(line)).map((message) => message.id);
  assertEquals(ids.sort(), [1, 2, 3]);
});

Deno.test("unsupported systems: one line naming the supported ones, exit 1; Linux and macOS start", () => {
  assertEquals(
    systemRefusal("windows"),
    "workcell: Windows is not supported; workcell runs on Linux (x86_64, arm64) and macOS (x86_64, arm64)",
  );
  for (const os of ["windows", "android", "freebsd", "netbsd", "aix", "solaris", "illumos", "plan9"]) {
    const line = systemRefusal(os);
    assert(line !== null && !line.includes("\n") && line.endsWith(SUPPORTED_SYSTEMS), `${os}: ${line}`);
  }
  assertEquals(systemRefusal("freebsd")?.startsWith("workcell: FreeBSD is not supported;"), true);
  assertEquals(systemRefusal("linux"), null);
  assertEquals(systemRefusal("darwin"), null);
  assertEquals(systemRefusal(Deno.build.os), null, "this machine is supported");
  assertEquals(UNSUPPORTED_SYSTEM_EXIT, 1, "2 stays the usage error");
});

Deno.test("deno task start: the task's one child is the server, relative --workspace resolved, SIGTERM ends it", async () => {
  const parent = await tempWorkspace();
  try {
    await Deno.mkdir(`${parent}/ws`);
    await Deno.writeTextFile(`${parent}/ws/hello.txt`, "hello\n");
    const config = new URL("../deno.json", import.meta.url).pathname;
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["task", "--quiet", "--config", config, "start", "--workspace", "ws"],
      cwd: parent,
      env: { ...serverEnv(), INIT_CWD: parent },
      stderr: "pipe",
    });
    const client = new Client({ name: "workcell-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const read = toCallResult(await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } }));
      assertEquals(read.structured.text, "hello\n", read.text);
      // The task runner's children: the server alone, no start script left between them (issue 31).
      const task = transport.pid!;
      const children = (await Deno.readTextFile(`/proc/${task}/task/${task}/children`)).trim().split(/\s+/);
      assertEquals(children.length, 1, children.join(" "));
      const argv = (await Deno.readTextFile(`/proc/${children[0]}/cmdline`)).split("\0");
      assert(argv.at(-4)?.endsWith("/main.ts") && !argv.some((arg) => arg.endsWith("tasks/start.ts")), argv.join(" "));
      assertEquals(argv.slice(-3), ["--workspace", `${parent}/ws`, ""]);
      const closed = new Promise<void>((resolve) => client.onclose = resolve);
      Deno.kill(Number(children[0]), "SIGTERM");
      await closed;
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
