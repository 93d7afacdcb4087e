/**
 * A hostile repository against the git tools: every config key that names a
 * program, reached directly, through include.path and includeIf, in a
 * submodule and in a worktree, × every git tool × revision spellings that
 * compare one commit with the work tree without a range, in every mode. The
 * programs are scripts outside the workspace that leave a marker file; the
 * marker never appears (and plain git, run on the same repository, does make
 * it appear: the corpus is not vacuous). Then a concurrent writer flips the
 * config between clean and hostile during hundreds of calls.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { commitAll, git, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { type CallResult, startServer, tempWorkspace } from "./harness.ts";
import { scale } from "../testing/scale.ts";
import { ERROR_CODE_NAMES } from "../src/errors.ts";

/** A directory outside every workspace where the hostile programs leave their markers. */
async function markerDir(): Promise<{ dir: string; program(name: string): string; ran(): string[] } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-markers-" }));
  return {
    dir,
    program(name) {
      const script = path.join(dir, `${name}.sh`);
      // Passes its input through, so a filter or pager that did run would still look like one.
      Deno.writeTextFileSync(script, `#!/bin/sh\ntouch '${path.join(dir, `ran-${name}`)}'\ncat\n`);
      Deno.chmodSync(script, 0o755);
      return script;
    },
    ran: () => [...Deno.readDirSync(dir)].map((entry) => entry.name).filter((name) => name.startsWith("ran-")).sort(),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Every config key whose value git may run as a program (or that makes git run one). */
function hostileConfig(markers: { dir: string; program(name: string): string }, tag: string): [string, string][] {
  const p = (name: string) => markers.program(`${tag}-${name}`);
  const hooks = path.join(markers.dir, `${tag}-hooks`);
  Deno.mkdirSync(hooks, { recursive: true });
  for (const hook of ["post-index-change", "pre-commit", "reference-transaction", "post-checkout", "pre-auto-gc"]) {
    Deno.copyFileSync(p(`hook-${hook}`), path.join(hooks, hook));
    Deno.chmodSync(path.join(hooks, hook), 0o755);
  }
  return [
    ["filter.evil.clean", p("clean")],
    ["filter.evil.smudge", p("smudge")],
    ["filter.evil.process", p("process")],
    ["filter.evil.required", "true"],
    ["diff.evil.textconv", p("textconv")],
    ["diff.evil.command", p("diffcommand")],
    ["diff.external", p("external")],
    ["core.fsmonitor", p("fsmonitor")],
    ["core.pager", p("pager")],
    ["pager.log", p("pager-log")],
    ["pager.diff", p("pager-diff")],
    ["pager.show", p("pager-show")],
    ["pager.status", p("pager-status")],
    ["pager.blame", p("pager-blame")],
    ["core.sshCommand", p("ssh")],
    ["core.askPass", p("askpass")],
    ["core.editor", p("editor")],
    ["core.alternateRefsCommand", p("alternate-refs")],
    ["credential.helper", `!${p("credential")}`],
    ["gpg.program", p("gpg")],
    ["gpg.ssh.program", p("gpg-ssh")],
    ["log.showSignature", "true"],
    ["core.hooksPath", hooks],
    ["uploadpack.packObjectsHook", p("pack-objects")],
    ["remote.origin.url", "ext::sh -c touch% /tmp/never"],
    ["color.ui", "always"],
  ];
}

/** A repository at `dir` whose history has a commit message with ".." (for `:/..`). */
async function repository(dir: string): Promise<void> {
  await initRepo(dir);
  await writeFiles(dir, { "a.txt": "zero\n", "b.txt": "bee\n" });
  await commitAll(dir, "first .. commit");
  await writeFiles(dir, { "a.txt": "one\n" });
  await commitAll(dir, "second");
}

/**
 * Makes the work tree at `dir` dirty under attributes that name the `evil` filter and diff driver, after
 * `configure` set the config (the fixture's own git commands are done by then: plain git would run it).
 */
async function poison(dir: string, configure: () => Promise<void>): Promise<void> {
  await configure();
  await writeFiles(dir, { ".gitattributes": "* filter=evil diff=evil\n", "a.txt": "two\n" });
}

/** The git tool calls of the corpus on a repository at `prefix` ("" for the workspace root). */
function corpus(prefix: string): [string, Record<string, unknown>][] {
  const file = `${prefix}a.txt`;
  const scope = prefix === "" ? {} : { path: prefix.replace(/\/$/, "") };
  const paths = prefix === "" ? {} : { paths: [prefix.replace(/\/$/, "")] };
  return [
    ["git_status", scope],
    ["git_diff", paths],
    ["git_diff", { ...paths, staged: true }],
    ["git_diff", { ...paths, rev: "HEAD" }],
    ["git_diff", { ...paths, rev: ":/.." }],
    ["git_diff", { ...paths, rev: "HEAD^{/..}" }],
    ["git_diff", { ...paths, rev: "HEAD~1" }],
    ["git_diff", { ...paths, rev: "HEAD~1..HEAD" }],
    ["git_log", scope],
    ["git_log", { ...scope, rev: ":/.." }],
    ["git_show", { rev: "HEAD", ...scope }],
    ["git_show", { rev: ":/.." }],
    ["git_show", { rev: "HEAD", path: file }],
    ["git_blame", { path: file }],
    ["git_blame", { path: file, rev: "HEAD" }],
  ];
}

function assertAnswered(result: CallResult, call: string): void {
  if (!result.isError) return;
  const code = result.structured?.error?.code;
  assert(ERROR_CODE_NAMES.includes(code), `${call}: ${result.text}`);
}

Deno.test("hostile repository: no config key runs a program from any git tool, in any mode, on any revision", async () => {
  await using markers = await markerDir();
  const ws = await tempWorkspace();
  const mainRepo = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-main-" }));
  try {
    await repository(ws);
    await repository(path.join(ws, "nested"));
    await repository(path.join(mainRepo, "subsource"));
    await git(ws, "-c", "protocol.file.allow=always", "submodule", "add", path.join(mainRepo, "subsource"), "sub");
    // 1. The workspace's own repository, its config set directly.
    await poison(ws, async () => {
      for (const [key, value] of hostileConfig(markers, "direct")) await git(ws, "config", key, value);
    });
    // 2. A nested repository whose keys come from include.path and includeIf, in files outside the workspace.
    const included = path.join(markers.dir, "included.config");
    const conditional = path.join(markers.dir, "conditional.config");
    const lines = (pairs: [string, string][]) =>
      pairs.map(([key, value]) => {
        const [section, ...rest] = key.split(".");
        const name = rest.pop()!;
        const sub = rest.length ? ` "${rest.join(".")}"` : "";
        return `[${section}${sub}]\n\t${name} = ${JSON.stringify(value)}\n`;
      }).join("");
    Deno.writeTextFileSync(included, lines(hostileConfig(markers, "include")));
    Deno.writeTextFileSync(conditional, lines(hostileConfig(markers, "includeif")));
    const nested = path.join(ws, "nested");
    await poison(nested, async () => {
      await git(nested, "config", "include.path", included);
      await git(nested, "config", `includeIf.gitdir:${nested}/.path`, conditional);
    });
    // 3. A submodule (its git dir in .git/modules) with its own hostile config.
    const sub = path.join(ws, "sub");
    await poison(sub, async () => {
      for (const [key, value] of hostileConfig(markers, "submodule")) await git(sub, "config", key, value);
    });
    const calls = [...corpus(""), ...corpus("nested/"), ...corpus("sub/")];
    for (const mode of ["safe", "trusted", "dangerous"]) {
      await using server = await startServer({ workspace: ws, args: ["--mode", mode] });
      for (const [name, args] of calls) {
        const call = `${mode} ${name} ${JSON.stringify(args)}`;
        assertAnswered(await server.call(name, args), call);
        assertEquals(markers.ran(), [], `${call} ran a program`);
      }
      // The submodule and the workspace's own diff still come back (drivers blanked, not failing the call).
      const diff = await server.call("git_diff", { rev: ":/.." });
      assert(!diff.isError && diff.structured.diff.includes("+two"), diff.text);
    }
    // The same repository does run programs under plain git: the corpus is not vacuous.
    for (const args of [["status"], ["diff"], ["diff", ":/.."], ["log", "-p", "-1"]]) {
      await new Deno.Command("git", { args, cwd: ws, stdout: "null", stderr: "null", env: { PAGER: "" } }).output();
    }
    const plain = markers.ran();
    for (const marker of ["ran-direct-process", "ran-direct-fsmonitor"]) {
      assert(plain.includes(marker), `plain git did not run ${marker}: ${plain.join(", ")}`);
    }
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(mainRepo, { recursive: true });
  }
});

Deno.test("hostile repository: a worktree workspace whose main repository's config is hostile runs nothing", async () => {
  await using markers = await markerDir();
  const main = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-main-" }));
  const worktree = `${main}-worktree`;
  try {
    await repository(main);
    await git(main, "worktree", "add", "-b", "side", worktree);
    await poison(worktree, async () => {
      for (const [key, value] of hostileConfig(markers, "worktree")) await git(main, "config", key, value);
    });
    await using server = await startServer({ workspace: worktree });
    for (const [name, args] of corpus("")) {
      const result = await server.call(name, args);
      assertAnswered(result, `${name} ${JSON.stringify(args)}`);
      assertEquals(markers.ran(), [], `${name} ${JSON.stringify(args)} ran a program`);
    }
    const status = await server.call("git_status", {});
    assert(
      !status.isError && status.structured.entries.some((entry: { path: string }) => entry.path === "a.txt"),
      status.text,
    );
  } finally {
    await Deno.remove(worktree, { recursive: true }).catch(() => {});
    await Deno.remove(main, { recursive: true });
  }
});

/** Calls while the config flips: 300 under `deno task reliability`, 90 (30 of each tool call) in the suite. */
const FLIP_CALLS = scale(45, 300);

Deno.test(`hostile repository: a config flipped between clean and hostile during ${FLIP_CALLS} calls never runs anything`, async () => {
  await using markers = await markerDir();
  const ws = await tempWorkspace();
  try {
    await repository(ws);
    await poison(ws, async () => {});
    const configFile = path.join(ws, ".git", "config");
    const clean = await Deno.readTextFile(configFile);
    const hostile = clean + [
      '[filter "evil"]',
      `\tclean = ${markers.program("race-clean")}`,
      `\tsmudge = ${markers.program("race-smudge")}`,
      '[diff "evil"]',
      `\ttextconv = ${markers.program("race-textconv")}`,
      "[core]",
      `\tfsmonitor = ${markers.program("race-fsmonitor")}`,
      "",
    ].join("\n");
    let flipping = true;
    // A writer replacing the file atomically every 2 ms, as a command of the agent could.
    const writer = (async () => {
      for (let round = 0; flipping; round++) {
        const temp = `${configFile}.${round % 2}.tmp`;
        await Deno.writeTextFile(temp, round % 2 === 0 ? hostile : clean);
        await Deno.rename(temp, configFile);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    await using server = await startServer({ workspace: ws });
    try {
      for (let call = 0; call < FLIP_CALLS; call++) {
        const [name, args] = call % 3 === 0
          ? ["git_status", {}]
          : call % 3 === 1
          ? ["git_diff", { rev: ":/.." }]
          : ["git_diff", {}];
        assertAnswered(await server.call(name, args), `${name} #${call}`);
      }
    } finally {
      flipping = false;
      await writer;
    }
    assertEquals(markers.ran(), []);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
