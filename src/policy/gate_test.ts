import { assert, assertEquals } from "../../testing/assert.ts";
import { checkCommand, type GateOptions } from "./gate.ts";
import {
  ALLOWED_IN_SAFE,
  type CorpusEntry,
  corpusTree,
  REFUSED_IN_SAFE,
  TRUSTED_ONLY,
} from "../../testing/gate_corpus.ts";
import { describedPaths } from "./gate_paths.ts";
import { gatesInForce } from "./modes.ts";
import type { Mode } from "./modes.ts";

/** The corpus workspace, described: src/a.ts, outlink → /etc, inlink → src (gate_paths_test.ts: as on disk). */
const WORKSPACE = "/corpus";
const BASE: Omit<GateOptions, "mode" | "gates"> = {
  workspace: WORKSPACE,
  cwd: WORKSPACE,
  paths: describedPaths(corpusTree(WORKSPACE, "/tmp/workcell-corpus-tmp")),
};

function verdictRule(entry: CorpusEntry, mode: Mode, grants = new Set<string>()) {
  const verdict = checkCommand(entry[0], entry[3] ?? {}, { ...BASE, mode, gates: gatesInForce(mode, grants) });
  return verdict.ok ? null : verdict.refusal.rule;
}

function checkCorpus(entries: CorpusEntry[], mode: Mode, column: 1 | 2) {
  const wrong: string[] = [];
  for (const entry of entries) {
    const got = verdictRule(entry, mode);
    if (got !== entry[column]) {
      wrong.push(
        `${JSON.stringify(entry[0])} ${JSON.stringify(entry[3] ?? {})}: expected ${entry[column]}, got ${got}`,
      );
    }
  }
  assertEquals(wrong, []);
}

const ALL = [...REFUSED_IN_SAFE, ...ALLOWED_IN_SAFE, ...TRUSTED_ONLY];

Deno.test("corpus: its size meets the contract (≥150 refused and ≥50 allowed in safe mode)", () => {
  const refused = ALL.filter((entry) => entry[1] !== null).length;
  const allowed = ALL.filter((entry) => entry[1] === null).length;
  console.log(
    `corpus: ${ALL.length} commands; safe refuses ${refused}, runs ${allowed}; trusted refuses ${
      ALL.filter((entry) => entry[2] !== null).length
    }`,
  );
  assert(refused >= 150, `only ${refused} refused`);
  assert(allowed >= 50, `only ${allowed} allowed`);
});

Deno.test("corpus: no command is listed twice", () => {
  const keys = ALL.map((entry) => JSON.stringify([entry[0], entry[3] ?? {}]));
  assertEquals(keys.filter((key, index) => keys.indexOf(key) !== index), []);
});

Deno.test("corpus: safe mode refuses each command with the expected rule, and lets the rest run", () => {
  checkCorpus(ALL, "safe", 1);
});

Deno.test("corpus: trusted mode keeps only the destructive and secret checks", () => {
  checkCorpus(ALL, "trusted", 2);
});

Deno.test("corpus: dangerous mode refuses nothing", () => {
  assertEquals(ALL.filter((entry) => verdictRule(entry, "dangerous") !== null), []);
});

Deno.test("gate: safe mode gives the argv without a shell, and inline assignments as env", () => {
  const options = { ...BASE, mode: "safe" as const, gates: gatesInForce("safe", new Set()) };
  assertEquals(checkCommand(`FOO=1 grep -n "a b" 'c d' e\\ f src`, {}, options), {
    ok: true,
    argv: ["grep", "-n", "a b", "c d", "e f", "src"],
    inlineEnv: { FOO: "1" },
  });
  // Trusted and dangerous leave argv to the shell.
  const trusted = checkCommand("ls | wc -l", {}, {
    ...options,
    mode: "trusted",
    gates: gatesInForce("trusted", new Set()),
  });
  assertEquals(trusted, { ok: true, argv: null, inlineEnv: {} });
});

Deno.test("gate: grants lift exactly their gates, within the mode's ceiling", () => {
  const rule = (cmd: string, mode: Mode, ...grants: string[]) => verdictRule([cmd, null, null], mode, new Set(grants));
  assertEquals(rule("curl http://127.0.0.1/", "safe", "network"), null);
  assertEquals(rule("curl http://127.0.0.1/ | jq .", "safe", "network"), "shell_syntax.operator");
  assertEquals(rule("ls | wc -l", "safe", "shell"), null);
  // A shell grant still walks every simple command for the other safe gates.
  assertEquals(rule("ls | curl x", "safe", "shell"), "network.command");
  assertEquals(rule("cat /etc/hosts | wc -l", "safe", "shell"), "outside_path.argument");
  assertEquals(rule("echo x > /etc/motd", "safe", "shell"), "outside_path.argument");
  assertEquals(rule("cat /etc/hosts", "safe", "outside_read"), null);
  // destructive cannot be granted in safe mode; it can in trusted.
  assertEquals(rule("git reset --hard", "safe", "destructive"), "destructive.git_discard");
  assertEquals(rule("git reset --hard", "trusted", "destructive"), null);
  // Nothing lifts the secret checks.
  assertEquals(
    rule("LD_PRELOAD=x ls", "trusted", "destructive", "network", "shell", "outside_read"),
    "secret_env.inline",
  );
});
