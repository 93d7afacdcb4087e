/**
 * Where the workspace comes from, through the SDK client as real clients
 * start servers: `--workspace`, else CLAUDE_PROJECT_DIR, else the client's
 * MCP roots, else the working directory — never `/` or the home directory
 * unless `--workspace` names it.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer, tempWorkspace, type TestServer } from "./harness.ts";
import { startHttpServer } from "./http_harness.ts";

const PATCH = "*** Begin Patch\n*** Add File: made.txt\n+made\n*** End Patch\n";

/** A temp dir holding one file named after it, so tests can tell directories apart. */
async function markedDir(mark: string): Promise<string> {
  const dir = await tempWorkspace();
  await Deno.writeTextFile(`${dir}/${mark}.txt`, `${mark}\n`);
  return dir;
}

async function removeAll(...dirs: string[]): Promise<void> {
  for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
}

async function workspaceOf(server: TestServer) {
  return (await server.call("server_info", {})).structured.workspace;
}

/** The pid of the server process the client talks to (the parent of a command's shell; trusted mode). */
async function serverPid(server: TestServer): Promise<number> {
  const result = await server.call("exec_command", { cmd: "echo $PPID" });
  return Number(result.structured.stdout.trim());
}

Deno.test("workspace: started in / without --workspace, every tool but server_info refuses with NO_WORKSPACE", async () => {
  await using server = await startServer({ workspace: null, cwd: "/" });
  for (
    const [tool, args] of [
      ["read_file", { path: "etc/hostname" }],
      ["list_dir", {}],
      ["apply_patch", { patch: PATCH }],
      [
        "exec_command",
        { cmd: "true" },
      ],
      ["check_exec_environment", {}],
    ] as const
  ) {
    const result = await server.call(tool, args);
    assertEquals(result.structured.error?.code, "NO_WORKSPACE", `${tool}: ${result.text}`);
    assert(result.text.includes("--workspace"), result.text);
  }
  const info = await server.call("server_info", {});
  const workspace = info.structured.workspace;
  assertEquals([workspace.root, workspace.source, workspace.deno_write_grant], [null, "cwd", "none"]);
  assert(workspace.refused.reason.includes("is / (the whole file system)"), workspace.refused.reason);
  assertEquals(workspace.refused.dir, "/");
  assert(info.text.includes("NO WORKSPACE"), info.text);
});

Deno.test("workspace: started in the home directory without --workspace refuses it too; --workspace ~ is served", async () => {
  const home = await markedDir("home");
  try {
    {
      await using server = await startServer({ workspace: null, cwd: home, env: { HOME: home } });
      const workspace = await workspaceOf(server);
      assertEquals(workspace.root, null);
      assert(workspace.refused.reason.includes(`the home directory ${home}`), workspace.refused.reason);
      assertEquals((await server.call("list_dir", {})).structured.error.code, "NO_WORKSPACE");
    }
    await using explicit = await startServer({ workspace: home, env: { HOME: home } });
    assertEquals([(await workspaceOf(explicit)).root, (await workspaceOf(explicit)).source], [home, "flag"]);
    assertEquals((await explicit.call("read_file", { path: "home.txt" })).structured.text, "home\n");
  } finally {
    await removeAll(home);
  }
});

Deno.test("workspace: CLAUDE_PROJECT_DIR is the workspace, with Deno's write grant on exactly it", async () => {
  const project = await markedDir("project");
  try {
    await using server = await startServer({ workspace: null, cwd: "/", env: { CLAUDE_PROJECT_DIR: project } });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source, workspace.deno_write_grant], [project, "env", "none"]);
    assertEquals(workspace.source_detail, "CLAUDE_PROJECT_DIR");
    assertEquals((await server.call("read_file", { path: "project.txt" })).structured.text, "project\n");
    assertEquals((await server.call("apply_patch", { patch: PATCH })).isError, false);
    assertEquals(await Deno.readTextFile(`${project}/made.txt`), "made\n");
  } finally {
    await removeAll(project);
  }
});

Deno.test("workspace: a CLAUDE_PROJECT_DIR that does not exist is NO_WORKSPACE, saying so", async () => {
  await using server = await startServer({
    workspace: null,
    cwd: "/",
    env: { CLAUDE_PROJECT_DIR: "/nonexistent/project" },
  });
  const result = await server.call("list_files", {});
  assertEquals(result.structured.error.code, "NO_WORKSPACE");
  assert(result.text.includes("/nonexistent/project does not exist (from CLAUDE_PROJECT_DIR)"), result.text);
});

Deno.test("workspace: the client's root is the workspace, served in place (same pid, no Deno write grant)", async () => {
  const launchDir = await markedDir("launch");
  const root = await markedDir("root");
  try {
    await using server = await startServer({
      workspace: null,
      cwd: launchDir,
      roots: [`file://${root}`],
      args: ["--mode", "trusted"],
    });
    // The first calls arrive while the roots are being asked: they wait, and are answered once the root is bound.
    const [file, listing] = await Promise.all([
      server.call("read_file", { path: "root.txt" }),
      server.call("list_dir", {}),
    ]);
    assertEquals(file.structured.text, "root\n");
    assertEquals(listing.structured.entries.map((entry: { name: string }) => entry.name), ["root.txt"]);
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source, workspace.deno_write_grant], [root, "roots", "none"]);
    assertEquals(workspace.roots.uris, [`file://${root}`]);
    assertEquals(workspace.source_detail, `the client's first MCP root file://${root}`);
    assertEquals((await server.call("apply_patch", { patch: PATCH })).isError, false);
    assertEquals(await Deno.readTextFile(`${root}/made.txt`), "made\n");
    const pwd = await server.call("exec_command", { cmd: "pwd" });
    assertEquals(pwd.structured.stdout, `${root}\n`);
    // The process the client started serves it: its pid is the transport's.
    assertEquals(await serverPid(server), (server.client.transport as unknown as { pid: number }).pid);
  } finally {
    await removeAll(launchDir, root);
  }
});

Deno.test("workspace: several roots serve the first local one and list the others; list_changed is reported, not followed", async () => {
  const first = await markedDir("first");
  const second = await markedDir("second");
  const roots = ["file://build-host/share", `file://${first}`, `file://${second}`];
  try {
    await using server = await startServer({ workspace: null, cwd: first, roots });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source], [first, "roots"]);
    assertEquals(workspace.roots.others, [second]);
    assertEquals(workspace.roots.ignored, [
      { uri: "file://build-host/share", reason: 'File URL host must be "localhost" or empty on linux' },
    ]);
    assert((await server.call("server_info", {})).text.includes(`other roots, not served: ${second}`));

    roots.splice(0, roots.length, `file://${second}`);
    await server.client.sendRootsListChanged();
    let changed = null;
    for (let tries = 0; tries < 50 && changed === null; tries++) {
      changed = (await workspaceOf(server)).roots.changed_to;
      if (changed === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assertEquals(changed, second);
    const after = await server.call("server_info", {});
    assertEquals(after.structured.workspace.root, first);
    assert(
      after.text.includes(`the client's roots changed to ${second}; this session keeps its workspace`),
      after.text,
    );
    assertEquals((await server.call("read_file", { path: "first.txt" })).structured.text, "first\n");
  } finally {
    await removeAll(first, second);
  }
});

Deno.test("workspace: a root at / is refused like a cwd of /; a failing roots/list falls back to the cwd", async () => {
  {
    await using server = await startServer({ workspace: null, cwd: "/", roots: ["file:///"] });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source], [null, "roots"]);
    assert(workspace.refused.reason.includes("the client's MCP roots is / (the whole file system)"));
  }
  const cwd = await markedDir("cwd");
  try {
    await using server = await startServer({
      workspace: null,
      cwd,
      clientCapabilities: { roots: {} }, // declared, but roots/list is not answered: the client has no handler
    });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source, workspace.deno_write_grant], [cwd, "cwd", "none"]);
    assert(workspace.roots.error.startsWith("roots/list failed"), workspace.roots.error);
    assert(workspace.source_detail.includes("the client's roots gave none"), workspace.source_detail);
  } finally {
    await removeAll(cwd);
  }
});

Deno.test("workspace: --workspace wins over CLAUDE_PROJECT_DIR and the client's roots (which are not asked)", async () => {
  const flag = await markedDir("flag");
  const project = await markedDir("project");
  const root = await markedDir("root");
  try {
    await using server = await startServer({
      workspace: flag,
      env: { CLAUDE_PROJECT_DIR: project },
      roots: [`file://${root}`],
    });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source, workspace.roots], [flag, "flag", null]);
    assertEquals((await server.call("read_file", { path: "flag.txt" })).structured.text, "flag\n");
  } finally {
    await removeAll(flag, project, root);
  }
});

Deno.test("workspace: CLAUDE_PROJECT_DIR wins over the client's roots", async () => {
  const project = await markedDir("project");
  const root = await markedDir("root");
  try {
    await using server = await startServer({
      workspace: null,
      cwd: root,
      env: { CLAUDE_PROJECT_DIR: project },
      roots: [`file://${root}`],
    });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source, workspace.roots], [project, "env", null]);
  } finally {
    await removeAll(project, root);
  }
});

Deno.test("workspace: without roots or flags the working directory is served, in place", async () => {
  const cwd = await markedDir("cwd");
  try {
    await using server = await startServer({ workspace: null, cwd });
    const workspace = await workspaceOf(server);
    assertEquals([workspace.root, workspace.source, workspace.deno_write_grant, workspace.roots], [
      cwd,
      "cwd",
      "none",
      null,
    ]);
    assertEquals((await server.call("read_file", { path: "cwd.txt" })).structured.text, "cwd\n");
  } finally {
    await removeAll(cwd);
  }
});

Deno.test("workspace over HTTP: every session gets the server's workspace, whatever roots its client has", async () => {
  const a = await markedDir("a");
  const b = await markedDir("b");
  try {
    await using server = await startHttpServer({ token: null });
    await using first = await server.connect({ roots: [`file://${a}`] });
    await using second = await server.connect({ roots: [`file://${b}`] });
    for (const client of [first, second]) {
      const workspace = (await client.call("server_info", {})).structured.workspace;
      assertEquals([workspace.root, workspace.source, workspace.roots], [server.workspace, "flag", null]);
    }
  } finally {
    await removeAll(a, b);
  }
});
