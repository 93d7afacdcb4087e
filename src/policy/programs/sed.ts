/**
 * sed: scripts that run commands (the `e` command, the `e` flag of `s`)
 * and editing in place; its script files and input files are path words.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * SED.check({ program: "sed", name: "sed", args: ["s/a/id/e", "f"], places })[0];
 * // { kind: "refusal", rule: "inline_script.interpreter", token: "s/a/id/e", … }
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { inPlaceEdit } from "./in_place.ts";
import { named, type ProgramRules } from "./program.ts";

/** The `e` command (optionally addressed), or an `s` command with the `e` flag. */
const RUNS_COMMANDS = [/(^|[;\n{}])\s*([0-9]+(,[0-9]+)?|\$)?\s*e(\s|;|$)/, /^s(.).*\1.*\1[gpIiMm0-9]*e/];

/** sed's words sorted: options, scripts (inline) and files (script files and input). */
function words(args: readonly string[]): { options: string[]; scripts: string[]; files: string[] } {
  const options: string[] = [];
  const scripts: string[] = [];
  const files: string[] = [];
  let explicit = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-e" || arg === "--expression" || arg === "-f" || arg === "--file") {
      explicit = true;
      (arg.endsWith("f") || arg === "--file" ? files : scripts).push(args[++i] ?? "");
    } else if (arg.startsWith("--expression=")) {
      explicit = true;
      scripts.push(arg.slice("--expression=".length));
    } else if (arg.startsWith("-") && arg !== "-") options.push(arg);
    else if (!explicit && scripts.length === 0) scripts.push(arg);
    else files.push(arg);
  }
  return { options, scripts, files };
}

/**
 * sed's rules.
 *
 * @example
 * ```ts
 * SED.covers("sed"); // true
 * ```
 */
export const SED: ProgramRules = {
  covers: named(["sed"]),
  check(call: Call): Finding[] {
    const { options, scripts, files } = words(call.args);
    const runs = scripts.filter((script) => RUNS_COMMANDS.some((pattern) => pattern.test(script)));
    return [
      ...inPlaceEdit(call, options),
      ...runs.map((script) => refusal("inline_script.interpreter", script, "the sed script runs commands (e)")),
      pathWords(files),
    ];
  },
  examples: {
    refused: [
      ["sed -e p -e 2e src/a.ts", "inline_script.interpreter"],
      ["sed --expression=s/x/y/ge f", "inline_script.interpreter"],
      ["sed -ni p f", "destructive.in_place_edit"],
    ],
    allowed: ["sed -e s/e/E/g f", "sed -f edit.sed f", "sed -E 's/(e)/\\1/' f"],
  },
};

/**
 * The corpus rows of sed (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["sed 's/a/id/e' src/a.ts", "inline_script.interpreter", null],
  ["sed -n '1e id' src/a.ts", "inline_script.interpreter", null],
  ["sed -i s/a/b/ src/a.ts", "destructive.in_place_edit", null],
  ["sed --in-place=.bak s/a/b/ src/a.ts", "destructive.in_place_edit", null],
  ["sed -n '1,5p' src/a.ts", null, null],
  ["sed 's/a/b/g' src/a.ts", null, null],
];
