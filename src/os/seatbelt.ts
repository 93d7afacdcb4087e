/**
 * A child's Seatbelt profile (src/policy/seatbelt_policy.ts) as SBPL: `(deny default)`, what every process needs, the
 * plan's grants; exclusions are `(require-not …)` inside the one allow rule, so no rule depends on evaluation order.
 */
import * as path from "node:path";

/** The one sandbox-exec workcell runs: never one found on PATH. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** What one child may do under Seatbelt. Every path is absolute and canonical. */
export interface SeatbeltProfile {
  /** "all" files, or only these trees and files (plus the system runtime every child reads). */
  reads: "all" | string[];
  /** Paths never readable, even beneath an allowed tree: the credential stores. */
  unreadable: string[];
  /** Trees it may write beneath, each without its read-only subtrees (git dirs); /dev/null and /dev/zero always. */
  writes: { path: string; readOnly: string[] }[];
  /** "any" program, or only these files and the trees of `dirs`. */
  executes: "any" | { files: string[]; dirs: string[] };
  /** Its own terminal (the PTY slave it was given, or null) and new PTYs of its own; null: none. */
  terminal: { slave: string | null } | null;
  /** Whether it may use the network; local (unix) sockets are allowed beneath its writable trees either way. */
  network: boolean;
}

/** A path the profile cannot carry as itself: the child is then not started (never started unconfined). */
export class SeatbeltPathError extends Error {
  constructor(readonly text: string, why: string) {
    super(`${JSON.stringify(text)} cannot be written in a Seatbelt profile: ${why}`);
    this.name = "SeatbeltPathError";
  }
}

/**
 * An SBPL string literal: quoted, `\` and `"` escaped, all else literal (no UTF-8 byte of a non-ASCII char is either).
 * Refused: NUL (argv cannot carry it) and lone surrogates (they reach the kernel as U+FFFD, so a deny rule would miss).
 * @example
 * ```ts
 * sbplString('a "b" \\ c'); // '"a \\"b\\" \\\\ c"'
 * ```
 */
export function sbplString(text: string): string {
  if (text.includes("\0")) throw new SeatbeltPathError(text, "it holds a NUL byte");
  if (!text.isWellFormed()) throw new SeatbeltPathError(text, "it holds a lone UTF-16 surrogate");
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The path Seatbelt compares with the vnode's real path: the real path of the longest existing part of `p`
 * (`realPath` throws for a missing one) plus the rest, so `/tmp/x` is `/private/tmp/x` even before `x` exists.
 * @example
 * ```ts
 * canonicalPath("/tmp/new", (p) => (p === "/tmp" ? "/private/tmp" : Deno.realPathSync(p))); // "/private/tmp/new"
 * ```
 */
export function canonicalPath(p: string, realPath: (p: string) => string): string {
  const tail: string[] = [];
  for (let head = path.resolve(p);; head = path.dirname(head)) {
    try {
      return path.join(realPath(head), ...tail);
    } catch (error) {
      if (head === path.dirname(head)) throw error;
      tail.unshift(path.basename(head));
    }
  }
}

/** The argv that runs `program` (with `argv`'s arguments; argv[0] becomes `program`) under `profile`. */
export function sandboxExecArgv(profile: string, program: string, argv: readonly string[]): string[] {
  return [SANDBOX_EXEC, "-p", profile, "--", program, ...argv.slice(1)];
}

/** sysctls any program may read: the hardware, the OS version, the limits, its own process. */
const SYSCTL_PREFIXES = ["hw.", "machdep.cpu.", "kern.proc.pid."];
const SYSCTL_NAMES = [
  "kern.argmax",
  "kern.hostname",
  "kern.maxfiles",
  "kern.maxfilesperproc",
  "kern.maxproc",
  "kern.ngroups",
  "kern.osproductversion",
  "kern.osrelease",
  "kern.ostype",
  "kern.osvariant_status",
  "kern.osversion",
  "kern.secure_kernel",
  "kern.usrstack64",
  "kern.version",
  "sysctl.proc_cputype",
  "vm.loadavg",
];
/** System services any program looks up: user and group lookups, notifications, logging, preferences. */
const BASE_SERVICES = [
  "com.apple.bsd.dirhelper",
  "com.apple.cfprefsd.agent",
  "com.apple.cfprefsd.daemon",
  "com.apple.diagnosticd",
  "com.apple.logd",
  "com.apple.system.logger",
  "com.apple.system.notification_center",
  "com.apple.system.opendirectoryd.libinfo",
  "com.apple.system.opendirectoryd.membership",
];
/** What the network needs besides sockets: DNS and proxy configuration, certificate trust (and the keychain). */
const NETWORK_SERVICES = [
  "com.apple.SecurityServer",
  "com.apple.SystemConfiguration.DNSConfiguration",
  "com.apple.SystemConfiguration.configd",
  "com.apple.networkd",
  "com.apple.ocspd",
  "com.apple.trustd",
  "com.apple.trustd.agent",
];
/** The system runtime every child reads and maps: dyld, its shared cache, libSystem, the frameworks. */
export const SEATBELT_RUNTIME = ["/usr/lib", "/System", "/Library/Apple", "/private/var/db/dyld"] as const;
/** Devices every child may read and write: sinks and sources that reach nothing, and its own fds. */
const DEVICES = ["/dev/null", "/dev/zero"];
const READ_ONLY_DEVICES = ["/dev/random", "/dev/urandom"];

const subpaths = (paths: readonly string[]) => paths.map((p) => `(subpath ${sbplString(p)})`);
const literals = (paths: readonly string[]) => paths.map((p) => `(literal ${sbplString(p)})`);
/** A path and everything beneath it, not matched. */
const excluding = (paths: readonly string[]) =>
  paths.flatMap((p) => [`(require-not (literal ${sbplString(p)}))`, `(require-not (subpath ${sbplString(p)}))`]);

function allow(operations: string, filters: readonly string[]): string {
  return filters.length === 0 ? "" : `(allow ${operations}\n  ${filters.join("\n  ")})`;
}

function baseRules(): string[] {
  return [
    "(version 1)",
    "(deny default)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    // host_processor_info and the like (Node's os.cpus()): facts about the machine, no way out of it.
    "(allow mach-host*)",
    allow("sysctl-read", [
      ...SYSCTL_PREFIXES.map((prefix) => `(sysctl-name-prefix ${sbplString(prefix)})`),
      ...SYSCTL_NAMES.map((name) => `(sysctl-name ${sbplString(name)})`),
    ]),
    allow("mach-lookup", BASE_SERVICES.map((name) => `(global-name ${sbplString(name)})`)),
    '(allow ipc-posix-shm-read* (ipc-posix-name "apple.shm.notification_center"))',
    "(allow ipc-posix-sem)",
    "(allow user-preference-read)",
    "(allow file-read-metadata file-test-existence)",
    allow("file-read* file-map-executable", subpaths(SEATBELT_RUNTIME)),
    allow("file-read* file-write-data file-ioctl", [...literals(DEVICES), '(subpath "/dev/fd")']),
    allow("file-read*", literals(READ_ONLY_DEVICES)),
  ];
}

function readRules(profile: SeatbeltProfile): string {
  const operations = "file-read* file-map-executable";
  if (profile.unreadable.length === 0) {
    return profile.reads === "all" ? `(allow ${operations})` : allow(operations, subpaths(profile.reads));
  }
  // All files, or the listed trees and files, and nothing beneath them that is a store.
  const readable = profile.reads === "all" ? '(subpath "/")' : `(require-any ${subpaths(profile.reads).join(" ")})`;
  return allow(operations, [`(require-all ${readable} ${excluding(profile.unreadable).join(" ")})`]);
}

function writeRules(profile: SeatbeltProfile): string {
  const filters = profile.writes.map(({ path: tree, readOnly }) =>
    readOnly.length === 0
      ? `(subpath ${sbplString(tree)})`
      : `(require-all (subpath ${sbplString(tree)}) ${excluding(readOnly).join(" ")})`
  );
  return allow("file-write*", filters);
}

function executeRules(profile: SeatbeltProfile): string {
  if (profile.executes === "any") return "(allow process-exec*)";
  return allow("process-exec*", [...literals(profile.executes.files), ...subpaths(profile.executes.dirs)]);
}

function terminalRules(terminal: SeatbeltProfile["terminal"]): string[] {
  if (terminal === null) return [];
  return [
    "(allow pseudo-tty)",
    allow("file-read* file-write* file-ioctl", [
      '(literal "/dev/ptmx")',
      '(literal "/dev/tty")',
      ...(terminal.slave === null ? [] : literals([terminal.slave])),
      '(require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty"))',
    ]),
  ];
}

function networkRules(profile: SeatbeltProfile): string[] {
  if (profile.network) {
    return [
      "(allow network*)",
      "(allow system-socket)",
      allow("mach-lookup", NETWORK_SERVICES.map((name) => `(global-name ${sbplString(name)})`)),
    ];
  }
  const trees = profile.writes.map((write) => write.path);
  return [
    "; no network (deny default): unix sockets only, bound and reached beneath the writable trees",
    "(allow system-socket (socket-domain AF_UNIX))",
    allow("network-bind", trees.map((tree) => `(local unix-socket (subpath ${sbplString(tree)}))`)),
    allow("network-outbound", trees.map((tree) => `(remote unix-socket (subpath ${sbplString(tree)}))`)),
  ];
}

/**
 * The SBPL text of `profile`.
 * @example
 * ```ts
 * renderProfile({ reads: "all", unreadable: [], writes: [], executes: "any", terminal: null, network: false });
 * ```
 */
export function renderProfile(profile: SeatbeltProfile): string {
  return [
    ...baseRules(),
    executeRules(profile),
    readRules(profile),
    writeRules(profile),
    ...terminalRules(profile.terminal),
    ...networkRules(profile),
  ].filter((rule) => rule !== "").join("\n") + "\n";
}
