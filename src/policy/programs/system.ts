/**
 * The machine's state: power and init (shutdown, reboot, …), firewalls and
 * crontab, refused whatever their arguments; systemctl unless it only
 * reads, sysctl when it writes.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * SYSTEM_SETTINGS.check({ program: "systemctl", name: "systemctl", args: ["stop", "ssh"], places })[0];
 * // { kind: "refusal", rule: "destructive.system", token: "systemctl stop", … }
 * ```
 */
import { type Call, type Finding, pathWords, refusal, refusedProgram } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

/**
 * Power, init, firewall and cron programs.
 *
 * @example
 * ```ts
 * SYSTEM_PROGRAMS.covers("reboot"); // true
 * ```
 */
export const SYSTEM_PROGRAMS: ProgramRules = {
  covers: named([
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
    "init",
    "telinit",
    "kexec",
    "iptables",
    "ip6tables",
    "nft",
    "crontab",
  ]),
  check: ({ program }: Call) => [refusedProgram("destructive.system", program)],
  examples: {
    refused: [["crontab -l", "destructive.system"], ["/sbin/halt", "destructive.system"]],
    allowed: ["initdb"],
  },
};

/** systemctl subcommands that only read. */
const SYSTEMCTL_READS = new Set([
  "status",
  "show",
  "cat",
  "list-units",
  "list-unit-files",
  "list-timers",
  "is-active",
  "is-enabled",
  "is-failed",
  "help",
]);

/**
 * systemctl and sysctl: refused when they change state.
 *
 * @example
 * ```ts
 * SYSTEM_SETTINGS.covers("systemctl"); // true
 * ```
 */
export const SYSTEM_SETTINGS: ProgramRules = {
  covers: named(["systemctl", "sysctl"]),
  check({ name, args }: Call): Finding[] {
    if (name === "systemctl") {
      const sub = args.find((arg) => !arg.startsWith("-")) ?? "";
      if (!SYSTEMCTL_READS.has(sub)) {
        return [
          refusal("destructive.system", `systemctl ${sub}`, `systemctl ${sub} changes system state`),
          pathWords(args),
        ];
      }
    } else if (args.some((arg) => arg === "-w" || arg.includes("="))) {
      return [refusal("destructive.system", "sysctl -w", "sysctl writes kernel parameters"), pathWords(args)];
    }
    return [pathWords(args)];
  },
  examples: {
    refused: [["systemctl --user restart x", "destructive.system"], ["systemctl", "destructive.system"], [
      "sysctl vm.swappiness=10",
      "destructive.system",
    ]],
    allowed: ["systemctl --no-pager status x", "sysctl -a"],
  },
};

/**
 * The corpus rows of the system programs (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["shutdown -h now", "destructive.system", "destructive.system"],
  ["reboot", "destructive.system", "destructive.system"],
  ["poweroff", "destructive.system", "destructive.system"],
  ["systemctl stop ssh", "destructive.system", "destructive.system"],
  ["sysctl -w kernel.x=1", "destructive.system", "destructive.system"],
  ["iptables -F", "destructive.system", "destructive.system"],
  ["crontab -r", "destructive.system", "destructive.system"],
];
