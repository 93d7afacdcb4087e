/**
 * Mode, attribute and ACL changes outside the workspace: Landlock does not cover them, and a root child owns most
 * files, so `chmod 777 /etc/shadow` would pass the sandbox. chown and chgrp are left to the kernel: with every
 * capability dropped a child cannot give a file away.
 */
import { type Call, type CorpusEntry, type Finding, named, pathWords, type ProgramRules, refusal } from "./program.ts";

/** The permission changers' rules. */
export const PERMISSIONS: ProgramRules = {
  covers: named(["chmod", "chattr", "setfacl", "setfattr"]),
  check({ program, args, places }: Call): Finding[] {
    const outside = args.filter((arg) => !/^[-+]/.test(arg) && places.outside(arg));
    return [
      ...outside.map((arg) =>
        refusal("destructive.permissions", arg, `${program} ${arg} changes a file outside the workspace`)
      ),
      pathWords(args),
    ];
  },
  examples: {
    refused: [["chattr +i /etc/hosts", "destructive.permissions"], [
      "setfacl -m u:x:r /etc",
      "destructive.permissions",
    ]],
    allowed: ["chmod -R u+w src", "chmod u+x src/run.sh"],
  },
  corpus: [
    ["chmod 777 /etc/passwd", "destructive.permissions", "destructive.permissions"],
    ["chmod -R 777 ../", "destructive.permissions", "destructive.permissions"],
    ["chmod -R 755 src", null, null],
    ["chmod +x script.sh", null, null],
  ] satisfies CorpusEntry[],
};
