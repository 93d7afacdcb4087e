/** The program rules the walker hands each call to, no two covering one program; others' arguments are path words. */
import { describedPaths, Places } from "../gate_paths.ts";
import { DAEMONS } from "./daemons.ts";
import { FIND } from "./find.ts";
import { GIT } from "./git.ts";
import { KILL } from "./kill.ts";
import { NETWORK } from "./network.ts";
import { PERMISSIONS } from "./permissions.ts";
import { type Call, checkExamples, type Finding, pathWords, type ProgramRules } from "./program.ts";
import { REMOVERS } from "./remove.ts";

/** Every program module. */
export const PROGRAMS: readonly ProgramRules[] = [NETWORK, GIT, FIND, REMOVERS, PERMISSIONS, KILL, DAEMONS];

/** The tree the examples run in: a workspace with a symlink out of it. */
const EXAMPLE_PLACES = new Places(
  "/workspace",
  "/workspace",
  describedPaths({ workspace: "/workspace", tmpdir: "/tmp/workcell-tmp", symlinks: { "/workspace/outlink": "/etc" } }),
);
// Examples are checked at the first call, not at import: that would add cold code to each start-up before `initialize`.
let examplesChecked = false;

/**
 * The findings of the program's rules, or its arguments as path words when it has none.
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * programFindings({ program: "curl", name: "curl", args: ["x"], places })[0]; // { kind: "refusal", rule: "network.command", … }
 * ```
 */
export function programFindings(call: Call): Finding[] {
  if (!examplesChecked) {
    for (const rules of PROGRAMS) checkExamples(rules, EXAMPLE_PLACES);
    examplesChecked = true;
  }
  const rules = PROGRAMS.find((candidate) => candidate.covers(call.name));
  return rules ? rules.check(call) : [pathWords(call.args)];
}
