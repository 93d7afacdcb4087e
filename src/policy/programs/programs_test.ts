/**
 * The program rules as data: every module's examples hold in any tree, a
 * contradicted example fails the check, one module per program, and the
 * findings come in the order they apply.
 */
import { assert, assertEquals, assertThrows } from "../../../testing/assert.ts";
import { checkCommand } from "../gate.ts";
import { describedPaths, Places } from "../gate_paths.ts";
import { gatesInForce } from "../modes.ts";
import { RULES } from "../rules.ts";
import { programFindings, PROGRAMS } from "./mod.ts";
import { checkExamples, named, programName, type ProgramRules } from "./program.ts";
import { GIT } from "./git.ts";
import { FIND } from "./find.ts";

const PLACES = new Places(
  "/w",
  "/w",
  describedPaths({ workspace: "/w", tmpdir: "/tmp/t", symlinks: { "/w/out": "/etc" } }),
);
const call = (command: string) => {
  const [program, ...args] = command.split(" ");
  return { program, name: programName(program), args, places: PLACES };
};
function thrown(fn: () => unknown, text: string): void {
  const error = assertThrows(fn);
  assert(error instanceof Error && error.message.includes(text), String(error));
}

Deno.test("program rules: every module's examples hold, in another tree too", () => {
  const elsewhere = new Places(
    "/home/u/app",
    "/home/u/app",
    describedPaths({ workspace: "/home/u/app", tmpdir: "/tmp/x" }),
  );
  for (const rules of PROGRAMS) checkExamples(rules, elsewhere);
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

Deno.test("program rules: one module per program, and none for a wrapper or a shell", () => {
  for (const rules of PROGRAMS) {
    const names = [...rules.examples.refused.map(([command]) => command), ...rules.examples.allowed]
      .map((command) => programName(command.split(" ")[0])).filter((name) => rules.covers(name));
    for (const name of names) assertEquals(PROGRAMS.filter((other) => other.covers(name)).length, 1, name);
  }
  for (const name of ["env", "timeout", "xargs", "watch", "sh", "bash", "eval", "sudo"]) {
    assertEquals(PROGRAMS.filter((rules) => rules.covers(name)), [], name);
  }
});

Deno.test("program rules: every rule says why it is there, and an earlier one says the sandbox refuses too", () => {
  for (const [id, rule] of Object.entries(RULES)) {
    assert(rule.because.length > 0, id);
    if (rule.why === "earlier" && rule.gate !== "shell_syntax") {
      assert(/sandbox would refuse it too/.test(rule.hint), `${id}: ${rule.hint}`);
    }
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
