import * as path from "node:path";
import { assertEquals, assertRejects, assertThrows } from "../../tests/assert.ts";
import { commitAll, initRepo, writeFiles } from "../../tests/git_fixtures.ts";
import { openWorkspace } from "../workspace/confine.ts";
import { checkRevision, openRepo, type PlannedRead, readRepoAt } from "./repo.ts";
import { ToolError } from "../errors.ts";

Deno.test("openRepo maps paths for a parent repository, a nested one and the workspace itself", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-repo-" }));
  try {
    await initRepo(root);
    await initRepo(path.join(root, "ws/nested"));
    const ws = await openWorkspace(path.join(root, "ws"));
    const parent = await openRepo(ws, null, { readsWorkTree: false });
    assertEquals([parent.parent, parent.cwd, parent.scope()], [true, ws.root, ["."]]);
    assertEquals([parent.fromTop("ws/a.txt"), parent.fromTop("other.txt")], ["a.txt", null]);
    assertEquals([parent.fromTop("ws/dir/"), parent.fromTop("ws/"), parent.fromTop("wsx/")], ["dir/", "./", null]);
    const nested = await openRepo(ws, path.join(ws.root, "nested/missing/file"), { readsWorkTree: true });
    assertEquals([nested.parent, nested.scope(), nested.fromCwd("x.txt")], [false, [], "nested/x.txt"]);
    assertEquals(nested.toGit(path.join(ws.root, "nested/d/x.txt")), "d/x.txt");
    assertEquals(nested.env.GIT_CONFIG_COUNT, "0");
    const self = await openRepo(await openWorkspace(root), null, { readsWorkTree: false });
    assertEquals([self.parent, self.fromTop("ws/a.txt")], [false, "ws/a.txt"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("checkRevision refuses what git could read as an option", () => {
  for (const rev of ["-n1", "--output=x", "", "a\nb"]) {
    assertEquals((assertThrows(() => checkRevision(rev, "rev")) as ToolError).code, "INVALID_ARGUMENT");
  }
  assertEquals(checkRevision("main..feature", "rev"), "main..feature");
});

/** A read of `git log --format=%s` whose consumer collects stdout; `attempts` records each plan's directory and consumer. */
function subjects(attempts: { cwd: string; consumer: { text: string } }[]) {
  return (repo: { cwd: string; scope(): string[] }, target: string | null): PlannedRead<{ text: string }> => {
    const consumer = { text: "" };
    attempts.push({ cwd: repo.cwd, consumer });
    const args = ["log", "--format=%s", "--", ...(target === null ? repo.scope() : [target])];
    return { args, consumer, onStdout: (chunk) => void (consumer.text += new TextDecoder().decode(chunk)) };
  };
}

Deno.test("readRepoAt keeps the early read only when discovery plans the same invocation", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-repo-" }));
  try {
    await initRepo(root);
    await writeFiles(root, { "out.txt": "1\n" });
    await commitAll(root, "outside");
    await writeFiles(root, { "ws/in.txt": "1\n" });
    await commitAll(root, "inside");
    await initRepo(path.join(root, "ws/nested"));
    await writeFiles(path.join(root, "ws/nested"), { "n.txt": "1\n" });
    await commitAll(path.join(root, "ws/nested"), "nested");
    const ws = await openWorkspace(path.join(root, "ws"));
    // The workspace is the repository: one run, the early one.
    let attempts: { cwd: string; consumer: { text: string } }[] = [];
    const self = await readRepoAt(await openWorkspace(root), undefined, { allowMissing: false }, subjects(attempts));
    assertEquals([self.consumer.text, self.consumer === attempts[0].consumer], ["inside\noutside\n", true]);
    // A parent repository: the early run (no scope) is dropped; the kept one is limited to the workspace.
    attempts = [];
    const parent = await readRepoAt(ws, undefined, { allowMissing: false }, subjects(attempts));
    assertEquals([parent.consumer.text, parent.repo.parent, parent.consumer === attempts[1].consumer], [
      "inside\n",
      true,
      true,
    ]);
    // A nested repository: dropped too; the kept run is the nested repository's.
    attempts = [];
    const nested = await readRepoAt(ws, "nested/n.txt", { allowMissing: false }, subjects(attempts));
    assertEquals([nested.consumer.text, attempts.map((attempt) => attempt.cwd)], ["nested\n", [
      ws.root,
      path.join(ws.root, "nested"),
    ]]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readRepoAt reports discovery's error before the plan's, as without the early read", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-repo-" }));
  try {
    const ws = await openWorkspace(dir);
    const refuse = () => {
      throw new ToolError("INVALID_ARGUMENT", "rev: refused");
    };
    const error = await assertRejects(() => readRepoAt(ws, undefined, { allowMissing: false }, refuse));
    assertEquals((error as ToolError).code, "NOT_A_GIT_REPO");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
