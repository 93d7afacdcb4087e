/**
 * Signals: only the commands this server started may be stopped, through kill_command. Landlock scopes signals only
 * from ABI 6, and a child may signal every other process of its user (the server's own included), so `kill`, `pkill`
 * and `killall` of any process id are refused; job ids (`%1`) and `$!` name the command's own children.
 */
import { type Call, type CorpusEntry, type Finding, named, pathWords, type ProgramRules, refusal } from "./program.ts";

const BY_NAME = new Set(["pkill", "killall", "killall5", "skill"]);

/** The signalling programs' rules. */
export const KILL: ProgramRules = {
  covers: named(["kill", ...BY_NAME]),
  check({ program, name, args }: Call): Finding[] {
    const other = (target: string) =>
      refusal(
        "destructive.kill",
        `${program} ${target}`.trim(),
        `${program} ${target} signals a process this command did not start`,
      );
    if (BY_NAME.has(name)) return [other(args.join(" "))];
    let i = 0;
    if (args[0] === "-s" || args[0] === "-n") i = 2;
    else if (args[0]?.startsWith("-") && args[0] !== "--") i = 1;
    if (args[i] === "--") i++;
    const targets = args[0] === "-l" || args[0] === "-L" ? [] : args.slice(i);
    return [...targets.filter((target) => !/^(%\d*|\$!)$/.test(target)).map(other), pathWords(args)];
  },
  examples: {
    refused: [["kill -s TERM 42", "destructive.kill"], ["kill -- -1", "destructive.kill"], [
      "killall5 -9",
      "destructive.kill",
    ]],
    allowed: ["kill %1", "kill -9 $!", "kill -L"],
  },
  corpus: [
    ["kill 1", "destructive.kill", "destructive.kill"],
    ["kill -9 -1", "destructive.kill", "destructive.kill"],
    ["pkill deno", "destructive.kill", "destructive.kill"],
    ["killall deno", "destructive.kill", "destructive.kill"],
    ["kill -l", null, null],
  ] satisfies CorpusEntry[],
};
