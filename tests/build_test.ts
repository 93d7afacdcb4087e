import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { tempWorkspace } from "./harness.ts";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import {
  compileArgs,
  COMPILED_FLAGS,
  denortProblem,
  executableKind,
  hostTarget,
  outputPath,
  ripgrepMismatch,
  TARGETS,
  workerModules,
} from "../build.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { EMBEDDED_RIPGREP_DIR } from "../src/search/ripgrep_binary.ts";
import { SERVER_INFO_ICON_FILE } from "../src/metadata.ts";
import { SERVER_MODULE } from "../main.ts";
import { codecFiles } from "../src/image/codecs.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);

function flagName(flag: string): string {
  return flag.split("=")[0];
}

Deno.test("build.ts bakes in the permission list of `deno task start`, with only the run-time values relaxed", () => {
  const http = { host: "127.0.0.1", port: 8080 };
  // tasks/start.ts runs `deno run` with sourceRunArgs(): take its permission flags from there.
  const startArgs = sourceRunArgs({ http });
  const startFlags = startArgs.slice(1, startArgs.indexOf("--config"));
  assertEquals(COMPILED_FLAGS.map(flagName), startFlags.map(flagName));
  for (const [i, flag] of COMPILED_FLAGS.entries()) {
    const name = flagName(flag);
    if (name === "--allow-net") {
      assertEquals(startFlags[i], "--allow-net=127.0.0.1:8080");
      assertEquals(flag, "--allow-net", "the listen address is chosen at run time");
    } else assertEquals(flag, startFlags[i]);
  }
  // stdio from source has no net at all; the binary revokes its grant in stdio mode (main.ts).
  const stdio = sourceRunArgs({ http: null });
  assert(!stdio.some((flag) => flag.startsWith("--allow-net")));
  assert(!COMPILED_FLAGS.includes("--allow-all") && !COMPILED_FLAGS.includes("-A"));
  // The server writes through libc beneath its pinned root: Deno's own file APIs may write nowhere.
  assert(![...COMPILED_FLAGS, ...stdio].some((flag) => flagName(flag) === "--allow-write"));
});

Deno.test("build.ts: compile arguments embed the target's rg and write dist/workcell", () => {
  const args = compileArgs(hostTarget());
  assertEquals(args[0], "compile");
  assertEquals(args.slice(1, 1 + COMPILED_FLAGS.length), [...COMPILED_FLAGS]);
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
  assert(args.includes(SERVER_INFO_ICON_FILE.pathname), "the serverInfo icon is included");
  for (const file of Object.values(codecFiles())) assert(args.includes(file), `${file}, read at run time, is included`);
  assert(args.includes(SERVER_MODULE.pathname), "the server, imported by a computed specifier, is included");
  const arm = compileArgs("aarch64-unknown-linux-gnu");
  assert(arm[arm.indexOf("--include") + 1].endsWith("/rg"));
  assert(outputPath("aarch64-unknown-linux-gnu").endsWith("workcell-aarch64-unknown-linux-gnu"));
  assert(Object.keys(TARGETS).includes(hostTarget()), `host target ${hostTarget()} is buildable`);
});

Deno.test("build.ts: the Linux and macOS targets, x86_64 and arm64, each with its ripgrep package and executable", () => {
  assertEquals(Object.keys(TARGETS).sort(), [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-unknown-linux-gnu",
  ]);
  assertEquals(
    Object.fromEntries(Object.entries(TARGETS).map(([target, spec]) => [target, spec.ripgrepPackage])),
    {
      "x86_64-unknown-linux-gnu": "@vscode/ripgrep-linux-x64",
      "aarch64-unknown-linux-gnu": "@vscode/ripgrep-linux-arm64",
      "x86_64-apple-darwin": "@vscode/ripgrep-darwin-x64",
      "aarch64-apple-darwin": "@vscode/ripgrep-darwin-arm64",
    },
  );
  for (const [target, spec] of Object.entries(TARGETS)) {
    assertEquals(spec.executable.format, target.endsWith("-apple-darwin") ? "mach-o" : "elf", target);
    assertEquals(spec.executable.machine, target.split("-")[0], target);
    const args = compileArgs(target);
    assertEquals(args[args.indexOf("--target") + 1], target);
    assertEquals(args[args.indexOf("--output") + 1], outputPath(target));
    assert(args[args.indexOf("--include") + 1].endsWith(`${EMBEDDED_RIPGREP_DIR}/rg`), target);
  }
  assert(
    outputPath("aarch64-apple-darwin").endsWith(
      hostTarget() === "aarch64-apple-darwin" ? "/workcell" : "/workcell-aarch64-apple-darwin",
    ),
  );
  let threw = false;
  try {
    compileArgs("x86_64-pc-windows-msvc");
  } catch (error) {
    threw = /unknown target x86_64-pc-windows-msvc/.test((error as Error).message);
  }
  assert(threw, "Windows has no target: it is refused at start");
});

/** The first bytes of a 64-bit little-endian ELF for e_machine `machine`. */
function elfHeader(machine: number): Uint8Array {
  const header = new Uint8Array(20);
  header.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  new DataView(header.buffer).setUint16(18, machine, true);
  return header;
}

/** The first bytes of a 64-bit Mach-O (MH_MAGIC_64, little-endian) for cputype `cpu`. */
function machOHeader(cpu: number): Uint8Array {
  const header = new Uint8Array(20);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0xfeedfacf, true);
  view.setUint32(4, cpu, true);
  return header;
}

Deno.test("build.ts: the staged rg must be the target's kind of executable (ELF or Mach-O, and its machine)", async () => {
  assertEquals(executableKind(elfHeader(62)), { format: "elf", machine: "x86_64" });
  assertEquals(executableKind(elfHeader(183)), { format: "elf", machine: "aarch64" });
  assertEquals(executableKind(machOHeader(0x01000007)), { format: "mach-o", machine: "x86_64" });
  assertEquals(executableKind(machOHeader(0x0100000c)), { format: "mach-o", machine: "aarch64" });
  assertEquals(executableKind(elfHeader(40)), null, "32-bit ARM");
  assertEquals(executableKind(machOHeader(0x12)), null, "PowerPC");
  assertEquals(executableKind(new Uint8Array([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2])), null, "a fat Mach-O");
  assertEquals(executableKind(new TextEncoder().encode("#!/bin/sh\n")), null);
  assertEquals(executableKind(new Uint8Array(3)), null);
  assertEquals(ripgrepMismatch("aarch64-apple-darwin", machOHeader(0x0100000c)), null);
  assertEquals(ripgrepMismatch("x86_64-apple-darwin", machOHeader(0x01000007)), null);
  assertEquals(ripgrepMismatch("x86_64-unknown-linux-gnu", elfHeader(62)), null);
  assertEquals(
    ripgrepMismatch("aarch64-apple-darwin", elfHeader(183)),
    "the staged rg for aarch64-apple-darwin is an ELF executable for aarch64, not a Mach-O executable for aarch64",
  );
  assert(ripgrepMismatch("x86_64-apple-darwin", machOHeader(0x0100000c)) !== null, "arm64's rg for Intel");
  // The rg this machine runs is what its own target expects.
  const { rgPath } = await import("@vscode/ripgrep");
  const header = (await Deno.readFile(rgPath)).subarray(0, 20);
  assertEquals(ripgrepMismatch(hostTarget(), header), null);
});

Deno.test("build.ts: a macOS target without its denort names DENORT_BIN and the denort to get", async () => {
  const empty = await tempWorkspace();
  try {
    for (const target of ["aarch64-apple-darwin", "x86_64-apple-darwin"]) {
      const problem = await denortProblem(target, { get: (name) => (name === "DENO_DIR" ? empty : undefined) });
      assert(problem !== null && problem.includes(`denort-${target}.zip`) && /DENORT_BIN/.test(problem), problem!);
    }
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
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
      // Started elsewhere, the binary serves --workspace in place: the kernel, not a Deno grant, says writable.
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
