/**
 * The shell's own words, as the walker needs them: shells invoked with code
 * (`sh -c`, or no script file, which reads code from stdin), the keywords
 * and builtins that need a shell, the reserved words that open compound
 * commands, and the builtins that export variables.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "./gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * shellFindings({ program: "bash", name: "bash", args: ["-lc", "ls"], places });
 * // [{ kind: "refusal", rule: "inline_script.shell", token: "bash -c", … }, { kind: "shell", code: "ls" }]
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "./gate_findings.ts";
import { namesStdin } from "./gate_paths.ts";

/**
 * Shells: `-c` runs inline code; no script operand reads code from stdin.
 *
 * @example
 * ```ts
 * SHELLS.has("zsh"); // true
 * ```
 */
export const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
  "csh",
  "tcsh",
  "rbash",
  "yash",
]);
/** Shell options that take a value (so the value is not the script operand). */
const SHELL_VALUE_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/**
 * The findings of one shell invocation: its inline code to walk, or its script operand.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "./gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * shellFindings({ program: "sh", name: "sh", args: ["build.sh"], places }); // [{ kind: "paths", words: ["build.sh"] }]
 * ```
 */
export function shellFindings({ program, args }: Call): Finding[] {
  let inline = false;
  let stdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--" || arg === "-") {
      i++;
      break;
    }
    if (SHELL_VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg[0] === "-" && arg.includes("c")) inline = true;
      if (arg[0] === "-" && /[si]/.test(arg)) stdin = true;
      continue;
    }
    if (arg.startsWith("--")) continue;
    break;
  }
  const operands = args.slice(i);
  if (inline) {
    return [
      refusal("inline_script.shell", `${program} -c`, `${program} -c runs inline shell code`),
      { kind: "shell", code: operands[0] ?? "" },
    ];
  }
  const findings: Finding[] = [];
  if (stdin || operands.length === 0 || namesStdin(operands[0])) {
    findings.push(
      refusal("inline_script.shell", program, `${program} without a script file reads shell code from stdin`),
    );
  }
  return [...findings, pathWords(operands)];
}

/**
 * Shell keywords and builtins that have no program of their own.
 *
 * @example
 * ```ts
 * SHELL_BUILTINS.has("cd"); // true: safe mode has no shell to change directory in
 * ```
 */
export const SHELL_BUILTINS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "select",
  "function",
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "cd",
  "pushd",
  "popd",
  "export",
  "unset",
  "set",
  "shopt",
  "source",
  ".",
  "alias",
  "unalias",
  "declare",
  "typeset",
  "local",
  "readonly",
  "trap",
  "ulimit",
  "umask",
  "read",
  "return",
  "exit",
  "let",
  "hash",
  "jobs",
  "fg",
  "bg",
  "wait",
  "disown",
  "coproc",
]);

/**
 * Reserved words that begin or continue a compound command (skipped when walking shell code).
 *
 * @example
 * ```ts
 * SHELL_RESERVED_PREFIX.has("then"); // true
 * ```
 */
export const SHELL_RESERVED_PREFIX = new Set([
  "!",
  "{",
  "}",
  "then",
  "do",
  "else",
  "elif",
  "if",
  "while",
  "until",
  "time",
  "fi",
  "done",
  "esac",
  "in",
]);

/**
 * A `NAME=value` word: an assignment before a command, or an argument of an exporter.
 *
 * @example
 * ```ts
 * ASSIGNMENT.test("FOO=1"); // true
 * ```
 */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Builtins whose NAME=value arguments set the environment.
 *
 * @example
 * ```ts
 * EXPORTERS.has("export"); // true
 * ```
 */
export const EXPORTERS = new Set(["export", "declare", "typeset", "local", "readonly"]);
