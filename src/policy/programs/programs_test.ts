import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { checkCommand } from "../gate.ts";
import { programName } from "../gate_findings.ts";
import { describedPaths, Places } from "../gate_paths.ts";
import { SHELLS } from "../gate_shell.ts";
import { isWrapper } from "../gate_wrappers.ts";
import { gatesInForce } from "../modes.ts";
import { COMMON_RULES, commonFindings, GRAMMARS, programFindings } from "./mod.ts";
import { checkExamples, named, type ProgramRules } from "./program.ts";
import { GIT } from "./git.ts";
import { FIND } from "./find.ts";
import { URLS } from "./network.ts";

const PLACES = new Places(
  "/w",
  "/w",
  describedPaths({ workspace: "/w", tmpdir: "/tmp/t", symlinks: { "/w/out": "/etc" } }),
);
const call = (command: string) => {
  const [program, ...args] = command.split(" ");
  return { program, name: programName(program), args, places: PLACES };
};
/** Asserts that `fn` throws an error whose message includes `text`. */
function thrown(fn: () => unknown, text: string): void {
  const error = assertThrows(fn);
  assert(error instanceof Error && error.message.includes(text), String(error));
}
const exampleNames = (rules: ProgramRules) =>
  [...rules.examples.refused.map(([command]) => command), ...rules.examples.allowed].map((command) =>
    programName(command.split(" ")[0])
  );

Deno.test("program rules: every module's examples hold, in another tree too", () => {
  const elsewhere = new Places(
    "/home/u/app",
    "/home/u/app",
    describedPaths({ workspace: "/home/u/app", tmpdir: "/tmp/x" }),
  );
  for (const rules of [...COMMON_RULES, ...GRAMMARS]) checkExamples(rules, elsewhere);
});

Deno.test("program rules: an example the rules contradict fails the examples check", () => {
  const wrong: ProgramRules = {
    ...GIT,
    examples: { refused: [["git status", "destructive.git_discard"]], allowed: [] },
  };
  thrown(() => checkExamples(wrong, PLACES), '"git status": expected destructive.git_discard, got null');
  const lax: ProgramRules = { ...GIT, examples: { refused: [], allowed: ["git reset --hard"] } };
  thrown(() => checkExamples(lax, PLACES), "expected no refusal, got destructive.git_discard");
  const uncovered: ProgramRules = { ...GIT, examples: { refused: [["ls", "destructive.git_discard"]], allowed: [] } };
  thrown(() => checkExamples(uncovered, PLACES), "got not covered");
  const shell: ProgramRules = { ...GIT, examples: { refused: [], allowed: ["git status | cat"] } };
  thrown(() => checkExamples(shell, PLACES), "is not one argv");
});

Deno.test("program rules: one grammar per program, and none for a wrapper or a shell", () => {
  for (const rules of [...COMMON_RULES, ...GRAMMARS]) {
    for (const name of exampleNames(rules).filter((name) => rules.covers(name))) {
      if (GRAMMARS.includes(rules)) assertEquals(GRAMMARS.filter((other) => other.covers(name)).length, 1, name);
      if (rules !== URLS) assertEquals(isWrapper(name) || SHELLS.has(name), false, name);
    }
  }
  for (const name of ["env", "timeout", "xargs", "watch", "sh", "bash", "eval"]) {
    assertEquals(GRAMMARS.filter((rules) => rules.covers(name)), [], name);
  }
});

Deno.test("program rules: findings are data, in the order they apply", () => {
  assertEquals(programFindings(call("git -C /etc reset --hard")).map((finding) => finding.kind), [
    "paths",
    "refusal",
    "paths",
  ]);
  assertEquals(FIND.check(call("find src -exec rm {} ; -newer x")), [
    { kind: "command", argv: ["rm", "{}"] },
    { kind: "paths", words: ["src", "-newer", "x"] },
  ]);
  assertEquals(programFindings(call("cat a b")), [{ kind: "paths", words: ["a", "b"] }]);
  // By-name refusals come before URLs, which come before the program's own rules.
  assertEquals(commonFindings(call("curl https://x")).map((finding) => finding.kind === "refusal" && finding.rule), [
    "network.command",
    "network.url",
  ]);
  assertEquals(named(["a"])("b"), false);
});

Deno.test("program rules: names that are Object.prototype keys are programs like any other", () => {
  const options = {
    mode: "safe" as const,
    gates: gatesInForce("safe", new Set()),
    workspace: "/w",
    cwd: "/w",
    paths: PLACES.questions,
  };
  for (const name of ["constructor", "__proto__", "hasownproperty"]) {
    assertEquals(checkCommand(`${name} x`, {}, options), { ok: true, argv: [name, "x"], inlineEnv: {} });
  }
});
