/**
 * find: the commands of `-exec`, `-execdir`, `-ok` and `-okdir` are checked
 * like any other, `-delete` removes like `rm -r` of the start points, and
 * the start points and test values are path words.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * FIND.check({ program: "find", name: "find", args: [".", "-exec", "rm", "{}", ";"], places });
 * // [{ kind: "command", argv: ["rm", "{}"] }, { kind: "paths", words: ["."] }]
 * ```
 */
import { type Call, type Finding, pathWords } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";
import { removals } from "./remove.ts";

const RUNNERS = ["-exec", "-execdir", "-ok", "-okdir"];

/**
 * find's rules.
 *
 * @example
 * ```ts
 * FIND.covers("find"); // true
 * ```
 */
export const FIND: ProgramRules = {
  covers: named(["find"]),
  check({ args, places }: Call): Finding[] {
    const findings: Finding[] = [];
    const starts: string[] = [];
    let i = 0;
    while (i < args.length && !/^[-(!]/.test(args[i])) starts.push(args[i++]);
    const rest: string[] = [];
    for (; i < args.length; i++) {
      const arg = args[i];
      if (RUNNERS.includes(arg)) {
        const inner: string[] = [];
        for (i++; i < args.length && args[i] !== ";" && args[i] !== "+"; i++) inner.push(args[i]);
        findings.push({ kind: "command", argv: inner });
      } else if (arg === "-delete") {
        findings.push(...removals("find -delete", ["-r", ...(starts.length > 0 ? starts : ["."])], places));
      } else rest.push(arg);
    }
    return [...findings, pathWords([...starts, ...rest])];
  },
  examples: {
    refused: [["find -delete", "destructive.remove_outside"], [
      "find src/.. -name x -delete",
      "destructive.remove_outside",
    ]],
    allowed: ["find src -name x -delete", "find build -empty -delete"],
  },
};

/**
 * The corpus rows of find (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["find . -exec sh -c 'id' ';'", "inline_script.shell", null],
  ["find . -name x -execdir bash -c id '+'", "inline_script.shell", null],
  ["find . -ok python3 -c 1 ';'", "inline_script.interpreter", null],
  ["find / -delete", "destructive.remove_outside", "destructive.remove_outside"],
  ["find . -delete", "destructive.remove_outside", "destructive.remove_outside"],
  ["find /etc -name x", "outside_path.argument", null],
  ["find . -newer /etc/passwd", "outside_path.argument", null],
  ["find . -name '*.ts'", null, null],
  ["find src -type f -exec wc -l '{}' +", null, null],
];
