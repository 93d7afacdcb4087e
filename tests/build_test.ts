import * as path from "node:path";
import { assert, assertEquals } from "../src/testing/assert.ts";
import { tempWorkspace } from "./harness.ts";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import {
  compileArgs,
  COMPILED_PERMISSIONS,
  denortProblem,
  hostTarget,
  outputPath,
  TARGETS,
  workerModules,
} from "../build.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { EMBEDDED_RIPGREP_DIR } from "../src/search/ripgrep_binary.ts";
import { ICON_FILE } from "../src/metadata.ts";
import { SERVER_MODULE } from "../main.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);

function flagName(flag: string): string {
  return flag.split("=")[0];
}

Deno.test("build.ts bakes in the permission list of `deno task start`, with only the run-time values relaxed", () => {
  const workspace = "/some/workspace";
  const http = { host: "127.0.0.1", port: 8080 };
  // tasks/start.ts runs `deno run` with sourceRunArgs(): take its permission flags from there.
  const startArgs = sourceRunArgs({ writeRoot: workspace, http });
  const startFlags = startArgs.slice(1, startArgs.indexOf("--config"));
  assertEquals(COMPILED_PERMISSIONS.map(flagName), startFlags.map(flagName));
  for (const [i, flag] of COMPILED_PERMISSIONS.entries()) {
    const name = flagName(flag);
    if (name === "--allow-write") {
      assertEquals(startFlags[i], `--allow-write=${workspace}`);
      assertEquals(flag, "--allow-write=.", "the binary relaunches into the workspace, so `.` is the workspace");
    } else if (name === "--allow-net") {
      assertEquals(startFlags[i], "--allow-net=127.0.0.1:8080");
      assertEquals(flag, "--allow-net", "the listen address is chosen at run time");
    } else assertEquals(flag, startFlags[i]);
  }
  // stdio from source has no net at all; the binary revokes its grant in stdio mode (main.ts).
  const stdio = sourceRunArgs({ writeRoot: workspace, http: null });
  assert(!stdio.some((flag) => flag.startsWith("--allow-net")));
  assert(!COMPILED_PERMISSIONS.includes("--allow-all") && !COMPILED_PERMISSIONS.includes("-A"));
});

Deno.test("build.ts: compile arguments embed the target's rg and write dist/workcell", () => {
  const args = compileArgs(hostTarget());
  assertEquals(args[0], "compile");
  assertEquals(args.slice(1, 1 + COMPILED_PERMISSIONS.length), [...COMPILED_PERMISSIONS]);
  assertEquals(args[args.indexOf("--include") + 1], path.join(ROOT, EMBEDDED_RIPGREP_DIR, "rg"));
  assertEquals(args[args.indexOf("--output") + 1], path.join(ROOT, "dist", "workcell"));
  assertEquals(args.at(-1), path.join(ROOT, "main.ts"));
  // Worker entry points (named *_worker.ts) are embedded too: deno compile does not follow new Worker().
  const dir = Deno.makeTempDirSync({ prefix: "workcell-workers-" });
  try {
    Deno.mkdirSync(path.join(dir, "policy"));
    Deno.writeTextFileSync(path.join(dir, "policy", "sandbox_worker.ts"), "");
    Deno.writeTextFileSync(path.join(dir, "policy", "sandbox.ts"), "");
    assertEquals(workerModules(dir), [path.join(dir, "policy", "sandbox_worker.ts")]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
  for (const worker of workerModules()) assert(args.includes(worker), `${worker} is included`);
  assert(args.includes(ICON_FILE.pathname), "the serverInfo icon is included");
  assert(args.includes(SERVER_MODULE.pathname), "the server, imported by a computed specifier, is included");
  const arm = compileArgs("aarch64-unknown-linux-gnu");
  assert(arm[arm.indexOf("--include") + 1].endsWith("/rg"));
  assert(outputPath("aarch64-unknown-linux-gnu").endsWith("workcell-aarch64-unknown-linux-gnu"));
  assert(Object.keys(TARGETS).includes(hostTarget()), `host target ${hostTarget()} is buildable`);
});

Deno.test("build.ts: without denort it names what is missing and how to supply it", async () => {
  const empty = await tempWorkspace();
  try {
    const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });
    const unset = await denortProblem(hostTarget(), env({ DENO_DIR: empty }));
    assert(
      unset !== null && /DENORT_BIN is not set/.test(unset) && /DENORT_BIN=\/path\/to\/denort/.test(unset),
      unset!,
    );
    const missing = await denortProblem(hostTarget(), env({ DENORT_BIN: path.join(empty, "denort") }));
    assert(missing !== null && /does not exist/.test(missing), missing!);
    const deno = await denortProblem(hostTarget(), env({ DENORT_BIN: Deno.execPath() }));
    assert(deno !== null && /is the deno CLI itself/.test(deno), deno!);
    if ((await denortProblem(hostTarget())) !== null) {
      // The real build.ts stops before touching anything, with one line on stderr.
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-all", path.join(ROOT, "build.ts")],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(out.code, 1);
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(stderr.trim().split("\n").length, 1, stderr);
      assert(/^build: .*DENORT_BIN/.test(stderr), stderr);
    }
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

const DENORT = Deno.env.get("DENORT_BIN");
const NEEDS_DENORT = "needs DENORT_BIN pointing at a real denort (deno compile cannot download it here)";

Deno.test({
  name: `compiled binary: builds, embeds rg, confines writes from another directory, passes the e2e suite${
    DENORT ? "" : ` [skipped: ${NEEDS_DENORT}]`
  }`,
  ignore: DENORT === undefined || (await denortProblem(hostTarget())) !== null,
  fn: async () => {
    const build = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", path.join(ROOT, "build.ts")],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(build.success, new TextDecoder().decode(build.stderr));
    const binary = outputPath(hostTarget());

    // Started from elsewhere, the binary still writes only beneath --workspace, and runs the embedded rg.
    const workspace = await tempWorkspace();
    const elsewhere = await tempWorkspace();
    try {
      const transport = new StdioClientTransport({
        command: binary,
        args: ["--workspace", workspace],
        cwd: elsewhere,
        env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: elsewhere },
      });
      const client = new Client({ name: "build-test", version: "1" });
      await client.connect(transport);
      const info = (await client.callTool({ name: "server_info", arguments: {} })).structuredContent as {
        workspace: { writable: boolean };
        runtime: { compiled: boolean; ripgrep: { version: string | null; origin: string } };
      };
      await client.close();
      assertEquals(info.runtime.compiled, true);
      // Deno grants the binary `--allow-write=.`: writable only if the relaunch made `.` the workspace.
      assertEquals(info.workspace.writable, true);
      assert(info.runtime.ripgrep.version?.startsWith("ripgrep "), JSON.stringify(info.runtime.ripgrep));
      assert(info.runtime.ripgrep.origin.includes("embedded"), info.runtime.ripgrep.origin);
      for await (const entry of Deno.readDir(elsewhere)) throw new Error(`the binary wrote ${entry.name} outside`);

      // Every e2e file: those that start the server through tests/harness.ts run the binary.
      const suites = [...Deno.readDirSync(path.join(ROOT, "tests"))]
        .map((entry) => entry.name)
        .filter((name) => name.endsWith("_test.ts") && name !== "build_test.ts")
        .sort()
        .map((name) => path.join(ROOT, "tests", name));
      const e2e = await new Deno.Command(Deno.execPath(), {
        args: ["test", "--allow-all", ...suites],
        env: { WORKCELL_BINARY: binary },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const report = new TextDecoder().decode(e2e.stdout) + new TextDecoder().decode(e2e.stderr);
      assert(e2e.success, report.slice(-4000));
    } finally {
      await Deno.remove(workspace, { recursive: true });
      await Deno.remove(elsewhere, { recursive: true });
    }
  },
});

if (!DENORT) console.error(`build_test: the compiled-binary test is skipped: it ${NEEDS_DENORT}`);
