/**
 * The npm package and the MCP bundle, as a user gets them: `npm pack`, the
 * tarball installed into a fresh prefix with no clone around it, and the
 * installed bin driven by the SDK client; the bundle staged from the same
 * tarball, checked with `mcpb validate` and started the way Claude Desktop
 * starts it (its manifest's mcp_config with the variables filled in).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../src/testing/assert.ts";
import { tempWorkspace, toCallResult } from "./harness.ts";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { packNpmPackage } from "../packaging/npm_package.ts";
import { mcpb, stageBundle } from "../packaging/mcpb.ts";
import { SERVER_DESCRIPTION } from "../src/metadata.ts";
import { SERVER_VERSION } from "../src/version.ts";
import { npm } from "../tasks/npm_tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
// The whole environment, as a client passes it (npm and Deno need its proxy and CA settings for the registry).
const env = { ...Deno.env.toObject(), NO_COLOR: "1" };

async function session(command: string, args: string[], cwd: string): Promise<Client> {
  const client = new Client({ name: "workcell-package-e2e", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, cwd, env, stderr: "ignore" }));
  return client;
}

/** The direct children of `pid`, from /proc. */
async function children(pid: number): Promise<number[]> {
  const list = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`).catch(() => "");
  return list.trim().split(/\s+/).filter(Boolean).map(Number);
}

/** Every process below `pid`. */
async function descendants(pid: number): Promise<number[]> {
  const direct = await children(pid);
  return [...direct, ...(await Promise.all(direct.map(descendants))).flat()];
}

async function canUnshareNetwork(): Promise<boolean> {
  const probe = await new Deno.Command("unshare", { args: ["-rn", "true"], stderr: "null" }).output().catch(() => null);
  return probe?.success === true;
}

/** Starts the bin with stdin held open and waits for its initialize answer. */
async function started(bin: string, workspace: string, cwd: string) {
  const child = new Deno.Command(bin, {
    args: ["--workspace", workspace],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } };
  await writer.write(
    new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params }) + "\n"),
  );
  const reader = child.stdout.getReader();
  const first = decode((await reader.read()).value ?? new Uint8Array());
  assert(first.includes('"serverInfo"'), first);
  const finish = async () => {
    const { code, signal } = await child.status;
    reader.releaseLock();
    await child.stdout.cancel();
    await writer.close().catch(() => {});
    return { code, signal };
  };
  return { child, finish };
}

/** Whether `pid` is a live process (not gone, not a zombie). */
function running(pid: number): boolean {
  try {
    return !Deno.readTextFileSync(`/proc/${pid}/stat`).includes(") Z ");
  } catch {
    return false;
  }
}

Deno.test("npm package: packed, installed into a fresh prefix, its bin serves MCP and starts offline", async (t) => {
  const scratch = await tempWorkspace();
  try {
    const tarball = await packNpmPackage(path.join(scratch, "out"));
    const prefix = path.join(scratch, "prefix");
    await npm(["install", "--global", "--prefix", prefix, tarball], { cwd: scratch });
    const bin = path.join(prefix, "bin", "workcell");
    const installed = path.join(prefix, "lib", "node_modules", "workcell");
    const workspace = path.join(scratch, "ws");
    await Deno.mkdir(workspace);
    await Deno.writeTextFile(path.join(workspace, "hello.txt"), "hello from the workspace\n");
    // The client's own directory is a project with its own manifests: none of them may be adopted or written to.
    const project = path.join(scratch, "project");
    await Deno.mkdir(project);
    await Deno.writeTextFile(path.join(project, "package.json"), '{"name":"p","dependencies":{"left-pad":"1.3.0"}}');
    await Deno.writeTextFile(path.join(project, "deno.json"), '{"imports":{"zod":"npm:zod@3.0.0"}}');

    await t.step("--version and --help print on stdout and exit 0; a bad flag exits 2", async () => {
      const run = (args: string[]) => new Deno.Command(bin, { args, cwd: project, env, stdin: "null" }).output();
      const version = await run(["--version"]);
      assertEquals([version.code, decode(version.stdout).trim()], [0, `workcell ${SERVER_VERSION}`]);
      const help = await run(["--help"]);
      assertEquals(help.code, 0);
      assert(decode(help.stdout).startsWith("usage: workcell"), decode(help.stdout));
      const bad = await run(["--bogus"]);
      assertEquals([bad.code, decode(bad.stdout)], [2, ""]);
      assert(decode(bad.stderr).includes("workcell: unknown flag --bogus"), decode(bad.stderr));
    });

    await t.step("initialize, tools/list (18 tools), read_file and a safe-mode exec_command", async () => {
      const client = await session(bin, ["--workspace", workspace], project);
      try {
        const info = client.getServerVersion()!;
        assertEquals([info.name, info.version, info.description], ["workcell", SERVER_VERSION, SERVER_DESCRIPTION]);
        assertEquals((await client.listTools()).tools.length, 18);
        const read = toCallResult(await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } }));
        assertEquals(read.structured.text, "hello from the workspace\n", read.text);
        const exec = toCallResult(await client.callTool({ name: "exec_command", arguments: { cmd: "echo hi" } }));
        assertEquals([exec.structured.status, exec.structured.exit_code, exec.structured.stdout], [
          "exited",
          0,
          "hi\n",
        ]);
        const info2 = toCallResult(await client.callTool({ name: "server_info", arguments: {} }));
        assertEquals(info2.structured.policy.mode, "safe");
      } finally {
        await client.close();
      }
      assertEquals([...Deno.readDirSync(project)].map((entry) => entry.name).sort(), ["deno.json", "package.json"]);
    });

    await t.step("dependencies came from the packaged lock file, which is unchanged", async () => {
      assertEquals(
        await Deno.readTextFile(path.join(installed, "app", "deno.lock")),
        await Deno.readTextFile(`${ROOT}deno.lock`),
      );
      const packages = [...Deno.readDirSync(path.join(installed, "app", "node_modules", ".deno"))].map((e) => e.name);
      assert(packages.some((name) => name.startsWith("@modelcontextprotocol+sdk@")), packages.join(" "));
    });

    await t.step("a warm start needs no network", async (step) => {
      if (!(await canUnshareNetwork())) {
        console.error("skipped: no network namespace here (unshare -rn)");
        return;
      }
      const client = await session("unshare", ["-rn", bin, "--workspace", workspace], project);
      try {
        assertEquals((await client.listTools()).tools.length, 18, step.name);
      } finally {
        await client.close();
      }
    });

    await t.step("SIGTERM reaches the server: the bin exits 0 and leaves no process behind", async () => {
      const { child, finish } = await started(bin, workspace, project);
      const below = await descendants(child.pid);
      assert(below.length >= 2, `the launcher runs Deno: ${below}`);
      child.kill("SIGTERM");
      assertEquals(await finish(), { code: 0, signal: null });
      assertEquals(below.filter(running), [], "processes left after SIGTERM");
    });

    await t.step(
      "the server's own exit status is the bin's: a server killed by SIGKILL makes it exit 137",
      async () => {
        const { child, finish } = await started(bin, workspace, project);
        const [starter] = await children(child.pid);
        const [server] = await children(starter);
        Deno.kill(server, "SIGKILL");
        assertEquals(await finish(), { code: 128 + 9, signal: null });
      },
    );

    await t.step("the MCP bundle: mcpb validate passes and its mcp_config starts the server", async () => {
      const bundle = path.join(scratch, "bundle");
      await stageBundle(bundle, tarball);
      const validate = await mcpb(["validate", path.join(bundle, "manifest.json")]);
      assert(validate.ok, validate.output);
      const manifest = JSON.parse(await Deno.readTextFile(path.join(bundle, "manifest.json")));
      const values: Record<string, string> = { __dirname: bundle, "user_config.workspace": workspace };
      for (const [key, option] of Object.entries(manifest.user_config as Record<string, { default?: string }>)) {
        values[`user_config.${key}`] ??= String(option.default);
      }
      const fill = (text: string) => text.replace(/\$\{([^}]+)\}/g, (_, name: string) => values[name]);
      const config = manifest.server.mcp_config as { command: string; args: string[] };
      const client = await session(config.command, config.args.map(fill), scratch);
      try {
        assertEquals((await client.listTools()).tools.length, 18);
        const read = toCallResult(await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } }));
        assertEquals(read.isError, false, read.text);
      } finally {
        await client.close();
      }
    });
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
});
