import * as path from "node:path";
import { assertEquals, assertRejects, assertThrows } from "../../testing/assert.ts";
import { commitAll, initRepo, writeFiles } from "../../testing/git_fixtures.ts";
import { gitServiceFor } from "../../testing/git_service.ts";
import { checkRevision, openRepo, type PlannedRead, readRepoAt } from "./repo.ts";
import { ToolError } from "../errors.ts";

Deno.test("openRepo maps paths for a parent repository, a nested one and the workspace itself", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-repo-" }));
  try {
    await initRepo(root);
    await initRepo(path.join(root, "ws/nested"));
    using git = gitServiceFor(path.join(root, "ws"));
    const ws = git.ws;
    const { repo: parent } = await openRepo(git, null, { readsWorkTree: false });
    assertEquals([parent.parent, parent.cwd, parent.scope()], [true, ws.root, ["."]]);
    assertEquals([parent.fromTop("ws/a.txt"), parent.fromTop("other.txt")], ["a.txt", null]);
    assertEquals([parent.fromTop("ws/dir/"), parent.fromTop("ws/"), parent.fromTop("wsx/")], ["dir/", "./", null]);
    const { repo: nested } = await openRepo(git, path.join(ws.root, "nested/missing/file"), { readsWorkTree: true });
    assertEquals([nested.parent, nested.scope(), nested.fromCwd("x.txt")], [false, [], "nested/x.txt"]);
    assertEquals(nested.toGit(path.join(ws.root, "nested/d/x.txt")), "d/x.txt");
    assertEquals(nested.env.GIT_CONFIG_COUNT, "0");
    using whole = gitServiceFor(root);
    const { repo: self } = await openRepo(whole, null, { readsWorkTree: false });
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

Deno.test("readRepoAt plans one read, in the repository found on disk, and keeps it once git agrees", async () => {
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
    using git = gitServiceFor(path.join(root, "ws"));
    using whole = gitServiceFor(root);
    // The workspace is the repository.
    let attempts: { cwd: string; consumer: { text: string } }[] = [];
    const self = await readRepoAt(whole, undefined, { allowMissing: false }, subjects(attempts));
    assertEquals([self.consumer.text, attempts.length], ["inside\noutside\n", 1]);
    // A parent repository: the read is limited to the workspace.
    attempts = [];
    const parent = await readRepoAt(git, undefined, { allowMissing: false }, subjects(attempts));
    assertEquals([parent.consumer.text, parent.repo.parent, attempts.length], ["inside\n", true, 1]);
    // A nested repository: the read runs in it.
    attempts = [];
    const nested = await readRepoAt(git, "nested/n.txt", { allowMissing: false }, subjects(attempts));
    assertEquals([nested.consumer.text, attempts.map((attempt) => attempt.cwd)], ["nested\n", [
      path.join(git.ws.root, "nested"),
    ]]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("readRepoAt reports a missing repository before the plan's own refusal", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-repo-" }));
  try {
    using git = gitServiceFor(dir);
    const refuse = () => {
      throw new ToolError("INVALID_ARGUMENT", "rev: refused");
    };
    const error = await assertRejects(() => readRepoAt(git, undefined, { allowMissing: false }, refuse));
    assertEquals((error as ToolError).code, "NOT_A_GIT_REPO");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
