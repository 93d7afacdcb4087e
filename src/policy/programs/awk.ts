/**
 * awk and its kin: an inline program that runs commands (`system()`,
 * `getline`, a pipe) is inline code; a program from `-f` is a file, and so
 * are the input operands.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * AWK.check({ program: "awk", name: "awk", args: ["{ print | \"sh\" }"], places })[0];
 * // { kind: "refusal", rule: "inline_script.interpreter", … }
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

const RUNS_COMMANDS = /system\s*\(|getline|\|/;
/** Options that take a value. */
const VALUE_OPTIONS = new Set(["-F", "-v", "-f", "--field-separator", "--assign", "--file", "-i", "--include"]);

/**
 * awk's rules.
 *
 * @example
 * ```ts
 * AWK.covers("awk"); // true
 * ```
 */
export const AWK: ProgramRules = {
  covers: named(["awk", "gawk", "mawk", "nawk", "busybox-awk"]),
  check({ program, args }: Call): Finding[] {
    let fromFile = false;
    const operands: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      if (VALUE_OPTIONS.has(arg)) {
        if (arg === "-f" || arg === "--file") {
          fromFile = true;
          operands.push(args[i + 1] ?? "");
        }
        i++;
      } else if (arg.startsWith("-") && arg !== "-" && operands.length === 0 && !fromFile) {
        continue;
      } else operands.push(arg);
    }
    const [code, ...files] = fromFile ? ["", ...operands] : operands;
    if (!RUNS_COMMANDS.test(code ?? "")) return [pathWords(files)];
    const message = `the ${program} program runs commands (system, getline or a pipe)`;
    return [refusal("inline_script.interpreter", `${program} ${code}`, message), pathWords(files)];
  },
  examples: {
    refused: [["mawk -F, '{ system($1) }' f", "inline_script.interpreter"]],
    allowed: ["awk -f prog.awk f", "gawk -v x=1 '{ print x }' f"],
  },
};

/**
 * The corpus rows of awk (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["awk 'BEGIN { system(\"id\") }'", "inline_script.interpreter", null],
  ["awk '{ print | \"sh\" }' src/a.ts", "inline_script.interpreter", null],
  ["gawk 'BEGIN { \"id\" | getline x }'", "inline_script.interpreter", null],
  ["awk '{ print $1 }' src/a.ts", null, null],
  ["awk -F: '$3 > 5 { print }' src/a.ts", null, null],
];
