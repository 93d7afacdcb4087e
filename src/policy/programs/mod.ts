/**
 * The program rules, in the order the walker (gate.ts) applies them, with
 * each module's examples checked here before the rules judge their first
 * call (once; at import they would cost every start-up ~6 ms of cold code
 * before `initialize` is answered, where the first command hardly notices
 * them). First the rules
 * on every call, a wrapper's or a shell's included, before it is unwrapped:
 * programs refused by name, package-manager subcommands, network URLs.
 * Then the program's own grammar — one module per program — or, for a
 * program without one, every argument as a path word.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * const call = { program: "git", name: "git", args: ["reset", "--hard"], places };
 * [...commonFindings(call), ...programFindings(call)];
 * ```
 */
import type { Call, Finding } from "../gate_findings.ts";
import { pathWords } from "../gate_findings.ts";
import { describedPaths, Places } from "../gate_paths.ts";
import { AWK } from "./awk.ts";
import { DISK } from "./disk.ts";
import { FIND } from "./find.ts";
import { GIT } from "./git.ts";
import { INTERPRETERS } from "./interpreters.ts";
import { KILL, SIGNALLERS } from "./kill.ts";
import { NETWORK_CLIENTS, RSYNC, URLS } from "./network.ts";
import { PACKAGE_MANAGERS } from "./packages.ts";
import { PERMISSIONS } from "./permissions.ts";
import { PRIVILEGE } from "./privilege.ts";
import { checkExamples, type ProgramRules } from "./program.ts";
import { REMOVERS } from "./remove.ts";
import { SED } from "./sed.ts";
import { SYSTEM_PROGRAMS, SYSTEM_SETTINGS } from "./system.ts";

/**
 * Rules on every call, in order: the first refusal in force wins, so by-name refusals come before URLs.
 *
 * @example
 * ```ts
 * COMMON_RULES.filter((rules) => rules.covers("curl")).length; // 2: the network clients and URLs
 * ```
 */
export const COMMON_RULES: readonly ProgramRules[] = [
  DISK,
  SYSTEM_PROGRAMS,
  SIGNALLERS,
  PRIVILEGE,
  NETWORK_CLIENTS,
  PACKAGE_MANAGERS,
  URLS,
];

/**
 * The programs' own grammars; no two cover the same program (programs_test.ts).
 *
 * @example
 * ```ts
 * GRAMMARS.filter((rules) => rules.covers("git")).length; // 1
 * ```
 */
export const GRAMMARS: readonly ProgramRules[] = [
  INTERPRETERS,
  AWK,
  SED,
  FIND,
  GIT,
  RSYNC,
  REMOVERS,
  PERMISSIONS,
  KILL,
  SYSTEM_SETTINGS,
];

/**
 * The findings of the rules on every call.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * commonFindings({ program: "curl", name: "curl", args: ["x"], places })[0]; // { kind: "refusal", rule: "network.command", … }
 * ```
 */
export function commonFindings(call: Call): Finding[] {
  checkAllExamples();
  return COMMON_RULES.flatMap((rules) => rules.covers(call.name) ? rules.check(call) : []);
}

/**
 * The findings of the program's grammar, or its arguments as path words when it has none.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * programFindings({ program: "cat", name: "cat", args: ["/etc/hosts"], places }); // [{ kind: "paths", words: ["/etc/hosts"] }]
 * ```
 */
export function programFindings(call: Call): Finding[] {
  const grammar = GRAMMARS.find((rules) => rules.covers(call.name));
  return grammar ? grammar.check(call) : [pathWords(call.args)];
}

/** The tree the examples run in: a workspace with a symlink out of it. */
const EXAMPLE_PLACES = new Places(
  "/workspace",
  "/workspace",
  describedPaths({ workspace: "/workspace", tmpdir: "/tmp/workcell-tmp", symlinks: { "/workspace/outlink": "/etc" } }),
);
let examplesChecked = false;

/** Throws, once, when a module's rules contradict its examples; the walker asks every call's commonFindings first. */
function checkAllExamples(): void {
  if (examplesChecked) return;
  for (const rules of [...COMMON_RULES, ...GRAMMARS]) checkExamples(rules, EXAMPLE_PLACES);
  examplesChecked = true;
}
