/**
 * Programs that change privileges, namespaces or containers (sudo, su,
 * chroot, unshare, docker, systemd-run, …), refused whatever their
 * arguments outside dangerous mode.
 *
 * @example
 * ```ts
 * PRIVILEGE.covers("doas"); // true
 * ```
 */
import { type Call, refusedProgram } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

/**
 * The privilege changers.
 *
 * @example
 * ```ts
 * PRIVILEGE.covers("sudo"); // true
 * ```
 */
export const PRIVILEGE: ProgramRules = {
  covers: named([
    "sudo",
    "su",
    "doas",
    "pkexec",
    "runuser",
    "chroot",
    "unshare",
    "nsenter",
    "setpriv",
    "capsh",
    "docker",
    "podman",
    "nerdctl",
    "systemd-run",
    "machinectl",
    "firejail",
    "proot",
  ]),
  check: ({ program }: Call) => [refusedProgram("destructive.privilege", program)],
  examples: {
    refused: [["podman ps", "destructive.privilege"], ["/usr/bin/sudo -n true", "destructive.privilege"]],
    allowed: ["sum x"],
  },
};

/**
 * The corpus rows of the privilege changers (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["sudo ls", "destructive.privilege", "destructive.privilege"],
  ["su -c id", "destructive.privilege", "destructive.privilege"],
  ["chroot / ls", "destructive.privilege", "destructive.privilege"],
  ["unshare -r id", "destructive.privilege", "destructive.privilege"],
  ["nsenter -t 1 -m id", "destructive.privilege", "destructive.privilege"],
  ["docker run -v /:/host alpine", "destructive.privilege", "destructive.privilege"],
];
