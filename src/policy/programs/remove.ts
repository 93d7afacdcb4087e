/**
 * Removal: Landlock lets a child remove anything inside the workspace, so the gate refuses removing the root itself,
 * everything in it (`rm -rf *`, `rm -rf .`) and targets it cannot resolve (`rm -rf $DIR/`, `~`); a path outside is
 * refused as an earlier word for what the sandbox would refuse too.
 */
import * as path from "node:path";
import type { Places } from "../gate_paths.ts";
import { type Call, type CorpusEntry, type Finding, named, pathWords, type ProgramRules, refusal } from "./program.ts";

function removalProblem(target: string, forceful: boolean, places: Places): string | null {
  if (target === "" || /^[$`~]/.test(target)) {
    return forceful ? "the target is not a literal path inside the workspace" : null;
  }
  const abs = places.resolve(target);
  const globbed = /[*?[]/.test(path.basename(abs)) ? path.dirname(abs) : abs;
  if (globbed === places.workspace || abs === places.workspace) return "that is the workspace root";
  if (!places.questions.inside(abs)) return "that is outside the workspace (the sandbox would refuse it too)";
  const parent = places.questions.realParent(abs, false);
  if (parent !== null && !places.questions.inside(parent)) {
    return "it resolves (through a symlink) outside the workspace (the sandbox would refuse it too)";
  }
  return null;
}

/** The removers' rules. */
export const REMOVERS: ProgramRules = {
  covers: named(["rm", "rmdir", "unlink", "shred", "srm"]),
  check({ program, args, places }: Call): Finding[] {
    const dashdash = args.indexOf("--");
    const options = args.filter((arg, index) => (dashdash === -1 || index < dashdash) && arg.startsWith("-"));
    const forceful = options.some((arg) => /^-[A-Za-z]*[rRf]/.test(arg) || arg === "--recursive" || arg === "--force");
    const targets = args.filter((arg, index) => (dashdash !== -1 && index > dashdash) || !arg.startsWith("-"));
    const findings = targets.flatMap((target) => {
      const why = removalProblem(target, forceful, places);
      return why ? [refusal("destructive.remove_outside", target, `${program} ${target}: ${why}`)] : [];
    });
    return [...findings, pathWords(args)];
  },
  examples: {
    refused: [
      ["rm -r src/..", "destructive.remove_outside"],
      ["rm -f $X", "destructive.remove_outside"],
      ["srm -- -x/../..", "destructive.remove_outside"],
    ],
    allowed: ["rm src/a.ts", "rm $X", "rmdir build", "rmx /"],
  },
  corpus: [
    ["rm -rf /", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm -rf /etc", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm -rf ..", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm -rf .", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm -r ./", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm -f ../x", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm --no-preserve-root -rf /", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm -rf outlink/passwd", "destructive.remove_outside", "destructive.remove_outside"],
    ["unlink /etc/hosts", "destructive.remove_outside", "destructive.remove_outside"],
    ["rm src/c.ts", null, null],
    ["rm -rf build", null, null],
    ["rm -f build/x", null, null],
  ] satisfies CorpusEntry[],
};
