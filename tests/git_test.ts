/**
 * End-to-end tests of the five git tools through the SDK client, on real
 * repositories built in temp directories.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { type CallResult, startServer, tempWorkspace } from "./harness.ts";
import { commitAll, git, importHistory, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { MAX_STATUS_ENTRIES } from "../src/git/status.ts";
import { MAX_DIFF_FILES } from "../src/git/diff_stream.ts";
import { MAX_LOG_COUNT, MAX_MESSAGE_CHARS } from "../src/git/log.ts";
import { MAX_BLAME_LINE_CHARS, MAX_BLAME_LINES } from "../src/git/blame.ts";
import { GIT_TIMEOUT_MS } from "../src/git/runner.ts";

function expectOk(result: CallResult): CallResult {
  assert(!result.isError, `expected success, got: ${result.text}`);
  assertEquals(result.structured.ok, true);
  assert(result.text.length > 0);
  return result;
}

function expectError(result: CallResult, code: string): CallResult {
  assert(result.isError, `expected ${code}, got success: ${result.text.slice(0, 300)}`);
  assertEquals(result.structured.error.code, code, result.text);
  return result;
}

// deno-lint-ignore no-explicit-any
const paths = (items: any[]) => items.map((item) => item.path);

Deno.test("git tools on a repository with renames and paths with spaces, quotes, newlines and non-ASCII", async () => {
  const ws = await tempWorkspace();
  await initRepo(ws);
  await writeFiles(ws, {
    "a.txt": "one\ntwo\nthree\nfour\nfive\n",
    "dir/space name.txt": "spaced\n",
    'quo"te.txt': "quoted\n",
    "new\nline.txt": "newline\n",
    "ünï.txt": "unicode\n",
    "-dash.txt": "dash\n",
    ".gitignore": "*.log\n",
  });
  await git(ws, "add", "-A");
  await git(ws, "commit", "-q", "-m", "first", "-m", "The body\nof the first commit.");
  await writeFiles(ws, { "a.txt": "one\ntwo\nTHREE\nfour\nfive\n" });
  await git(ws, "mv", "ünï.txt", "dir/ünï moved.txt");
  await commitAll(ws, "second");
  await writeFiles(ws, { "a.txt": "one\ntwo\nTHREE\nfour\nfive\nsix\n", "staged.txt": "staged\n" });
  await git(ws, "add", "staged.txt");
  await writeFiles(ws, { "untracked é.txt": "u\n", "x.log": "ignored\n", "newdir/inner.txt": "i\n" });
  const head = (await git(ws, "rev-parse", "HEAD")).trim();

  await using server = await startServer({ workspace: ws });
  try {
    const status = expectOk(await server.call("git_status", {})).structured;
    assertEquals([status.branch, status.head, status.detached, status.clean], ["main", head, false, false]);
    assertEquals(status.entries, [
      { path: "a.txt", index: ".", worktree: "M", orig_path: null, type: "changed", submodule: false },
      { path: "staged.txt", index: "A", worktree: ".", orig_path: null, type: "changed", submodule: false },
      { path: "newdir/", index: "?", worktree: "?", orig_path: null, type: "untracked", submodule: false },
      { path: "untracked é.txt", index: "?", worktree: "?", orig_path: null, type: "untracked", submodule: false },
    ]);
    const ignored = expectOk(await server.call("git_status", { include_ignored: true })).structured;
    assert(paths(ignored.entries).includes("x.log"));
    assertEquals(paths(expectOk(await server.call("git_status", { path: "a.txt" })).structured.entries), ["a.txt"]);

    const unstaged = expectOk(await server.call("git_diff", {})).structured;
    assertEquals(unstaged.files, [
      { path: "a.txt", old_path: null, status: "modified", added: 1, removed: 0, binary: false },
    ]);
    assert(unstaged.diff.includes("+six\n") && !unstaged.truncated);
    const staged = expectOk(await server.call("git_diff", { staged: true })).structured;
    assertEquals(paths(staged.files), ["staged.txt"]);
    const range = expectOk(await server.call("git_diff", { rev: "HEAD~1..HEAD", context: 0 })).structured;
    assertEquals(range.files, [
      { path: "a.txt", old_path: null, status: "modified", added: 1, removed: 1, binary: false },
      { path: "dir/ünï moved.txt", old_path: "ünï.txt", status: "renamed", added: 0, removed: 0, binary: false },
    ]);
    assert(range.diff.includes("rename to dir/ünï moved.txt"), range.diff);
    const limited = expectOk(await server.call("git_diff", { rev: "HEAD~1", paths: ["dir"] })).structured;
    assertEquals(paths(limited.files), ["dir/ünï moved.txt"]);
    const cut = expectOk(await server.call("git_diff", { rev: "HEAD~1", max_bytes: 40 })).structured;
    assert(cut.truncated && cut.shown_bytes <= 40);
    assertEquals([paths(cut.files), cut.cut_files, cut.repeated_lines], [["a.txt"], ["a.txt"], 0]);
    // Pages of 40 bytes, their repeated header lines dropped, make up the whole diff.
    const whole = expectOk(await server.call("git_diff", { rev: "HEAD~1" })).structured;
    let joined = "";
    for (let page = cut, pages = 1;; pages++) {
      joined += page.diff.split("\n").slice(page.repeated_lines).join("\n");
      if (page.next_cursor === null) break;
      assert(pages < 100, "paging must end");
      page = expectOk(await server.call("git_diff", { rev: "HEAD~1", max_bytes: 40, cursor: page.next_cursor }))
        .structured;
    }
    assertEquals(joined, whole.diff);

    const log = expectOk(await server.call("git_log", {})).structured;
    assertEquals(log.commits.map((c: { subject: string }) => c.subject), ["second", "first"]);
    assertEquals(log.commits[1].body, "The body\nof the first commit.");
    assertEquals(log.commits[0].author, {
      name: "Ada Lovelace",
      email: "ada@example.org",
      time: "2024-05-01T10:00:00+02:00",
    });
    assertEquals(log.commits[0].parents, [log.commits[1].sha]);
    assertEquals(log.truncated, false);
    const one = expectOk(await server.call("git_log", { max_count: 1 })).structured;
    assertEquals([one.commits.length, one.truncated], [1, true]);
    const filtered = expectOk(await server.call("git_log", { path: "dir/ünï moved.txt" })).structured;
    assertEquals(filtered.commits.map((c: { subject: string }) => c.subject), ["second"]);
    assertEquals(expectOk(await server.call("git_log", { grep: "body", author: "Ada" })).structured.commits.length, 1);
    assertEquals(expectOk(await server.call("git_log", { until: "2020-01-01" })).structured.commits.length, 0);

    const shown = expectOk(await server.call("git_show", { rev: "HEAD" })).structured;
    assertEquals([shown.kind, shown.sha, shown.commit.subject], ["commit", head, "second"]);
    assertEquals(paths(shown.files), ["a.txt", "dir/ünï moved.txt"]);
    assert(shown.patch.includes("-three\n+THREE\n"));
    const blobs = [
      ["new\nline.txt", "newline\n"],
      ['quo"te.txt', "quoted\n"],
      ["dir/space name.txt", "spaced\n"],
      ["-dash.txt", "dash\n"],
    ];
    for (const [file, content] of blobs) {
      const blob = expectOk(await server.call("git_show", { rev: "HEAD~1", path: file })).structured;
      assertEquals([blob.kind, blob.path, blob.content, blob.truncated], ["file", file, content, false]);
    }
    assertEquals(expectOk(await server.call("git_blame", { path: "-dash.txt" })).structured.lines[0].text, "dash");
    assertEquals(expectOk(await server.call("git_log", { path: "-dash.txt" })).structured.commits.length, 1);
    expectError(await server.call("git_show", { rev: "HEAD", path: "ünï.txt" }), "NOT_FOUND");
    expectError(await server.call("git_show", { rev: "HEAD", path: "dir" }), "NOT_A_FILE");

    const blame = expectOk(await server.call("git_blame", { path: "a.txt" })).structured;
    assertEquals(blame.lines.map((l: { text: string }) => l.text), ["one", "two", "THREE", "four", "five", "six"]);
    assertEquals(blame.commits[blame.lines[2].sha].summary, "second");
    assertEquals(blame.lines[5].sha, "0".repeat(40));
    assertEquals(blame.commits["0".repeat(40)].author, "Not Committed Yet");
    assertEquals(Object.keys(blame.commits).length, 3, "each commit once");
    const ranged = expectOk(
      await server.call("git_blame", { path: "a.txt", start_line: 3, end_line: 3, rev: "HEAD~1" }),
    );
    assertEquals(ranged.structured.lines.map((l: { line: number; text: string }) => [l.line, l.text]), [[3, "three"]]);
    expectError(await server.call("git_blame", { path: "a.txt", start_line: 50 }), "INVALID_ARGUMENT");
    expectError(await server.call("git_blame", { path: "a.txt", start_line: 3, end_line: 2 }), "INVALID_ARGUMENT");
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("git tools through a merge conflict, a clean merge, an upstream, a detached HEAD and a submodule", async () => {
  const ws = await tempWorkspace();
  await initRepo(ws);
  await writeFiles(ws, { "f.txt": "base\n" });
  await commitAll(ws, "base");
  await git(ws, "branch", "base");
  await git(ws, "checkout", "-q", "-b", "other");
  await writeFiles(ws, { "f.txt": "other\n" });
  await commitAll(ws, "other side");
  await git(ws, "checkout", "-q", "main");
  await writeFiles(ws, { "f.txt": "mine\n" });
  await commitAll(ws, "my side");
  await git(ws, "merge", "-q", "other").catch(() => {}); // conflicts
  await using server = await startServer({ workspace: ws });
  try {
    const status = expectOk(await server.call("git_status", {})).structured;
    assertEquals(status.entries, [
      { path: "f.txt", index: "U", worktree: "U", orig_path: null, type: "unmerged", submodule: false },
    ]);
    const conflict = expectOk(await server.call("git_diff", {})).structured;
    assertEquals([conflict.files[0].path, conflict.files[0].status], ["f.txt", "unmerged"]);
    assert(conflict.diff.includes("<<<<<<<"), conflict.diff);

    await git(ws, "merge", "--abort");
    await git(ws, "checkout", "-q", "-b", "side", "base");
    await writeFiles(ws, { "g.txt": "side\n" });
    await commitAll(ws, "side file");
    await git(ws, "checkout", "-q", "main");
    await git(ws, "merge", "-q", "--no-edit", "side");
    await git(ws, "branch", "-q", "-u", "base");
    const tracking = expectOk(await server.call("git_status", {})).structured;
    assertEquals([tracking.upstream, tracking.ahead, tracking.behind, tracking.clean], ["base", 3, 0, true]);
    const merge = expectOk(await server.call("git_show", { rev: "HEAD" })).structured;
    assertEquals(merge.commit.parents.length, 2);
    assertEquals(paths(merge.files), ["g.txt"]); // against the first parent
    const log = expectOk(await server.call("git_log", { rev: "HEAD^1..HEAD" })).structured;
    assertEquals(log.commits.map((c: { subject: string }) => c.subject), ["Merge branch 'side'", "side file"]);

    await git(ws, "checkout", "-q", "--detach", "HEAD~1");
    const detached = expectOk(await server.call("git_status", {}));
    assertEquals([detached.structured.detached, detached.structured.branch], [true, null]);
    assert(detached.text.includes("HEAD detached"), detached.text);

    await git(ws, "checkout", "-q", "main");
    const lib = await Deno.makeTempDir({ prefix: "workcell-lib-" });
    await initRepo(lib);
    await writeFiles(lib, { "l.txt": "1\n" });
    await commitAll(lib, "lib 1");
    await git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib");
    await commitAll(ws, "add lib");
    await writeFiles(path.join(ws, "lib"), { "l.txt": "2\n" });
    await commitAll(path.join(ws, "lib"), "lib 2");
    const withSubmodule = expectOk(await server.call("git_status", {})).structured;
    const libEntry = withSubmodule.entries.find((e: { path: string }) => e.path === "lib");
    assertEquals([libEntry.submodule, libEntry.worktree], [true, "M"]);
    await Deno.remove(lib, { recursive: true });
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("an empty repository answers with empty results; a plain directory with NOT_A_GIT_REPO", async () => {
  const ws = await tempWorkspace();
  await initRepo(path.join(ws, "empty"));
  await writeFiles(ws, { "empty/new.txt": "n\n", "plain/a.txt": "a\n" });
  await using server = await startServer({ workspace: ws });
  try {
    const status = expectOk(await server.call("git_status", { path: "empty" })).structured;
    assertEquals([status.branch, status.head, status.clean], ["main", null, false]);
    assertEquals(paths(status.entries), ["empty/new.txt"]);
    assertEquals(expectOk(await server.call("git_log", { path: "empty" })).structured.commits, []);
    assertEquals(expectOk(await server.call("git_diff", { paths: ["empty"] })).structured.files, []);
    await git(path.join(ws, "empty"), "add", "new.txt");
    const staged = expectOk(await server.call("git_diff", { staged: true, paths: ["empty"] })).structured;
    assertEquals(staged.files.map((f: { path: string; status: string }) => [f.path, f.status]), [[
      "empty/new.txt",
      "added",
    ]]);
    expectError(await server.call("git_show", { rev: "HEAD", path: "empty/new.txt" }), "INVALID_ARGUMENT");
    for (
      const [name, args] of [
        ["git_status", {}],
        ["git_diff", {}],
        ["git_log", {}],
        ["git_show", { rev: "HEAD" }],
        ["git_blame", { path: "plain/a.txt" }],
        ["git_status", { path: "plain" }],
      ] as const
    ) {
      expectError(await server.call(name, args), "NOT_A_GIT_REPO");
    }
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("a workspace inside a parent repository sees only itself, with workspace-relative paths", async () => {
  const root = await tempWorkspace();
  await writeFiles(root, { "outside.txt": "o\n", "sub/in.txt": "i\n" });
  await initRepo(root);
  await commitAll(root, "both");
  await writeFiles(root, { "outside.txt": "o2\n" });
  await commitAll(root, "outside only");
  await writeFiles(root, { "outside.txt": "o3\n", "sub/in.txt": "i2\n", "sub/new.txt": "n\n", "top-new.txt": "t\n" });
  const ws = path.join(root, "sub");
  await using server = await startServer({ workspace: ws });
  try {
    const status = expectOk(await server.call("git_status", {})).structured;
    assertEquals(paths(status.entries), ["in.txt", "new.txt"]);
    const diff = expectOk(await server.call("git_diff", {})).structured;
    assertEquals(paths(diff.files), ["in.txt"]);
    assert(diff.diff.startsWith("diff --git a/in.txt b/in.txt"), diff.diff);
    assert(!diff.diff.includes("outside"));
    const log = expectOk(await server.call("git_log", {})).structured;
    assertEquals(log.commits.map((c: { subject: string }) => c.subject), ["both"]);
    const shown = expectOk(await server.call("git_show", { rev: "HEAD~1" })).structured;
    assertEquals(paths(shown.files), ["in.txt"]);
    assertEquals(expectOk(await server.call("git_show", { rev: "HEAD", path: "in.txt" })).structured.content, "i\n");
    assertEquals(expectOk(await server.call("git_blame", { path: "in.txt" })).structured.lines[0].text, "i2");
    expectError(await server.call("git_diff", { paths: ["../outside.txt"] }), "PATH_OUTSIDE_WORKSPACE");
    expectError(await server.call("git_show", { rev: "HEAD", path: "../outside.txt" }), "PATH_OUTSIDE_WORKSPACE");
    expectError(await server.call("git_log", { path: path.join(root, "outside.txt") }), "PATH_OUTSIDE_WORKSPACE");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a repository inside the workspace reports workspace-relative paths in stats and text", async () => {
  const ws = await tempWorkspace();
  const proj = path.join(ws, "proj");
  await initRepo(proj);
  await writeFiles(proj, { "x.txt": "x\n" });
  await commitAll(proj, "x");
  await writeFiles(proj, { "x.txt": "y\n" });
  await using server = await startServer({ workspace: ws });
  try {
    assertEquals(paths(expectOk(await server.call("git_status", { path: "proj" })).structured.entries), ["proj/x.txt"]);
    const diff = expectOk(await server.call("git_diff", { paths: ["proj/x.txt"] })).structured;
    assertEquals(paths(diff.files), ["proj/x.txt"]);
    assert(diff.diff.includes("--- a/proj/x.txt\n+++ b/proj/x.txt"), diff.diff);
    assertEquals(expectOk(await server.call("git_blame", { path: "proj/x.txt" })).structured.path, "proj/x.txt");
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("a malicious repository config runs nothing, while plain git would run it", async () => {
  const ws = await tempWorkspace();
  const markers = await Deno.makeTempDir({ prefix: "workcell-markers-" });
  const hook = (name: string) => {
    const script = path.join(markers, `${name}.sh`);
    Deno.writeTextFileSync(script, `#!/bin/sh\ntouch ${path.join(markers, `ran-${name}`)}\ncat\n`);
    Deno.chmodSync(script, 0o755);
    return script;
  };
  await initRepo(ws);
  await writeFiles(ws, { "a.txt": "zero\n", "b.bin": "text\n" });
  await commitAll(ws, "zero");
  await writeFiles(ws, { "a.txt": "one\n" });
  await commitAll(ws, "first");
  const hooksDir = path.join(markers, "hooks");
  await Deno.mkdir(hooksDir);
  for (const name of ["post-index-change", "post-checkout", "reference-transaction", "pre-commit"]) {
    await Deno.copyFile(hook(`hook-${name}`), path.join(hooksDir, name));
    await Deno.chmod(path.join(hooksDir, name), 0o755);
  }
  const config: [string, string][] = [
    ["core.fsmonitor", hook("fsmonitor")],
    ["core.hooksPath", hooksDir],
    ["core.pager", hook("pager")],
    ["pager.log", hook("pager-log")],
    ["diff.external", hook("external")],
    ["diff.evil.textconv", hook("textconv")],
    ["diff.evil.command", hook("diffcommand")],
    ["filter.evil.clean", hook("clean")],
    ["filter.evil.smudge", hook("smudge")],
    ["filter.evil.required", "true"],
    ["log.showSignature", "true"],
    ["gpg.program", hook("gpg")],
    ["core.sshCommand", hook("ssh")],
    ["color.ui", "always"],
    ["i18n.logOutputEncoding", "ISO-8859-1"],
    ["log.showRoot", "false"],
    ["status.renames", "false"],
    ["diff.noprefix", "true"],
  ];
  for (const [key, value] of config) await git(ws, "config", key, value);
  await writeFiles(ws, { ".gitattributes": "* filter=evil diff=evil\n" });
  // Rewrite a.txt with the same size and an old mtime would still be re-hashed; make it plainly dirty.
  await writeFiles(ws, { "a.txt": "two\n" });
  const ran = async () => {
    const names: string[] = [];
    for await (const entry of Deno.readDir(markers)) if (entry.name.startsWith("ran-")) names.push(entry.name);
    return names.sort();
  };
  await using server = await startServer({ workspace: ws });
  try {
    expectOk(await server.call("git_status", {}));
    const diff = expectOk(await server.call("git_diff", {})).structured;
    assert(diff.diff.includes("-one\n+two\n") && !diff.diff.includes("\x1b["), diff.diff);
    expectOk(await server.call("git_diff", { rev: "HEAD" }));
    expectOk(await server.call("git_diff", { staged: true }));
    expectOk(await server.call("git_diff", { rev: "HEAD~1..HEAD" }));
    expectOk(await server.call("git_log", { path: "a.txt" }));
    expectOk(await server.call("git_show", { rev: "HEAD" }));
    const root = expectOk(await server.call("git_show", { rev: "HEAD~1" })).structured;
    assertEquals(paths(root.files), ["a.txt", "b.bin"]);
    assert(root.patch.includes("+++ b/a.txt"), root.patch);
    assertEquals(expectOk(await server.call("git_show", { rev: "HEAD", path: "a.txt" })).structured.content, "one\n");
    expectOk(await server.call("git_blame", { path: "a.txt" }));
    expectOk(await server.call("git_blame", { path: "a.txt", rev: "HEAD" }));
    // server_info's project context reads git state through src/git too.
    assertEquals(expectOk(await server.call("server_info", {})).structured.project.git.head.length, 40);
    assertEquals(await ran(), []);
    // The same repository does run programs under plain git: the test is not vacuous.
    for (const args of [["status"], ["diff"], ["log", "-p", "--no-ext-diff", "-1"]]) {
      await new Deno.Command("git", { args, cwd: ws, stdout: "null", stderr: "null" }).output();
    }
    const plain = await ran();
    for (
      const name of ["ran-fsmonitor", "ran-clean", "ran-diffcommand", "ran-textconv", "ran-hook-post-index-change"]
    ) {
      assert(plain.includes(name), `plain git should have run ${name}: ${plain}`);
    }
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(markers, { recursive: true });
  }
});

Deno.test("a partial clone never fetches a missing object: no network, no ssh program", async () => {
  const ws = await tempWorkspace();
  const markers = await Deno.makeTempDir({ prefix: "workcell-markers-" });
  await initRepo(ws);
  await writeFiles(ws, { "f.txt": "secret\n" });
  await commitAll(ws, "one");
  const blob = (await git(ws, "rev-parse", "HEAD:f.txt")).trim();
  await Deno.remove(path.join(ws, ".git/objects", blob.slice(0, 2), blob.slice(2)));
  const ssh = path.join(markers, "ssh.sh");
  await Deno.writeTextFile(ssh, `#!/bin/sh\ntouch ${path.join(markers, "ran-ssh")}\nexit 1\n`);
  await Deno.chmod(ssh, 0o755);
  for (
    const [key, value] of [
      ["core.repositoryformatversion", "1"],
      ["extensions.partialClone", "origin"],
      ["remote.origin.url", "ssh://example.invalid/repo"],
      ["remote.origin.promisor", "true"],
      ["core.sshCommand", ssh],
    ]
  ) await git(ws, "config", key, value);
  await using server = await startServer({ workspace: ws });
  try {
    expectError(await server.call("git_show", { rev: "HEAD", path: "f.txt" }), "GIT_FAILED");
    expectError(await server.call("git_blame", { path: "f.txt", rev: "HEAD" }), "GIT_FAILED");
    assertEquals([...Deno.readDirSync(markers)].map((entry) => entry.name), ["ssh.sh"]);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(markers, { recursive: true });
  }
});

Deno.test("option-like and bad revisions are refused; a work tree outside the workspace is refused", async () => {
  const ws = await tempWorkspace();
  await initRepo(ws);
  await writeFiles(ws, { "a.txt": "a\n" });
  await commitAll(ws, "a");
  await using server = await startServer({ workspace: ws });
  try {
    const trap = path.join(ws, "trap.txt");
    for (
      const [name, args] of [
        ["git_log", { rev: `--output=${trap}` }],
        ["git_diff", { rev: `--output=${trap}` }],
        ["git_show", { rev: "--help" }],
        ["git_blame", { path: "a.txt", rev: "-L1,1" }],
      ] as const
    ) {
      expectError(await server.call(name, args), "INVALID_ARGUMENT");
    }
    const bad = expectError(await server.call("git_log", { rev: "no-such-branch" }), "INVALID_ARGUMENT");
    assert(bad.structured.error.message.includes("no-such-branch"), bad.text);
    expectError(await server.call("git_diff", { rev: "no-such-branch" }), "INVALID_ARGUMENT");
    expectError(await server.call("git_show", { rev: "no-such-branch" }), "INVALID_ARGUMENT");
    expectError(await server.call("git_blame", { path: "a.txt", rev: "no-such-branch" }), "INVALID_ARGUMENT");
    const regex = expectError(await server.call("git_log", { grep: "[" }), "INVALID_ARGUMENT");
    assertEquals(regex.structured.error.details.field, "grep");
    await Deno.stat(trap).then(() => assert(false, "an option was smuggled in"), () => {});

    const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
    await git(ws, "config", "core.worktree", outside);
    expectError(await server.call("git_status", {}), "NOT_A_GIT_REPO");
    await Deno.remove(outside, { recursive: true });
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("git_show refuses binary content and bounds text; git_blame caps its lines", async () => {
  const ws = await tempWorkspace();
  await initRepo(ws);
  const long = Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  await writeFiles(ws, { "bin.dat": new Uint8Array([0x61, 0x62, 0x00, 0xff]), "long.txt": long, "uni.txt": "éééé" });
  await commitAll(ws, "files");
  await using server = await startServer({ workspace: ws });
  try {
    const binary = expectError(await server.call("git_show", { rev: "HEAD", path: "bin.dat" }), "NOT_UTF8");
    assertEquals(binary.structured.error.details.byte_offset, 2);
    const bounded = expectOk(await server.call("git_show", { rev: "HEAD", path: "long.txt", max_bytes: 10 }));
    assertEquals([bounded.structured.content, bounded.structured.truncated], ["line 1\n", true]);
    assertEquals(bounded.structured.size, new TextEncoder().encode(long).length);
    const more = { rev: "HEAD", path: "long.txt", max_bytes: 10, cursor: bounded.structured.next_cursor };
    assertEquals(expectOk(await server.call("git_show", more)).structured.content, "line 2\n");
    const uni = expectOk(await server.call("git_show", { rev: "HEAD", path: "uni.txt", max_bytes: 3 })).structured;
    assertEquals([uni.content, uni.truncated], ["é", true]);
    const shown = expectOk(await server.call("git_show", { rev: "HEAD" })).structured;
    assertEquals(shown.files.find((f: { path: string }) => f.path === "bin.dat").binary, true);

    const blame = expectOk(await server.call("git_blame", { path: "long.txt", limit: 2000 })).structured;
    assert(blame.lines.length < 2000 && blame.truncated, "a page ends within the result ceiling");
    assertEquals(blame.next_start_line, blame.lines.length + 1);
    const range = { path: "long.txt", start_line: 2001, limit: 300 };
    const rest = expectOk(await server.call("git_blame", range)).structured;
    const next = expectOk(await server.call("git_blame", { ...range, cursor: rest.next_cursor })).structured;
    assertEquals(next.lines[0].line, rest.lines.at(-1).line + 1);
    const end = expectOk(await server.call("git_blame", { ...range, start_line: 2401 })).structured;
    assertEquals([end.lines.length, end.truncated, end.lines.at(-1).text], [100, false, "line 2500"]);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("git_log on a 10,000-commit history is capped and fast", async () => {
  const ws = await tempWorkspace();
  await importHistory(ws, 10_000);
  // A ceiling that holds 500 commits in one page.
  await using server = await startServer({ workspace: ws, args: ["--max-result-chars", "500000"] });
  try {
    const started = performance.now();
    const log = expectOk(await server.call("git_log", { max_count: 500 })).structured;
    const elapsed = performance.now() - started;
    assertEquals([log.commits.length, log.truncated], [500, true]);
    assertEquals(log.commits[0].subject, "commit 10000");
    assertEquals(log.commits[0].body, "Body of commit 10000.");
    assert(elapsed < 5000, `git_log took ${elapsed} ms`);
    const filtered = expectOk(await server.call("git_log", { path: "files/f3.txt", max_count: 5 })).structured;
    assertEquals(filtered.commits.map((c: { subject: string }) => c.subject), [
      "commit 9993",
      "commit 9983",
      "commit 9973",
      "commit 9963",
      "commit 9953",
    ]);
    const over = await server.call("git_log", { max_count: 501 });
    expectError(over, "INVALID_ARGUMENT");
    const range = expectOk(await server.call("git_diff", { rev: "HEAD~10..HEAD" })).structured;
    assertEquals(range.total_files, 11);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("git_log pages read from the session's kept commits are a fresh walk's pages, a write between them or not", async () => {
  await using server = await startServer();
  await importHistory(server.workspace, 400);
  const pageAll = async (writeAfterPage: number | null) => {
    const pages: { shas: string[]; next: string | null }[] = [];
    let cursor: string | undefined;
    do {
      const log = expectOk(await server.call("git_log", { max_count: 60, ...(cursor ? { cursor } : {}) })).structured;
      pages.push({ shas: log.commits.map((commit: { sha: string }) => commit.sha), next: log.next_cursor });
      cursor = log.next_cursor ?? undefined;
      if (pages.length === writeAfterPage) {
        // A tool that may write drops what the session kept: the next page runs git from its cursor.
        const add = `*** Begin Patch\n*** Add File: note${pages.length}.txt\n+x\n*** End Patch`;
        assert(!(await server.call("apply_patch", { patch: add })).isError);
      }
    } while (cursor !== undefined);
    return pages;
  };
  const kept = await pageAll(null);
  assertEquals(kept.flatMap((page) => page.shas).length, 400);
  assert(kept.length >= 4, `${kept.length} pages`);
  assertEquals(await pageAll(3), kept);
});

Deno.test("docs/git-tools.md quotes the limits the git modules enforce", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/git-tools.md", import.meta.url));
  const quoted = (n: number) => n.toLocaleString("en-US");
  for (const limit of [MAX_STATUS_ENTRIES, MAX_DIFF_FILES, MAX_LOG_COUNT, MAX_MESSAGE_CHARS, MAX_BLAME_LINES]) {
    assert(doc.includes(quoted(limit)), `docs/git-tools.md does not mention ${quoted(limit)}`);
  }
  assert(doc.includes(`${quoted(MAX_BLAME_LINE_CHARS)} characters`));
  assert(doc.includes(`${GIT_TIMEOUT_MS / 1000} s`));
});

Deno.test("git_blame: each commit's details once per page, so a 274-line file takes 2 pages, not 3", async () => {
  const ws = await tempWorkspace();
  try {
    await initRepo(ws);
    const lines = Array.from({ length: 274 }, (_, i) => `  const value${i} = compute(${i}, "a line of code");`);
    await writeFiles(ws, { "module.ts": lines.join("\n") + "\n" });
    await commitAll(ws, "module: the first version of every line, before the bands are revised");
    for (let band = 0; band < 9; band++) {
      for (let i = band * 30; i < band * 30 + 30 && i < 274; i++) lines[i] = lines[i].replace("code", `band ${band}`);
      await writeFiles(ws, { "module.ts": lines.join("\n") + "\n" });
      await commitAll(ws, `module: revise band ${band} of the values so that later commits stay consistent`);
    }
    await using server = await startServer({ workspace: ws });
    let args: Record<string, unknown> = { path: "module.ts" };
    const seen: number[] = [];
    let pages = 0;
    while (true) {
      const page = expectOk(await server.call("git_blame", args));
      pages++;
      const { lines: got, commits } = page.structured;
      seen.push(...got.map((line: { line: number }) => line.line));
      // The page names exactly the commits of its lines, once each, in both views.
      const shas: string[] = [...new Set(got.map((line: { sha: string }) => line.sha))] as string[];
      assertEquals(Object.keys(commits).sort(), [...shas].sort());
      for (const sha of shas) {
        assert(commits[sha].summary.startsWith("module: "), JSON.stringify(commits[sha]));
        const legend = page.text.split("\n").filter((line) => line.startsWith(`[${sha.slice(0, 8)} `));
        assertEquals(legend.length, 1, `${sha}: once in the text`);
        assert(legend[0].includes(commits[sha].summary), legend[0]);
      }
      assert(page.text.includes(`${got[0].sha.slice(0, 8)}   1: ${lines[0]}`) || seen.length > got.length, page.text);
      if (page.structured.next_cursor === null) break;
      args = { path: "module.ts", cursor: page.structured.next_cursor };
    }
    assertEquals(seen, Array.from({ length: 274 }, (_, i) => i + 1));
    assertEquals(pages, 2, "120 repeated lines a page took 3");
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("git_blame: a file that is not committed says so and how to see it; a missing one is NOT_FOUND", async () => {
  const ws = await tempWorkspace();
  try {
    await initRepo(ws);
    await writeFiles(ws, { "old.txt": "old\n" });
    await commitAll(ws, "old");
    await writeFiles(ws, { "notes.txt": "not committed\n" });
    await using server = await startServer({ workspace: ws });
    const untracked = expectError(await server.call("git_blame", { path: "notes.txt" }), "NOT_FOUND");
    assertEquals(untracked.structured.error.message, "notes.txt is not committed: it is in the work tree, not in HEAD");
    assert(untracked.structured.error.hint.includes("read_file"), untracked.structured.error.hint);
    assert(untracked.structured.error.hint.includes("rev"), untracked.structured.error.hint);
    assert(untracked.text.includes("not committed") && !untracked.text.includes("list_dir"), untracked.text);
    const atRev = expectError(await server.call("git_blame", { path: "notes.txt", rev: "HEAD" }), "NOT_FOUND");
    assertEquals(
      atRev.structured.error.message,
      "notes.txt is not committed at HEAD: it is in the work tree, not in HEAD",
    );
    const gone = expectError(await server.call("git_blame", { path: "gone.txt", rev: "HEAD" }), "NOT_FOUND");
    assertEquals(gone.structured.error.message, "gone.txt does not exist at HEAD");
    expectError(await server.call("git_blame", { path: "gone.txt" }), "NOT_FOUND");
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
