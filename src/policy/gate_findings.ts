/**
 * What the walker hands a rule (one program {@linkcode Call}) and what a rule
 * hands back (its {@linkcode Finding}s, in the order they apply). Findings
 * are plain data: the walker refuses at the first refusal whose rule is in
 * force, checks path words only when the outside_path gate is, and walks
 * the commands and shell code a call runs in turn.
 *
 * @example
 * ```ts
 * programName("/usr/bin/python3.12"); // "python"
 * refusal("destructive.kill", "kill 1", "kill 1 signals a process this command did not start");
 * ```
 */
import * as path from "node:path";
import { sensitiveEnvKind } from "./env_filter.ts";
import { type RuleId, RULES } from "./rules.ts";
import type { Places } from "./gate_paths.ts";

/**
 * One finding of a rule.
 *
 * @example
 * ```ts
 * const findings: Finding[] = [{ kind: "paths", words: ["src"] }, { kind: "shell", code: "ls | wc -l" }];
 * ```
 */
export type Finding =
  /** The call is refused by `rule`, if its gate is in force. */
  | { kind: "refusal"; rule: RuleId; token: string; message: string }
  /** Words that must not name paths outside the workspace (outside_path). */
  | { kind: "paths"; words: readonly string[] }
  /** A command the call runs (`find -exec`, a wrapper's command), checked like any other. */
  | { kind: "command"; argv: readonly string[] }
  /** Shell code the call runs (`sh -c`, `eval`, `watch`), walked like `cmd` in a shell mode. */
  | { kind: "shell"; code: string };

/**
 * One program call as the rules see it.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "./gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * const call: Call = { program: "/usr/bin/git", name: "git", args: ["status"], places };
 * ```
 */
export interface Call {
  /** The program word as written, for messages (`/usr/bin/git`). */
  program: string;
  /** The name rules are looked up by ({@linkcode programName}). */
  name: string;
  args: readonly string[];
  /** Where the call's words point. */
  places: Places;
}

/**
 * Normalises a program name: basename, lower case, version suffixes dropped (python3.12 → python).
 *
 * @example
 * ```ts
 * programName("/bin/RM"); // "rm"
 * ```
 */
export function programName(word: string): string {
  const base = path.posix.basename(word).toLowerCase();
  const match = /^(python|pypy|pip|perl|ruby|lua|node|php)[0-9.]*$/.exec(base);
  return match ? match[1] : base;
}

/**
 * A refusal by `rule`, naming the offending word.
 *
 * @example
 * ```ts
 * refusal("network.url", "https://x", "https://x is a network address").kind; // "refusal"
 * ```
 */
export function refusal(rule: RuleId, token: string, message: string): Finding {
  return { kind: "refusal", rule, token, message };
}

/**
 * A refusal of the program whatever its arguments, in the words of its rule.
 *
 * @example
 * ```ts
 * refusedProgram("destructive.disk", "dd"); // { kind: "refusal", token: "dd", message: "dd is refused: dd, mkfs, …" }
 * ```
 */
export function refusedProgram(rule: RuleId, program: string): Finding {
  return refusal(rule, program, `${program} is refused: ${RULES[rule].refuses}`);
}

/**
 * Words to check for outside paths.
 *
 * @example
 * ```ts
 * pathWords(["src/a.ts", "/etc/hosts"]);
 * ```
 */
export function pathWords(words: readonly string[]): Finding {
  return { kind: "paths", words };
}

/**
 * A refusal of a variable name that is secret-looking or makes programs load code, or nothing.
 *
 * @example
 * ```ts
 * secretName("secret_env.inline", "LD_PRELOAD"); // [{ kind: "refusal", rule: "secret_env.inline", … }]
 * secretName("secret_env.inline", "FOO"); // []
 * ```
 */
export function secretName(rule: "secret_env.env" | "secret_env.inline", name: string): Finding[] {
  const kind = sensitiveEnvKind(name);
  if (!kind) return [];
  return [
    refusal(rule, name, `${name} is a ${kind === "loader" ? "loader/code-injection" : "secret-looking"} variable`),
  ];
}
