/** The shape of one program's rules and the check of their examples, as in codex's execpolicy (match/not_match). */
import * as path from "node:path";
import type { Places } from "../gate_paths.ts";
import type { RuleId } from "../rules.ts";
import { tokenize } from "../tokenizer.ts";

/** What a rule says about one call: a refusal, words that must not name outside paths, or code the walker checks. */
export type Finding =
  | { kind: "refusal"; rule: RuleId; token: string; message: string }
  | { kind: "paths"; words: readonly string[] }
  | { kind: "command"; argv: readonly string[] }
  | { kind: "shell"; code: string };

/** One program call: its words and the place it runs in. */
export interface Call {
  program: string;
  /** The program's base name, lower-cased ({@linkcode programName}). */
  name: string;
  args: readonly string[];
  places: Places;
}

/** A corpus row: a command and the first rule that refuses it in safe and in trusted mode (null: it runs). */
export type CorpusEntry = [cmd: string, safe: RuleId | null, trusted: RuleId | null, env?: Record<string, string>];

/** The rules of one program (or of a family: the network clients, the daemons). */
export interface ProgramRules {
  /** Whether these rules read a call of this program ({@linkcode programName}). */
  covers(name: string): boolean;
  /** The findings for one call, in the order they apply. */
  check(call: Call): Finding[];
  /** Commands refused (with the first rule that does) and let through; paths and nested code are the walker's. */
  examples: { refused: readonly (readonly [string, RuleId])[]; allowed: readonly string[] };
  /** End-to-end rows for the gate's tests and tests/policy_test.ts. */
  corpus?: readonly CorpusEntry[];
}

/**
 * The name rules match a program word by: its base name, lower-cased.
 * @example
 * ```ts
 * programName("/usr/bin/Git"); // "git"
 * ```
 */
export function programName(word: string): string {
  return path.posix.basename(word).toLowerCase();
}

/**
 * A refusal finding.
 * @example
 * ```ts
 * refusal("destructive.kill", "kill 1", "kill 1 signals a process this command did not start");
 * ```
 */
export function refusal(rule: RuleId, token: string, message: string): Finding {
  return { kind: "refusal", rule, token, message };
}

/**
 * A finding of words that must not name paths outside the workspace.
 * @example
 * ```ts
 * pathWords(["src/a.ts"]); // { kind: "paths", words: ["src/a.ts"] }
 * ```
 */
export function pathWords(words: readonly string[]): Finding {
  return { kind: "paths", words };
}

/**
 * A `covers` for a fixed set of names.
 * @example
 * ```ts
 * named(["rm", "rmdir"])("rm"); // true
 * ```
 */
export function named(names: Iterable<string>): (name: string) => boolean {
  const set = new Set(names);
  return (name) => set.has(name);
}

function exampleCall(command: string, places: Places): Call {
  const argv = tokenize(command).map((token) => {
    if (token.kind !== "word") throw new Error(`gate example ${JSON.stringify(command)} is not one argv`);
    return token.value;
  });
  return { program: argv[0], name: programName(argv[0]), args: argv.slice(1), places };
}

/**
 * Throws when the rules do not refuse a refused example with its rule first, or refuse an allowed one.
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 * import { GIT } from "./git.ts";
 * checkExamples(GIT, new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" })));
 * ```
 */
export function checkExamples(rules: ProgramRules, places: Places): void {
  const firstRule = (call: Call) => rules.check(call).find((finding) => finding.kind === "refusal")?.rule ?? null;
  for (const [command, rule] of rules.examples.refused) {
    const call = exampleCall(command, places);
    const got = rules.covers(call.name) ? firstRule(call) : "not covered";
    if (got !== rule) throw new Error(`gate example ${JSON.stringify(command)}: expected ${rule}, got ${got}`);
  }
  for (const command of rules.examples.allowed) {
    const call = exampleCall(command, places);
    const got = rules.covers(call.name) ? firstRule(call) : null;
    if (got !== null) throw new Error(`gate example ${JSON.stringify(command)}: expected no refusal, got ${got}`);
  }
}
