/**
 * Signals: `kill` of anything but the command's own jobs (`%1`, `$!`), and
 * the programs that signal by name or by the hundred (pkill, killall, …),
 * refused whatever their arguments. kill_command stops what the server
 * started.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * KILL.check({ program: "kill", name: "kill", args: ["-9", "1"], places })[0];
 * // { kind: "refusal", rule: "destructive.kill", token: "kill 1", … }
 * ```
 */
import { type Call, type Finding, pathWords, refusal, refusedProgram } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

/**
 * Programs that signal processes by name or all at once.
 *
 * @example
 * ```ts
 * SIGNALLERS.covers("pkill"); // true
 * ```
 */
export const SIGNALLERS: ProgramRules = {
  covers: named(["pkill", "killall", "killall5", "skill"]),
  check: ({ program }: Call) => [refusedProgram("destructive.kill", program)],
  examples: { refused: [["killall5 -9", "destructive.kill"]], allowed: ["killer"] },
};

/**
 * kill's rules: the first option is the signal (with its value after -s/-n); every later word, `-1` included, is a target.
 *
 * @example
 * ```ts
 * KILL.covers("kill"); // true
 * ```
 */
export const KILL: ProgramRules = {
  covers: named(["kill"]),
  check({ args }: Call): Finding[] {
    let i = 0;
    if (args[0] === "-s" || args[0] === "-n") i = 2;
    else if (args[0]?.startsWith("-") && args[0] !== "--") i = 1;
    if (args[i] === "--") i++;
    const targets = args[0] === "-l" || args[0] === "-L" ? [] : args.slice(i);
    const findings = targets.filter((target) => !/^(%\d*|\$!)$/.test(target)).map((target) =>
      refusal("destructive.kill", `kill ${target}`, `kill ${target} signals a process this command did not start`)
    );
    return [...findings, pathWords(args)];
  },
  examples: {
    refused: [["kill -s TERM 42", "destructive.kill"], ["kill -- -1", "destructive.kill"]],
    allowed: ["kill %1", "kill -9 $!", "kill -L"],
  },
};

/**
 * The corpus rows of kill and the signallers (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["kill 1", "destructive.kill", "destructive.kill"],
  ["kill -9 -1", "destructive.kill", "destructive.kill"],
  ["pkill deno", "destructive.kill", "destructive.kill"],
  ["killall deno", "destructive.kill", "destructive.kill"],
  ["kill -l", null, null],
];
