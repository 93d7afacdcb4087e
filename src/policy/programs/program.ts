/**
 * The shape of one program's rules: which calls they read, the findings
 * for a call, and examples of what they refuse and let through, which
 * {@linkcode checkExamples} runs against the rules themselves before they
 * judge a command (as codex's execpolicy checks each rule's match and
 * not_match examples when it loads a policy).
 *
 * @example
 * ```ts
 * import { refusal } from "../gate_findings.ts";
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const SUDO: ProgramRules = {
 *   covers: named(["sudo"]),
 *   check: ({ program }) => [refusal("destructive.privilege", program, `${program} changes privileges`)],
 *   examples: { refused: [["sudo ls", "destructive.privilege"]], allowed: ["ls"] },
 * };
 * checkExamples(SUDO, new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" })));
 * ```
 */
import { type Call, type Finding, programName } from "../gate_findings.ts";
import type { Places } from "../gate_paths.ts";
import type { RuleId } from "../rules.ts";
import { tokenize } from "../tokenizer.ts";

/**
 * The rules of one program (or of a family: the interpreters, the package managers).
 *
 * @example
 * ```ts
 * import { pathWords } from "../gate_findings.ts";
 *
 * const CAT: ProgramRules = {
 *   covers: named(["cat"]),
 *   check: ({ args }) => [pathWords(args)],
 *   examples: { refused: [], allowed: ["cat /etc/hosts"] },
 * };
 * ```
 */
export interface ProgramRules {
  /** Whether these rules read a call of this program ({@linkcode programName}). */
  covers(name: string): boolean;
  /** The findings for one call, in the order they apply. */
  check(call: Call): Finding[];
  /**
   * Commands these rules refuse, with the first rule that does, and commands they let through (or do not
   * cover); paths, nested commands and shell code are the walker's to judge, not the examples'.
   */
  examples: { refused: readonly (readonly [string, RuleId])[]; allowed: readonly string[] };
}

/**
 * A `covers` for a fixed set of names.
 *
 * @example
 * ```ts
 * named(["rm", "rmdir"])("rm"); // true
 * ```
 */
export function named(names: Iterable<string>): (name: string) => boolean {
  const set = new Set(names);
  return (name) => set.has(name);
}

/** The call an example command makes: an example is one argv, its words as a shell mode passes them on. */
function exampleCall(command: string, places: Places): Call {
  const argv = tokenize(command).map((token) => {
    if (token.kind !== "word") throw new Error(`gate example ${JSON.stringify(command)} is not one argv`);
    return token.value;
  });
  return { program: argv[0], name: programName(argv[0]), args: argv.slice(1), places };
}

/**
 * Throws when the rules do not refuse a refused example with its rule first, or refuse an allowed one.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 * import { GIT } from "./git.ts";
 *
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
