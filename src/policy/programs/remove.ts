/**
 * rm, rmdir, unlink, shred and srm (and `find -delete`, through
 * {@linkcode removals}): removing the workspace root, a path outside it, a
 * path that leads outside through a symlink, or — forcefully — a target
 * the shell has yet to expand (`$DIR`, `~`).
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * removals("rm", ["-rf", "/"], places); // [{ kind: "refusal", rule: "destructive.remove_outside", token: "/", … }]
 * ```
 */
import * as path from "node:path";
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import type { Places } from "../gate_paths.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

function removalProblem(target: string, forceful: boolean, places: Places): string | null {
  if (target === "" || /^[$`~]/.test(target)) {
    return forceful ? "the target is not a literal path inside the workspace" : null;
  }
  const abs = places.resolve(target);
  const globbed = /[*?[]/.test(path.basename(abs)) ? path.dirname(abs) : abs;
  if (globbed === places.workspace || abs === places.workspace) return "that is the workspace root";
  if (!places.questions.inside(abs)) return "that is outside the workspace";
  const parent = places.questions.realParent(abs, false);
  if (parent !== null && !places.questions.inside(parent)) {
    return "it resolves (through a symlink) outside the workspace";
  }
  return null;
}

/**
 * The refusals of removing `args`' targets (`program` names the remover in messages).
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * removals("find -delete", ["-r", "."], places)[0]; // { …, message: "find -delete .: that is the workspace root" }
 * ```
 */
export function removals(program: string, args: readonly string[], places: Places): Finding[] {
  const findings: Finding[] = [];
  if (args.includes("--no-preserve-root")) {
    findings.push(refusal("destructive.remove_outside", "--no-preserve-root", `${program} --no-preserve-root`));
  }
  const dashdash = args.indexOf("--");
  const options = args.filter((arg, index) => (dashdash === -1 || index < dashdash) && arg.startsWith("-"));
  const forceful = options.some((arg) => /^-[A-Za-z]*[rRf]/.test(arg) || arg === "--recursive" || arg === "--force");
  const targets = args.filter((arg, index) => (dashdash !== -1 && index > dashdash) || !arg.startsWith("-"));
  for (const target of targets) {
    const why = removalProblem(target, forceful, places);
    if (why) findings.push(refusal("destructive.remove_outside", target, `${program} ${target}: ${why}`));
  }
  return findings;
}

/**
 * The removers' rules.
 *
 * @example
 * ```ts
 * REMOVERS.covers("rm"); // true
 * ```
 */
export const REMOVERS: ProgramRules = {
  covers: named(["rm", "rmdir", "unlink", "shred", "srm"]),
  check: ({ program, args, places }: Call) => [...removals(program, args, places), pathWords(args)],
  examples: {
    refused: [
      ["rm -r src/..", "destructive.remove_outside"],
      ["rm -f $X", "destructive.remove_outside"],
      ["srm -- -x/../..", "destructive.remove_outside"],
    ],
    allowed: ["rm src/a.ts", "rm $X", "rmdir build", "rmx /"],
  },
};

/**
 * The corpus rows of the removers (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["rm -rf /", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm -rf /etc", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm -rf ..", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm -rf .", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm -r ./", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm -f ../x", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm --no-preserve-root -rf /", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm -rf outlink/passwd", "destructive.remove_outside", "destructive.remove_outside"],
  ["/bin/rm -rf /var/tmp", "destructive.remove_outside", "destructive.remove_outside"],
  ["rmdir /tmp", "destructive.remove_outside", "destructive.remove_outside"],
  ["unlink /etc/hosts", "destructive.remove_outside", "destructive.remove_outside"],
  ["shred -u /etc/hosts", "destructive.remove_outside", "destructive.remove_outside"],
  ["rm src/c.ts", null, null],
  ["rm -rf build", null, null],
  ["rm -f build/x", null, null],
];
