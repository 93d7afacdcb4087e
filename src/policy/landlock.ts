/**
 * Landlock through FFI (libc `syscall` and `prctl`): builds the ruleset a
 * sandboxed policy needs for the kernel's ABI and restricts the CALLING
 * THREAD with it. Landlock is per thread (TSYNC needs ABI 8), so only a
 * dedicated Web Worker calls {@linkcode restrictCurrentThread}; every child
 * it spawns afterwards inherits the domain.
 *
 * Writes (create, write, truncate, remove, rename, link, make devices) are
 * handled and allowed only beneath the writable roots and the device
 * entries; reading and executing stay allowed everywhere. With `denyTcp`
 * (ABI ≥ 4) every TCP connect and bind is denied; with ABI ≥ 6 signals and
 * abstract unix sockets are scoped to the domain. {@linkcode readOnlyRuleset}
 * is the other policy: reads confined to one tree (the bundled ripgrep's).
 *
 * @example
 * const ruleset = landlockRuleset(7, { writable: ["/repo", "/tmp/workcell-x"], denyTcp: true });
 * restrictCurrentThread(ruleset); // inside the sandbox worker only
 */

/** Filesystem access rights (landlock.h). */
export const ACCESS_FS = {
  EXECUTE: 1n << 0n,
  WRITE_FILE: 1n << 1n,
  READ_FILE: 1n << 2n,
  READ_DIR: 1n << 3n,
  REMOVE_DIR: 1n << 4n,
  REMOVE_FILE: 1n << 5n,
  MAKE_CHAR: 1n << 6n,
  MAKE_DIR: 1n << 7n,
  MAKE_REG: 1n << 8n,
  MAKE_SOCK: 1n << 9n,
  MAKE_FIFO: 1n << 10n,
  MAKE_BLOCK: 1n << 11n,
  MAKE_SYM: 1n << 12n,
  /** ABI 2. */
  REFER: 1n << 13n,
  /** ABI 3. */
  TRUNCATE: 1n << 14n,
} as const;

/** Network access rights (ABI 4). */
export const ACCESS_NET = { BIND_TCP: 1n << 0n, CONNECT_TCP: 1n << 1n } as const;
/** Scopes (ABI 6). */
export const SCOPE = { ABSTRACT_UNIX_SOCKET: 1n << 0n, SIGNAL: 1n << 1n } as const;

/** First ABI with each feature. */
export const LANDLOCK_FEATURE_ABI = { refer: 2, truncate: 3, network: 4, scope: 6 } as const;

/** Devices children may write to, with the rights that apply to them. */
export const SANDBOX_DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"] as const;

/** What a sandboxed policy allows. */
export interface SandboxSpec {
  /** Directories children may write beneath (absolute, existing). */
  writable: string[];
  /** Deny TCP connect and bind (where the ABI supports it). */
  denyTcp: boolean;
}

/** A ruleset ready for the kernel: plain data, so it can be posted to a worker. */
export interface LandlockRuleset {
  abi: number;
  handledFs: bigint;
  handledNet: bigint;
  scoped: bigint;
  rules: { path: string; access: bigint }[];
}

/** Write rights that apply to a regular file or device (not a directory). */
function fileWriteRights(abi: number): bigint {
  return ACCESS_FS.WRITE_FILE | (abi >= LANDLOCK_FEATURE_ABI.truncate ? ACCESS_FS.TRUNCATE : 0n);
}

/** Every write right this ABI knows. */
function allWriteRights(abi: number): bigint {
  let rights = ACCESS_FS.WRITE_FILE | ACCESS_FS.REMOVE_DIR | ACCESS_FS.REMOVE_FILE | ACCESS_FS.MAKE_CHAR |
    ACCESS_FS.MAKE_DIR | ACCESS_FS.MAKE_REG | ACCESS_FS.MAKE_SOCK | ACCESS_FS.MAKE_FIFO | ACCESS_FS.MAKE_BLOCK |
    ACCESS_FS.MAKE_SYM;
  if (abi >= LANDLOCK_FEATURE_ABI.refer) rights |= ACCESS_FS.REFER;
  if (abi >= LANDLOCK_FEATURE_ABI.truncate) rights |= ACCESS_FS.TRUNCATE;
  return rights;
}

/**
 * The ruleset for `spec` on a kernel with `abi`: features the ABI lacks are
 * left out (no TCP rule below 4, no scoping below 6), never faked.
 *
 * @example
 * landlockRuleset(3, { writable: ["/repo"], denyTcp: true }).handledNet; // 0n: ABI 3 cannot restrict TCP
 */
export function landlockRuleset(abi: number, spec: SandboxSpec): LandlockRuleset {
  const handledFs = allWriteRights(abi);
  const rules = spec.writable.map((path) => ({ path, access: handledFs }));
  for (const device of SANDBOX_DEVICES) {
    rules.push({ path: device, access: fileWriteRights(abi) });
  }
  const network = spec.denyTcp && abi >= LANDLOCK_FEATURE_ABI.network;
  const scope = abi >= LANDLOCK_FEATURE_ABI.scope;
  return {
    abi,
    handledFs,
    handledNet: network ? ACCESS_NET.BIND_TCP | ACCESS_NET.CONNECT_TCP : 0n,
    scoped: scope ? SCOPE.SIGNAL | (spec.denyTcp ? SCOPE.ABSTRACT_UNIX_SOCKET : 0n) : 0n,
    rules,
  };
}

/** What a read-confined sandbox (the one rg runs in) may read and execute. */
export interface ReadOnlySpec {
  /** The directory (absolute, existing) whose whole tree may be read: the workspace root. */
  readable: string;
  /** Files that may be executed (exec also reads them); a path the kernel cannot take a rule on is left out. */
  executables: string[];
  /** Single regular files outside `readable` that may be read (the ignore files of its ancestors). */
  readableFiles: string[];
}

/**
 * A ruleset that confines READS: the children may read files and list
 * directories only beneath `spec.readable`, read the extra `readableFiles`,
 * execute only `executables`, write nowhere, open no TCP connection (ABI ≥ 4)
 * and signal nothing outside their domain (ABI ≥ 6).
 *
 * Every write right is handled, but TRUNCATE (ABI ≥ 3) is granted beneath
 * `readable`: Landlock works the truncate right out on every open, and a
 * right no rule grants makes each open walk up to the filesystem root, which
 * made rg's full searches about 10% slower; with the grant the walk stops at
 * the root's rule, as the read check's does. The child can still write,
 * create or remove nothing anywhere, and truncate nothing outside.
 *
 * @example
 * readOnlyRuleset(7, { readable: "/repo", executables: ["/opt/rg"], readableFiles: ["/home/u/.gitignore"] });
 */
export function readOnlyRuleset(abi: number, spec: ReadOnlySpec): LandlockRuleset {
  const read = ACCESS_FS.READ_FILE | ACCESS_FS.READ_DIR;
  const truncate = abi >= LANDLOCK_FEATURE_ABI.truncate ? ACCESS_FS.TRUNCATE : 0n;
  const rules = [
    { path: spec.readable, access: read | truncate },
    ...spec.executables.map((path) => ({ path, access: ACCESS_FS.EXECUTE | ACCESS_FS.READ_FILE })),
    ...spec.readableFiles.map((path) => ({ path, access: ACCESS_FS.READ_FILE })),
  ];
  const network = abi >= LANDLOCK_FEATURE_ABI.network;
  return {
    abi,
    handledFs: read | ACCESS_FS.EXECUTE | allWriteRights(abi),
    handledNet: network ? ACCESS_NET.BIND_TCP | ACCESS_NET.CONNECT_TCP : 0n,
    scoped: abi >= LANDLOCK_FEATURE_ABI.scope ? SCOPE.SIGNAL | SCOPE.ABSTRACT_UNIX_SOCKET : 0n,
    rules,
  };
}

/** x86_64 syscall numbers (identical on aarch64 for Landlock: 444–446). */
const SYS = { create_ruleset: 444n, add_rule: 445n, restrict_self: 446n } as const;
const PR_SET_NO_NEW_PRIVS = 38;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
/** sizeof(struct landlock_ruleset_attr) per ABI: fs only (1–3), + net (4–5), + scoped (6+). */
function rulesetAttrSize(abi: number): number {
  return abi >= LANDLOCK_FEATURE_ABI.scope ? 24 : abi >= LANDLOCK_FEATURE_ABI.network ? 16 : 8;
}

const SYMBOLS = {
  create_ruleset: { name: "syscall", parameters: ["i64", "buffer", "u64", "u32"], result: "i64" },
  add_rule: { name: "syscall", parameters: ["i64", "i32", "i32", "buffer", "u32"], result: "i64" },
  restrict_self: { name: "syscall", parameters: ["i64", "i32", "u32"], result: "i64" },
  prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
  open: { parameters: ["buffer", "i32"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

/** Thrown when the kernel refuses a step; the sandbox worker reports it and exec is refused. */
export class LandlockError extends Error {
  constructor(step: string, readonly errno: number) {
    super(`landlock ${step} failed (errno ${errno})`);
    this.name = "LandlockError";
  }
}

/**
 * Restricts the calling thread (and every process it spawns later) with
 * `ruleset`. Irreversible. Paths that do not exist are skipped (a machine
 * without /dev/tty); any other failure throws and leaves the thread as it was
 * only if restrict_self was not reached.
 */
export function restrictCurrentThread(ruleset: LandlockRuleset): void {
  const lib = Deno.dlopen("libc.so.6", SYMBOLS);
  const c = lib.symbols;
  const errno = () => new Int32Array(Deno.UnsafePointerView.getArrayBuffer(c.__errno_location()!, 4))[0];
  const attr = new BigUint64Array([ruleset.handledFs, ruleset.handledNet, ruleset.scoped]);
  const attrBytes = new Uint8Array(attr.buffer, 0, rulesetAttrSize(ruleset.abi));
  const rulesetFd = Number(c.create_ruleset(SYS.create_ruleset, attrBytes, BigInt(attrBytes.length), 0));
  if (rulesetFd < 0) throw new LandlockError("create_ruleset", errno());
  try {
    for (const rule of ruleset.rules) {
      const fd = c.open(new TextEncoder().encode(`${rule.path}\0`), O_PATH | O_CLOEXEC);
      if (fd < 0) continue;
      // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } __attribute__((packed))
      const beneath = new Uint8Array(12);
      const view = new DataView(beneath.buffer);
      view.setBigUint64(0, rule.access, true);
      view.setInt32(8, fd, true);
      const result = c.add_rule(SYS.add_rule, rulesetFd, LANDLOCK_RULE_PATH_BENEATH, beneath, 0);
      const failure = errno();
      c.close(fd);
      if (result < 0n) throw new LandlockError(`add_rule ${rule.path}`, failure);
    }
    if (c.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw new LandlockError("prctl(NO_NEW_PRIVS)", errno());
    const restricted = c.restrict_self(SYS.restrict_self, rulesetFd, 0);
    if (restricted < 0n) throw new LandlockError("restrict_self", errno());
  } finally {
    c.close(rulesetFd);
    lib.close();
  }
}
