/**
 * chmod, chown, chgrp, chattr and setfacl: recursive changes, and changes
 * of paths outside the workspace (Landlock ABI ≤ 7 does not cover modes,
 * owners or attributes, so the gate is all there is).
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * PERMISSIONS.check({ program: "chmod", name: "chmod", args: ["-R", "777", "src"], places })[0];
 * // { kind: "refusal", rule: "destructive.permissions", token: "chmod -R", … }
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

/**
 * The permission changers' rules.
 *
 * @example
 * ```ts
 * PERMISSIONS.covers("chmod"); // true
 * ```
 */
export const PERMISSIONS: ProgramRules = {
  covers: named(["chmod", "chown", "chgrp", "chattr", "setfacl"]),
  check({ program, args, places }: Call): Finding[] {
    const findings: Finding[] = [];
    if (args.some((arg) => arg === "--recursive" || /^-[A-Za-z]*R/.test(arg))) {
      findings.push(refusal("destructive.permissions", `${program} -R`, `${program} -R changes a whole tree`));
    }
    for (const arg of args.filter((word) => !word.startsWith("-") && !word.startsWith("+"))) {
      if (places.outside(arg)) {
        findings.push(refusal("destructive.permissions", arg, `${program} ${arg} is outside the workspace`));
      }
    }
    return [...findings, pathWords(args)];
  },
  examples: {
    refused: [["chattr +i /etc/hosts", "destructive.permissions"], [
      "setfacl --recursive -m u:x:r src",
      "destructive.permissions",
    ]],
    allowed: ["chown nobody src/a.ts", "chmod u+x src/run.sh"],
  },
};

/**
 * The corpus rows of the permission changers (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["chmod -R 777 src", "destructive.permissions", "destructive.permissions"],
  ["chown -R nobody src", "destructive.permissions", "destructive.permissions"],
  ["chmod 777 /etc/passwd", "destructive.permissions", "destructive.permissions"],
  ["chgrp nogroup /etc/hosts", "destructive.permissions", "destructive.permissions"],
  ["chmod +x script.sh", null, null],
  ["chmod 644 src/a.ts", null, null],
];
