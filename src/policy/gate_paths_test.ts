import { assertEquals } from "../../testing/assert.ts";
import { checkCommand } from "./gate.ts";
import { ALLOWED_IN_SAFE, corpusTree, REFUSED_IN_SAFE, TRUSTED_ONLY } from "../../testing/gate_corpus.ts";
import { describedPaths, diskPaths, pathCandidate, type PathQuestions, Places } from "./gate_paths.ts";
import { gatesInForce } from "./modes.ts";

/** Records every question asked, with the answer. */
function recording(questions: PathQuestions, log: string[]): PathQuestions {
  return {
    inside: (abs) => questions.inside(abs),
    realParent(abs, followLast) {
      log.push(JSON.stringify(["realParent", abs, followLast]));
      return questions.realParent(abs, followLast);
    },
    exists(abs) {
      log.push(JSON.stringify(["exists", abs]));
      return questions.exists(abs);
    },
  };
}

Deno.test("describedPaths answers every question the corpus asks as the disk does for the corpus tree", async () => {
  const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-gate-" }));
  const tmpdir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-gate-tmp-" }));
  try {
    await Deno.mkdir(`${workspace}/src`);
    await Deno.writeTextFile(`${workspace}/src/a.ts`, "export const a = 1;\n");
    await Deno.symlink("/etc", `${workspace}/outlink`);
    await Deno.symlink("src", `${workspace}/inlink`);
    const described = describedPaths(corpusTree(workspace, tmpdir));
    const disk = diskPaths(workspace, tmpdir);
    const asked: string[] = [];
    for (const mode of ["safe", "trusted"] as const) {
      const paths = recording(described, asked);
      for (const [cmd, , , env] of [...REFUSED_IN_SAFE, ...ALLOWED_IN_SAFE, ...TRUSTED_ONLY]) {
        checkCommand(cmd, env ?? {}, { mode, gates: gatesInForce(mode, new Set()), workspace, cwd: workspace, paths });
      }
    }
    const questions = [...new Set(asked)].map((line) => JSON.parse(line) as [string, string, boolean?]);
    const answer = (paths: PathQuestions, [kind, abs, followLast]: [string, string, boolean?]) =>
      kind === "exists" ? paths.exists(abs) : paths.realParent(abs, followLast!);
    const differing = questions.filter((question) => answer(described, question) !== answer(disk, question));
    assertEquals(differing, []);
    assertEquals(questions.length > 20, true, `only ${questions.length} questions asked`);
  } finally {
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(tmpdir, { recursive: true });
  }
});

Deno.test("Places.outside: relative, absolute, through symlinks, ~ and paths that are patterns", () => {
  const paths = describedPaths({
    workspace: "/w",
    tmpdir: "/tmp/t",
    symlinks: { "/w/out": "/etc", "/w/in": "/w/src" },
  });
  const places = new Places("/w", "/w/src", paths);
  const outside = (word: string) => places.outside(word);
  assertEquals(
    ["../../x", "../..", "/etc", "/etc/passwd", "../out/x", "~", "~/x", "/"].map(outside),
    Array(8).fill(true),
  );
  assertEquals(
    ["a.ts", "..", "../in/a.ts", "/tmp/t/x", "/dev/null", "/dev/fd/3", "/api/"].map(outside),
    Array(7).fill(false),
  );
});

Deno.test("pathCandidate: the part of a word that would be a path", () => {
  assertEquals(
    ["--out=/x", "--flag", "-I/usr", "-n", "-o~", "key=/x", "key=v", "word", ""].map(pathCandidate),
    ["/x", null, "/usr", null, "~", "/x", null, "word", null],
  );
});

Deno.test("describedPaths: a chain of links resolves hop by hop; the last component stays unless followed", () => {
  const paths = describedPaths({ workspace: "/w", tmpdir: "/t", symlinks: { "/w/a": "/w/b", "/w/b": "/etc" } });
  assertEquals(paths.realParent("/w/a/x", true), "/etc/x");
  assertEquals(paths.realParent("/w/a", false), "/w/a");
  assertEquals(paths.realParent("/w/a", true), "/etc");
  assertEquals([paths.exists("/usr"), paths.exists("/w"), paths.exists("/nope")], [true, true, false]);
});

Deno.test("gate paths: a path with a NUL exists nowhere on disk, and the gate still answers a verdict", () => {
  const paths = diskPaths(Deno.cwd(), "/tmp");
  assertEquals(paths.exists("/a\0b"), false);
  const options = { mode: "safe" as const, gates: gatesInForce("safe", new Set()), workspace: "/w", cwd: "/w", paths };
  assertEquals(checkCommand("cat /a\0b", {}, options).ok, true);
});
