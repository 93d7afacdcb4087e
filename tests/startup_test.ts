/**
 * Start-up in locked-down places, through the SDK client: an unusable
 * TMPDIR, no usable temp dir at all, a read-only workspace, no /dev/ptmx,
 * and a PATH without git, perl or python3. initialize and the file tools
 * always work; what is missing is reported and refused with a clear code.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, type TestServer } from "./harness.ts";

/** A workspace outside /tmp (tests below hide /tmp behind other mounts), with one file. */
async function workspaceWithFile(): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "workcell-startup-" }));
  await Deno.writeTextFile(`${root}/a.txt`, "one\n");
  return root;
}

/** Runs the server in a mount namespace of its own after the given shell set-up (as root). */
function inMountNamespace(setup: string): string[] {
  return ["unshare", "-m", "--", "sh", "-c", `${setup} && exec "$@"`, "--"];
}

function dependency(report: { dependencies: { name: string }[] }, name: string) {
  return report.dependencies.find((entry) => entry.name === name) as {
    name: string;
    available: boolean;
    detail: string;
  };
}

/** initialize answered (the client is connected) and the read-only file tools work. */
async function fileToolsWork(server: TestServer): Promise<void> {
  assertEquals((await server.call("read_file", { path: "a.txt" })).structured.text, "one\n");
  assertEquals((await server.call("list_dir", {})).structured.entries.map((entry: { name: string }) => entry.name), [
    "a.txt",
  ]);
  const files = await server.call("list_files", {});
  assert(!files.isError, files.text);
  const found = await server.call("search_text", { pattern: "one" });
  assertEquals(found.structured.matches.length, 1, found.text);
}

Deno.test("start-up: an unusable TMPDIR falls back to /tmp, and says which it refused", async () => {
  const root = await workspaceWithFile();
  try {
    await using server = await startServer({ workspace: root, env: { TMPDIR: "/nonexistent/tmp" } });
    await fileToolsWork(server);
    const report = (await server.call("check_exec_environment", {})).structured;
    const tmp = dependency(report, "private temp dir");
    assert(tmp.available && tmp.detail.startsWith("/tmp/workcell-tmp-"), tmp.detail);
    assert(tmp.detail.includes("refused /nonexistent/tmp: mkdtemp failed (errno 2"), tmp.detail);
    const printed = await server.call("exec_command", { cmd: "printenv TMPDIR" });
    assertEquals(printed.structured.stdout, `${report.env.added.TMPDIR}\n`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("start-up: with no usable temp dir anywhere, commands run without TMPDIR and the report says so", async () => {
  const root = await workspaceWithFile();
  try {
    await using server = await startServer({
      workspace: root,
      env: { TMPDIR: "/nonexistent/tmp" },
      // Read-only binds, not empty mounts: a checkout (or Deno cache) under /tmp stays readable.
      wrapper: inMountNamespace(
        ["/tmp", "/dev/shm"].map((dir) => `mount --bind ${dir} ${dir} && mount -o remount,ro,bind ${dir}`).join(" && "),
      ),
    });
    await fileToolsWork(server);
    const report = (await server.call("check_exec_environment", {})).structured;
    const tmp = dependency(report, "private temp dir");
    assertEquals(tmp.available, false);
    for (const parent of ["/nonexistent/tmp", "/tmp", "/dev/shm"]) {
      assert(tmp.detail.includes(`refused ${parent}:`), parent);
    }
    assertEquals(report.env.added, {});
    if (report.sandbox.commands.layers.includes("landlock")) assertEquals(report.sandbox.commands.writes, [root]);
    const printed = await server.call("exec_command", { cmd: "printenv TMPDIR" });
    assertEquals([printed.structured.exit_code, printed.structured.stdout], [1, ""]);
    assert(server.stderr().includes("commands run without a private TMPDIR"), server.stderr());
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("start-up: a read-only workspace serves reads, and apply_patch refuses with WORKSPACE_READ_ONLY", async () => {
  const root = await workspaceWithFile();
  try {
    await using server = await startServer({
      workspace: root,
      wrapper: inMountNamespace(`mount --bind "${root}" "${root}" && mount -o remount,ro,bind "${root}"`),
    });
    await fileToolsWork(server);
    assertEquals((await server.call("server_info", {})).structured.workspace.writable, false);
    const report = (await server.call("check_exec_environment", {})).structured;
    assertEquals(dependency(report, "writable workspace").available, false);
    const patch = await server.call("apply_patch", {
      patch: "*** Begin Patch\n*** Add File: b.txt\n+two\n*** End Patch\n",
    });
    assertEquals(patch.structured.error.code, "WORKSPACE_READ_ONLY", patch.text);
    assert(patch.text.includes("Read-only file system"), patch.text);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("start-up: without /dev/ptmx tty:true is TTY_UNSUPPORTED and everything else works", async () => {
  const root = await workspaceWithFile();
  try {
    await using server = await startServer({
      workspace: root,
      wrapper: inMountNamespace("mount --bind /dev/null /dev/ptmx"),
    });
    await fileToolsWork(server);
    const report = (await server.call("check_exec_environment", {})).structured;
    assertEquals([report.tty.supported, dependency(report, "pseudo-terminal").available], [false, false]);
    const tty = await server.call("exec_command", { cmd: "true", tty: true });
    assertEquals(tty.structured.error.code, "TTY_UNSUPPORTED");
    assertEquals((await server.call("exec_command", { cmd: "cat a.txt" })).structured.stdout, "one\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("start-up: a PATH without git, perl or python3 is reported; git tools say PROGRAM_UNAVAILABLE", async () => {
  const root = await workspaceWithFile();
  const bin = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-bin-" }));
  try {
    for (const tool of ["ls", "cat", "rm", "printenv", "env"]) {
      await Deno.symlink(`/usr/bin/${tool}`, `${bin}/${tool}`);
    }
    await using server = await startServer({ workspace: root, env: { PATH: bin } });
    await fileToolsWork(server);
    const report = (await server.call("check_exec_environment", {})).structured;
    for (const name of ["git", "perl", "python3"]) {
      assertEquals([dependency(report, name).available, dependency(report, name).detail], [false, "not found on PATH"]);
    }
    assertEquals(dependency(report, "sh").available, true);
    const text = (await server.call("check_exec_environment", {})).text;
    assert(/dependencies missing: .*git .*perl .*python3/.test(text), text);
    const status = await server.call("git_status", {});
    assertEquals([status.structured.error.code, status.structured.error.details.program], [
      "PROGRAM_UNAVAILABLE",
      "git",
    ]);
    assert((await server.call("server_info", {})).text.includes("git: unavailable"));
    const python = await server.call("exec_command", { cmd: "python3 -V" });
    assertEquals(python.structured.error.code, "COMMAND_NOT_FOUND");
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(bin, { recursive: true });
  }
});
