/**
 * The one place that decides what every child may touch: {@linkcode childSandbox} returns a plan that the launcher
 * only enforces (src/os/sandbox_script.ts). docs/permission-modes.md tabulates it. Missing layers are never faked.
 */
import type { Mode } from "./modes.ts";
import {
  ACCESS_FS,
  ACCESS_NET,
  allWriteRights,
  FILE_ACCESS,
  LANDLOCK_FEATURE_ABI,
  type LandlockRule,
  type LandlockRuleset,
  SCOPE,
} from "../os/landlock.ts";
import { AF, socketFamilyFilter } from "../os/seccomp.ts";
import type { ReadOnlyBind, SandboxPlan } from "../os/sandbox_script.ts";
import { syscallTable } from "../os/syscalls.ts";
import { ERRNO } from "../os/libc.ts";
import { networkAllowed } from "./modes.ts";
import { statPath } from "../os/fs_stat.ts";
import type { gitImage } from "./child_requests.ts";

/** Whether a layer of the sandbox can be had on this machine, and why not. */
export type Availability = { available: true } | { available: false; reason: string };

/** What the machine offers, measured once (linux_spawners.ts). */
export interface ChildFacts {
  abi: number | null;
  /** Whether the launcher can make a mount namespace (and, unprivileged, a user namespace) with read-only binds. */
  namespaces: Availability;
  seccomp: Availability;
  uid: number;
  gid: number;
  lastCapability: number;
}

/** The git the git tools run (its real path), and what executing it takes (child_requests.ts finds it). */
export type GitImage = NonNullable<Awaited<ReturnType<typeof gitImage>>>;

/** A command of exec_command. */
export interface CommandChild {
  kind: "command";
  mode: Mode;
  grants: ReadonlySet<string>;
  /** The workspace root and the private temp dir (null when there is none): the only writable trees. */
  root: string;
  tmpdir: string | null;
  /** The command's own PTY slave (/dev/pts/N), which it may reopen; no other terminal is writable. */
  ttySlave?: string;
  /** Git dirs (and `.git` files) inside the workspace to bind read-only (safe mode without a git_write grant). */
  gitDirs: ReadOnlyBind[];
  /** Read rules for everything but the credential stores (credentials.ts), used in safe mode. */
  readRules: LandlockRule[];
}

/** The git of a git tool. */
export interface GitChild {
  kind: "git";
  root: string;
  /** Trees and files outside the workspace git may read: the repository's own git dirs, ignore files above. */
  readable: string[];
  git: GitImage;
  config: string[];
}

/** The ripgrep of list_files and search_text. */
export interface RipgrepChild {
  kind: "ripgrep";
  root: string;
  /** The rg binary, unless it is a memfd (which Landlock cannot and need not name). */
  executables: string[];
  ignoreFiles: string[];
}

/** Any child the server starts. */
export type ChildRequest = CommandChild | GitChild | RipgrepChild;

/** System trees the read-only children need: programs, libraries, the system config. */
export const SYSTEM_READABLE = ["/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc"] as const;
/** Devices every child may write: sinks and sources that reach nothing. */
export const CHILD_DEVICES = ["/dev/null", "/dev/zero", "/dev/full"] as const;
/** Devices a command may also open: its controlling terminal and new PTYs of its own. */
export const COMMAND_TERMINAL_DEVICES = ["/dev/tty", "/dev/ptmx"] as const;

const READ = ACCESS_FS.READ_FILE | ACCESS_FS.READ_DIR;

/**
 * A rule granting `access` on each path that exists (one missing on this machine gets none), only its file rights on
 * what is not a directory.
 */
function rules(paths: readonly string[], access: bigint): LandlockRule[] {
  return paths.flatMap((path) => {
    const stat = statPath(path);
    return stat === null ? [] : [{ path, access: stat.kind === "dir" ? access : access & FILE_ACCESS }];
  });
}

function fileWrite(abi: number): bigint {
  return ACCESS_FS.WRITE_FILE | (abi >= LANDLOCK_FEATURE_ABI.truncate ? ACCESS_FS.TRUNCATE : 0n);
}

/** Network and scopes: no TCP when `denyNetwork` (ABI ≥ 4); signals, and abstract sockets without network, scoped (ABI ≥ 6). */
function networkAndScope(abi: number, denyNetwork: boolean): Pick<LandlockRuleset, "handledNet" | "scoped"> {
  const scope = abi >= LANDLOCK_FEATURE_ABI.scope;
  return {
    handledNet: denyNetwork && abi >= LANDLOCK_FEATURE_ABI.network ? ACCESS_NET.BIND_TCP | ACCESS_NET.CONNECT_TCP : 0n,
    scoped: scope ? SCOPE.SIGNAL | (denyNetwork ? SCOPE.ABSTRACT_UNIX_SOCKET : 0n) : 0n,
  };
}

function commandRuleset(abi: number, child: CommandChild, safe: boolean, denyNetwork: boolean): LandlockRuleset {
  const write = allWriteRights(abi);
  const writable = [child.root, ...(child.tmpdir ? [child.tmpdir] : [])];
  const devices = [...CHILD_DEVICES, ...COMMAND_TERMINAL_DEVICES, ...(child.ttySlave ? [child.ttySlave] : [])];
  return {
    abi,
    handledFs: write | (safe ? READ : 0n),
    ...networkAndScope(abi, denyNetwork),
    rules: [
      ...rules(writable, write | (safe ? READ : 0n)),
      ...rules(devices, fileWrite(abi) | (safe ? ACCESS_FS.READ_FILE : 0n)),
      ...(safe ? child.readRules : []),
    ],
  };
}

/** A domain that may read `readable`, execute `executables`, and write nothing but the null devices. */
function readOnlyRuleset(abi: number, readable: string[], executables: string[]): LandlockRuleset {
  // TRUNCATE is granted where reading is (ABI ≥ 3): a right that no rule grants makes each open walk up to the
  // filesystem root, about 10% slower on a full search. Nothing outside can be truncated, only null devices written.
  const truncate = abi >= LANDLOCK_FEATURE_ABI.truncate ? ACCESS_FS.TRUNCATE : 0n;
  return {
    abi,
    handledFs: READ | ACCESS_FS.EXECUTE | allWriteRights(abi),
    ...networkAndScope(abi, true),
    rules: [
      ...rules(readable, READ | truncate),
      ...rules(executables, ACCESS_FS.EXECUTE | ACCESS_FS.READ_FILE),
      ...rules(CHILD_DEVICES, fileWrite(abi) | ACCESS_FS.READ_FILE),
    ],
  };
}

/**
 * The seccomp filter that leaves no network: sockets only of the unix (and, for commands, netlink) family.
 * @example
 * ```ts
 * import { AF } from "../os/seccomp.ts";
 * noNetworkFilter([AF.UNIX]); // a BPF program refusing other socket families with EACCES
 * ```
 */
export function noNetworkFilter(families: readonly number[]): Uint8Array<ArrayBuffer> {
  return socketFamilyFilter(syscallTable(), families, ERRNO.EACCES);
}

/**
 * The sandbox plan for `child` on a machine with `facts`; null means no sandbox at all (dangerous mode).
 * @example
 * ```ts
 * declare const facts: ChildFacts;
 * childSandbox({ kind: "ripgrep", root: "/repo", executables: ["/usr/bin/rg"], ignoreFiles: [] }, facts);
 * ```
 */
export function childSandbox(child: ChildRequest, facts: ChildFacts): SandboxPlan | null {
  const base = { dropCapabilities: true, lastCapability: facts.lastCapability };
  const seccomp = (families: readonly number[]) => facts.seccomp.available ? noNetworkFilter(families) : null;
  if (child.kind === "command") {
    if (child.mode === "dangerous") return null;
    const safe = child.mode === "safe";
    const denyNetwork = !networkAllowed(child.mode, child.grants);
    const mounts = facts.namespaces.available && child.gitDirs.length > 0
      ? { user: facts.uid === 0 ? null : { uid: facts.uid, gid: facts.gid }, readOnly: child.gitDirs }
      : null;
    return {
      ...base,
      mounts,
      landlock: facts.abi === null ? null : commandRuleset(facts.abi, child, safe, denyNetwork),
      seccomp: denyNetwork ? seccomp([AF.UNIX, AF.NETLINK]) : null,
    };
  }
  const [readable, executables] = child.kind === "git"
    ? [
      [child.root, ...child.readable, ...SYSTEM_READABLE, ...child.config],
      [child.git.binary, child.git.execPath, ...child.git.loaders],
    ]
    : [[child.root, ...child.ignoreFiles], child.executables];
  return {
    ...base,
    mounts: null,
    landlock: facts.abi === null ? null : readOnlyRuleset(facts.abi, readable, executables),
    seccomp: seccomp([AF.UNIX]),
  };
}

/** What a plan has the kernel enforce, as check_exec_environment reports it per kind of child. */
export interface SandboxDescription {
  /** Whether any layer applies (false: the child runs with the server's own rights). */
  enforced: boolean;
  layers: string[];
  /** "anywhere", or the only trees it may write beneath (devices aside). */
  writes: "anywhere" | string[];
  reads: "anywhere" | "all but credential stores" | string[];
  executes: "anything" | string[];
  /** "denied": every socket but local ones; TCP alone is denied where seccomp is missing. */
  network: "allowed" | "denied" | "TCP denied, other protocols allowed (no seccomp filter)";
  /** Whether it can signal only itself and its own children (Landlock ABI 6). */
  signals_scoped: boolean;
  read_only: string[];
  capabilities_dropped: boolean;
}

/**
 * What `plan` (null: no sandbox) has the kernel enforce.
 * @example
 * ```ts
 * describeSandbox(null).writes; // "anywhere"
 * ```
 */
export function describeSandbox(plan: SandboxPlan | null): SandboxDescription {
  const ruleset = plan?.landlock ?? null;
  const handles = (right: bigint) => ruleset !== null && (ruleset.handledFs & right) !== 0n;
  const granting = (want: bigint) =>
    (ruleset?.rules ?? []).filter((rule) => (rule.access & want) === want).map((rule) => rule.path);
  const tcp = ruleset !== null && ruleset.handledNet !== 0n;
  const layers = [
    ...(ruleset ? ["landlock"] : []),
    ...(plan?.seccomp ? ["seccomp"] : []),
    ...(plan?.mounts ? ["mount namespace"] : []),
    ...(plan?.dropCapabilities ? ["capabilities"] : []),
  ];
  const readsOnlyListed = handles(ACCESS_FS.READ_FILE) && handles(ACCESS_FS.EXECUTE);
  return {
    enforced: plan !== null && layers.length > 0,
    layers,
    writes: handles(ACCESS_FS.MAKE_REG)
      ? granting(ACCESS_FS.MAKE_REG).filter((p) => !p.startsWith("/dev/"))
      : "anywhere",
    reads: !handles(ACCESS_FS.READ_FILE)
      ? "anywhere"
      : readsOnlyListed
      ? granting(READ).filter((p) => !p.startsWith("/dev/"))
      : "all but credential stores",
    executes: handles(ACCESS_FS.EXECUTE) ? granting(ACCESS_FS.EXECUTE) : "anything",
    network: plan?.seccomp ? "denied" : tcp ? "TCP denied, other protocols allowed (no seccomp filter)" : "allowed",
    signals_scoped: ruleset !== null && (ruleset.scoped & SCOPE.SIGNAL) !== 0n,
    read_only: plan?.mounts?.readOnly.map((bind) => bind.path) ?? [],
    capabilities_dropped: plan?.dropCapabilities ?? false,
  };
}
