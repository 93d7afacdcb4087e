/**
 * Git dirs known by what they are, not by their name: a `.git` file pointing
 * outside the workspace is refused by every git tool (and no outside commit,
 * blob or status reaches the agent, even while the file is swapped back and
 * forth), one pointing inside works, and a separate git dir is as protected
 * from apply_patch and from safe-mode commands as `.git/` itself.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { commitAll, git, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { type CallResult, startServer, tempWorkspace } from "./harness.ts";
import { scale } from "../testing/scale.ts";

const SECRET = "OUTSIDE-SECRET-7f3a";

/** A repository outside the workspace whose commit message, file and content all carry SECRET. */
async function outsideRepository(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-elsewhere-" }));
  await initRepo(dir);
  await writeFiles(dir, { "secret.txt": `${SECRET}\n`, "x.txt": `${SECRET} x\n` });
  await commitAll(dir, `commit ${SECRET}`);
  await writeFiles(dir, { "secret.txt": `${SECRET} changed\n` });
  return dir;
}

function leaks(result: CallResult): boolean {
  return result.text.includes(SECRET) || JSON.stringify(result.structured).includes(SECRET);
}

const EXT_CALLS: [string, Record<string, unknown>][] = [
  ["git_log", { path: "ext" }],
  ["git_log", { path: "ext/secret.txt" }],
  ["git_show", { rev: "HEAD", path: "ext/secret.txt" }],
  ["git_blame", { path: "ext/x.txt" }],
  ["git_blame", { path: "ext/x.txt", rev: "HEAD" }],
  ["git_status", { path: "ext" }],
  ["git_diff", { paths: ["ext"] }],
];

Deno.test("a .git file pointing at a repository outside the workspace is refused by every git tool", async () => {
  const elsewhere = await outsideRepository();
  const ws = await tempWorkspace();
  try {
    await initRepo(ws);
    await writeFiles(ws, { "in.txt": "inside\n" });
    await commitAll(ws, "inside");
    // What a safe-mode `cp` of a one-line file could make.
    await writeFiles(ws, { "ext/.git": `gitdir: ${elsewhere}/.git\n`, "ext/x.txt": "inside copy\n" });
    await using server = await startServer({ workspace: ws });
    for (const [name, args] of EXT_CALLS) {
      const result = await server.call(name, args);
      assert(result.isError, `${name} ${JSON.stringify(args)} answered: ${result.text}`);
      assertEquals(result.structured.error.code, "PATH_OUTSIDE_WORKSPACE", result.text);
      assert(!leaks(result), `${name} leaked: ${result.text}`);
    }
    // The workspace's own repository still answers.
    assert(!(await server.call("git_log", {})).isError);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});

/** Calls while the .git file flips: 200 under `deno task reliability`, 60 in the suite. */
const SWAP_CALLS = scale(60, 200);

Deno.test(`a .git file swapped between an inside and an outside git dir during ${SWAP_CALLS} calls never lets outside content out`, async () => {
  const elsewhere = await outsideRepository();
  const ws = await tempWorkspace();
  try {
    await initRepo(ws);
    await writeFiles(ws, { "in.txt": "inside\n" });
    await commitAll(ws, "inside");
    // ext/ is a real repository of the workspace (a separate git dir inside it)...
    await git(ws, "init", "-q", "--separate-git-dir", path.join(ws, "ext-meta"), path.join(ws, "ext"));
    await writeFiles(path.join(ws, "ext"), { "secret.txt": "harmless\n", "x.txt": "harmless x\n" });
    await commitAll(path.join(ws, "ext"), "harmless");
    const dotGit = path.join(ws, "ext", ".git");
    const inside = await Deno.readTextFile(dotGit);
    // ...whose .git file a writer keeps pointing outside and back.
    let swapping = true;
    const writer = (async () => {
      for (let round = 0; swapping; round++) {
        const temp = `${dotGit}.${round % 2}.tmp`;
        await Deno.writeTextFile(temp, round % 2 === 0 ? `gitdir: ${elsewhere}/.git\n` : inside);
        await Deno.rename(temp, dotGit);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    await using server = await startServer({ workspace: ws });
    let answered = 0;
    try {
      for (let call = 0; call < SWAP_CALLS; call++) {
        const [name, args] = EXT_CALLS[call % EXT_CALLS.length];
        const result = await server.call(name, args);
        assert(!leaks(result), `${name} leaked on call ${call}: ${result.text}`);
        if (!result.isError) answered++;
      }
    } finally {
      swapping = false;
      await writer;
    }
    assert(answered > 0, "no call got through while the file pointed inside");
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("a separate git dir inside the workspace: the git tools work, apply_patch and safe commands cannot touch it", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-separate-" }));
  const ws = path.join(base, "ws");
  try {
    // `git init --separate-git-dir=meta`: the git dir is meta/, .git is a file naming it.
    await git(base, "init", "-q", "-b", "main", "--separate-git-dir", path.join(ws, "meta"), ws);
    await writeFiles(ws, { "a.txt": "one\n" });
    await commitAll(ws, "one");
    await using server = await startServer({ workspace: ws });
    const log = await server.call("git_log", {});
    assertEquals([log.isError, log.structured.commits.length], [false, 1]);
    for (
      const patch of [
        "*** Add File: meta/hooks/pre-commit\n+#!/bin/sh\n+touch /tmp/planted\n",
        "*** Update File: meta/config\n@@\n [core]\n+\tfsmonitor = /tmp/planted.sh\n",
        "*** Add File: META/info/attributes\n+* filter=evil\n",
        "*** Delete File: .git\n",
        "*** Add File: sub/.git\n+gitdir: ../meta\n",
        "*** Update File: a.txt\n*** Move to: meta/hooks/post-checkout\n@@\n-one\n+#!/bin/sh\n",
      ]
    ) {
      const result = await server.call("apply_patch", { patch: `*** Begin Patch\n${patch}*** End Patch\n` });
      const code = result.structured?.error?.code;
      // META/ is a new directory on a case-sensitive file system, not the git dir: nothing protects it.
      if (patch.includes("META/")) {
        assert(!result.isError, result.text);
        continue;
      }
      assertEquals(code, "PATH_PROTECTED", `${patch}: ${result.text}`);
    }
    assertEquals(await Deno.readTextFile(path.join(ws, "a.txt")), "one\n");
    await Deno.stat(path.join(ws, "meta/hooks/pre-commit")).then(() => assert(false, "hook planted"), () => {});
    // A safe-mode command cannot write the separate git dir either, nor the .git file, while git still reads.
    await writeFiles(ws, {
      "plant.sh": [
        "for target in meta/hooks/pre-commit meta/config .git; do",
        '  if echo "[core] fsmonitor = /tmp/x" >> "$target" 2>/dev/null; then echo "$target=written"; else echo "$target=refused"; fi',
        "done",
        "git log --format=%s",
        "",
      ].join("\n"),
    });
    const planted = await server.call("exec_command", { cmd: "bash plant.sh" });
    assertEquals(planted.structured.stdout, "meta/hooks/pre-commit=refused\nmeta/config=refused\n.git=refused\none\n");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a .git file pointing inside the workspace works like a .git directory", async () => {
  const ws = await tempWorkspace();
  try {
    await git(ws, "init", "-q", "-b", "main", "--separate-git-dir", path.join(ws, ".meta-sub"), path.join(ws, "sub"));
    await writeFiles(path.join(ws, "sub"), { "s.txt": "s\n" });
    await commitAll(path.join(ws, "sub"), "sub commit");
    // Relative, as git writes it for submodules.
    await Deno.writeTextFile(path.join(ws, "sub", ".git"), "gitdir: ../.meta-sub\n");
    await using server = await startServer({ workspace: ws });
    const log = await server.call("git_log", { path: "sub" });
    assert(!log.isError, log.text);
    assertEquals(log.structured.commits.map((commit: { subject: string }) => commit.subject), ["sub commit"]);
    const blame = await server.call("git_blame", { path: "sub/s.txt" });
    assertEquals([blame.isError, blame.structured.lines.length], [false, 1]);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
