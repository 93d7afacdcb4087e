/**
 * find's commands: what `-exec`, `-execdir`, `-ok` and `-okdir` run is a command the walker checks in turn; start
 * paths and tests are path words. `-delete` is left to the sandbox, which confines it to the workspace.
 */
import { type Call, type CorpusEntry, type Finding, named, pathWords, type ProgramRules } from "./program.ts";

const RUNNERS = ["-exec", "-execdir", "-ok", "-okdir"];

/** find's rules. */
export const FIND: ProgramRules = {
  covers: named(["find"]),
  check({ args }: Call): Finding[] {
    const findings: Finding[] = [];
    const own: string[] = [];
    for (let i = 0; i < args.length; i++) {
      if (!RUNNERS.includes(args[i])) {
        own.push(args[i]);
        continue;
      }
      const inner: string[] = [];
      for (i++; i < args.length && args[i] !== ";" && args[i] !== "+"; i++) inner.push(args[i]);
      findings.push({ kind: "command", argv: inner });
    }
    return [...findings, pathWords(own)];
  },
  examples: { refused: [], allowed: ["find . -name x -delete", "find src -exec wc -l {} +"] },
  corpus: [
    ["find . -exec git reset --hard ';'", "destructive.git_discard", "destructive.git_discard"],
    ["find /etc -name x", "outside_path.argument", null],
    ["find . -newer /etc/passwd", "outside_path.argument", null],
    ["find . -name x -delete", null, null],
    ["find build -empty -delete", null, null],
    ["find src -type f -exec wc -l '{}' +", null, null],
  ] satisfies CorpusEntry[],
};
