/**
 * libc through FFI, with Linux's constants (darwin_abi.ts's on darwin). `poll`, `pread`, `fsync` and `syncfs` run on
 * Deno's blocking pool, so their errno is another thread's; after any other call `errno()` reads that call's errno.
 */
import {
  DARWIN,
  DARWIN_LAYOUT,
  DARWIN_ONLY_SYMBOLS,
  darwinOwnSymbols,
  LINUX_ONLY_SYMBOLS,
  padVariadicArguments,
  pipe2Shim,
  ptsnameShim,
  VARIADIC_FIXED_ARGUMENTS,
} from "./darwin_abi.ts";

/** The C library's system, chosen once: darwin (macOS), else Linux (main.ts refuses every other system first). */
export const HOST_OS: "linux" | "darwin" = Deno.build.os === "darwin" ? "darwin" : "linux";
const ON_DARWIN = HOST_OS === "darwin";

/**
 * O_DIRECTORY and O_NOFOLLOW per architecture: arm64 has its own values (arch/arm64/include/uapi/asm/fcntl.h),
 * and x86_64's would mean O_DIRECT and O_LARGEFILE there — an open that silently follows a symlink.
 */
export const ARCH_OPEN_FLAGS: Readonly<Record<"x86_64" | "aarch64", { DIRECTORY: number; NOFOLLOW: number }>> = {
  x86_64: { DIRECTORY: 0o200000, NOFOLLOW: 0o400000 },
  aarch64: { DIRECTORY: 0o40000, NOFOLLOW: 0o100000 },
};

/** open(2) / pipe2(2) / eventfd(2) flags of Linux (the rest are the same on x86_64 and aarch64). */
const LINUX_O = {
  RDONLY: 0,
  WRONLY: 0o1,
  RDWR: 0o2,
  CREAT: 0o100,
  EXCL: 0o200,
  NOCTTY: 0o400,
  APPEND: 0o2000,
  NONBLOCK: 0o4000,
  ...ARCH_OPEN_FLAGS[Deno.build.arch === "aarch64" ? "aarch64" : "x86_64"],
  CLOEXEC: 0o2000000,
  PATH: 0o10000000,
} as const;
/** open(2) flags. */
export const O: Readonly<Record<keyof typeof LINUX_O, number>> = ON_DARWIN ? DARWIN.O : LINUX_O;
const LINUX_AT = { FDCWD: -100, SYMLINK_NOFOLLOW: 0x100, REMOVEDIR: 0x200, EMPTY_PATH: 0x1000 } as const;
/** *at(2) flags, and AT_FDCWD (the fd that names the working directory). */
export const AT: Readonly<Record<keyof typeof LINUX_AT, number>> = ON_DARWIN ? DARWIN.AT : LINUX_AT;
const LINUX_F = { DUPFD_CLOEXEC: 1030, GETFL: 3, SETFL: 4, SETPIPE_SZ: 1031, ADD_SEALS: 1033 } as const;
/** fcntl(2) commands. */
export const F: Readonly<Record<keyof typeof LINUX_F, number>> = ON_DARWIN ? DARWIN.F : LINUX_F;
/** poll(2) event bits (the same on both systems). */
export const POLL = { IN: 0x1, OUT: 0x4, ERR: 0x8, HUP: 0x10, NVAL: 0x20 } as const;
const LINUX_ERRNO = {
  EPERM: 1,
  ENOENT: 2,
  ESRCH: 3,
  EINTR: 4,
  EIO: 5,
  EAGAIN: 11,
  EACCES: 13,
  EBUSY: 16,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  EROFS: 30,
  EPIPE: 32,
  E2BIG: 7,
  EINVAL: 22,
  ELOOP: 40,
} as const;
/** errno values used by the runner. */
export const ERRNO: Readonly<Record<keyof typeof LINUX_ERRNO, number>> = ON_DARWIN ? DARWIN.ERRNO : LINUX_ERRNO;
const LINUX_SPAWN = { SETSIGDEF: 0x04, SETSIGMASK: 0x08, SETSID: 0x80 } as const;
/** posix_spawnattr flags. */
export const SPAWN: Readonly<Record<keyof typeof LINUX_SPAWN, number>> = ON_DARWIN ? DARWIN.SPAWN : LINUX_SPAWN;
/** Syscall numbers shared by every Linux architecture. */
export const SYS = { pidfd_open: 434 } as const;
/** getdents64's number differs per architecture (glibc below 2.30 has no wrapper). */
export const SYS_GETDENTS64 = Deno.build.arch === "aarch64" ? 61 : 217;
const LINUX_WAIT = { NOHANG: 1, EXITED: 4, NOWAIT: 0x01000000, P_PID: 1 } as const;
/** waitpid(2) / waitid(2) options and idtype. */
export const WAIT: Readonly<Record<keyof typeof LINUX_WAIT, number>> = ON_DARWIN ? DARWIN.WAIT : LINUX_WAIT;
/** ioctl request that sets a terminal's window size. */
export const TIOCSWINSZ: number = ON_DARWIN ? DARWIN.TIOCSWINSZ : 0x5414;
/** Bytes of siginfo_t and the offset of its si_pid (waitid(2)). */
export const SIGINFO: { bytes: number; pidOffset: number } = ON_DARWIN
  ? DARWIN_LAYOUT.siginfo
  : { bytes: 128, pidOffset: 16 };

const LINUX_SIGNALS = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  TRAP: 5,
  ABRT: 6,
  BUS: 7,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
  CHLD: 17,
  CONT: 18,
  STOP: 19,
  TSTP: 20,
  XCPU: 24,
  XFSZ: 25,
  SYS: 31,
} as const;
/** Signal numbers by name (darwin's table has every Linux name, with its own numbers, and a few more). */
export const SIGNALS: Readonly<Record<keyof typeof LINUX_SIGNALS, number>> = ON_DARWIN ? DARWIN.SIGNALS : LINUX_SIGNALS;

/** The name of a signal number, e.g. 15 → "SIGTERM". */
export function signalName(signal: number): string {
  const entry = Object.entries(SIGNALS).find(([, number]) => number === signal);
  return entry ? `SIG${entry[0]}` : `SIG${signal}`;
}

const SYMBOLS = {
  posix_spawnp: { parameters: ["buffer", "buffer", "buffer", "buffer", "buffer", "buffer"], result: "i32" },
  posix_spawn_file_actions_init: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawn_file_actions_adddup2: { parameters: ["buffer", "i32", "i32"], result: "i32" },
  posix_spawn_file_actions_addopen: { parameters: ["buffer", "i32", "buffer", "i32", "u32"], result: "i32" },
  posix_spawn_file_actions_addchdir_np: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawn_file_actions_addfchdir_np: { parameters: ["buffer", "i32"], result: "i32" },
  posix_spawn_file_actions_addclosefrom_np: { parameters: ["buffer", "i32"], result: "i32" },
  posix_spawnattr_init: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_destroy: { parameters: ["buffer"], result: "i32" },
  posix_spawnattr_setflags: { parameters: ["buffer", "i16"], result: "i32" },
  posix_spawnattr_setsigmask: { parameters: ["buffer", "buffer"], result: "i32" },
  posix_spawnattr_setsigdefault: { parameters: ["buffer", "buffer"], result: "i32" },
  sigemptyset: { parameters: ["buffer"], result: "i32" },
  sigfillset: { parameters: ["buffer"], result: "i32" },
  pipe2: { parameters: ["buffer", "i32"], result: "i32" },
  fcntl: { parameters: ["i32", "i32", "i32"], result: "i32" },
  fcntl_wait: { name: "fcntl", parameters: ["i32", "i32", "i32"], result: "i32", nonblocking: true },
  open: { parameters: ["buffer", "i32", "u32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  poll_now: { name: "poll", parameters: ["buffer", "u64", "i32"], result: "i32" },
  waitpid: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  waitid: { parameters: ["i32", "i32", "buffer", "i32"], result: "i32" },
  kill: { parameters: ["i32", "i32"], result: "i32" },
  syscall: { parameters: ["i64", "i64", "i64"], result: "i64" },
  syscall3: { name: "syscall", parameters: ["i64", "pointer", "u64", "u32"], result: "i64" },
  eventfd: { parameters: ["u32", "i32"], result: "i32" },
  posix_openpt: { parameters: ["i32"], result: "i32" },
  grantpt: { parameters: ["i32"], result: "i32" },
  unlockpt: { parameters: ["i32"], result: "i32" },
  ptsname_r: { parameters: ["i32", "buffer", "usize"], result: "i32" },
  ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
  openat: { parameters: ["i32", "buffer", "i32", "u32"], result: "i32" },
  statx: { parameters: ["i32", "buffer", "i32", "u32", "buffer"], result: "i32" },
  getdents64: { name: "syscall", parameters: ["i64", "i32", "buffer", "u64"], result: "i64" },
  fstat: { parameters: ["i32", "buffer"], result: "i32" },
  fstatat: { parameters: ["i32", "buffer", "buffer", "i32"], result: "i32" },
  fdopendir: { parameters: ["i32"], result: "pointer" },
  readdir: { parameters: ["pointer"], result: "pointer" },
  closedir: { parameters: ["pointer"], result: "i32" },
  rewinddir: { parameters: ["pointer"], result: "void" },
  pread: { name: "pread64", parameters: ["i32", "buffer", "usize", "i64"], result: "isize", nonblocking: true },
  fsync: { parameters: ["i32"], result: "i32", nonblocking: true },
  syncfs: { parameters: ["i32"], result: "i32", nonblocking: true },
  flock_now: { name: "flock", parameters: ["i32", "i32"], result: "i32" },
  fchmod: { parameters: ["i32", "u32"], result: "i32" },
  mkdirat: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  renameat: { parameters: ["i32", "buffer", "i32", "buffer"], result: "i32" },
  linkat: { parameters: ["i32", "buffer", "i32", "buffer", "i32"], result: "i32" },
  unlinkat: { parameters: ["i32", "buffer", "i32"], result: "i32" },
  mkdtemp: { parameters: ["buffer"], result: "pointer" },
  access: { parameters: ["buffer", "i32"], result: "i32" },
  memfd_create: { parameters: ["buffer", "u32"], result: "i32" },
  execve: { parameters: ["buffer", "buffer", "buffer"], result: "i32" },
  strerror: { parameters: ["i32"], result: "pointer" },
  statvfs: { parameters: ["buffer", "buffer"], result: "i32" },
  prctl: { parameters: ["i32", "u64", "u64", "u64", "u64"], result: "i32" },
  lseek: { parameters: ["i32", "i64", "i32"], result: "i64" },
  mkdir: { parameters: ["buffer", "u32"], result: "i32" },
  rename: { parameters: ["buffer", "buffer"], result: "i32" },
  getuid: { parameters: [], result: "u32" },
  getgid: { parameters: [], result: "u32" },
  fsync_now: { name: "fsync", parameters: ["i32"], result: "i32" },
  read_wait: { name: "read", parameters: ["i32", "buffer", "usize"], result: "isize", nonblocking: true },
  __errno_location: { parameters: [], result: "pointer" },
  mallopt: { parameters: ["i32", "i32"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

/**
 * The symbol table of `os` on `arch`: Linux's; on darwin Linux's without its Linux-only entries, with darwin's own.
 * @example
 * ```ts
 * symbolTable("darwin", "aarch64").__errno_location.name; // "__error"
 * ```
 */
export function symbolTable(os: typeof HOST_OS, arch: string): Record<string, Deno.ForeignFunction> {
  if (os === "linux") return SYMBOLS;
  const shared: Record<string, Deno.ForeignFunction> = { ...SYMBOLS };
  for (const name of LINUX_ONLY_SYMBOLS) delete shared[name];
  return { ...shared, ...darwinOwnSymbols(arch, SYMBOLS) };
}

/** The typed libc handle (darwin's extra symbols fail on Linux when used, and Linux-only ones on darwin). */
export type Libc = Deno.DynamicLibrary<typeof SYMBOLS & typeof DARWIN_ONLY_SYMBOLS>["symbols"];

let handle: Libc | null = null;

/** The library, its symbol table and the symbols built from others (darwin's pipe2 and ptsname_r), once. */
const LIBRARY = ON_DARWIN ? "/usr/lib/libSystem.B.dylib" : "libc.so.6";
const TABLE = symbolTable(HOST_OS, Deno.build.arch);
const SHIMS: Record<string, (c: Libc) => unknown> = ON_DARWIN
  ? {
    pipe2: (c) => pipe2Shim(c.pipe, c.fcntl, c.close),
    ptsname_r: (c) => ptsnameShim(c.ptsname, errno),
  }
  : {};

/** One symbol of the table, bound (a dlopen of the already loaded library only takes a reference). */
function bind(symbols: Libc, name: string): unknown {
  const shim = SHIMS[name];
  if (shim) return shim(symbols);
  const definition = TABLE[name];
  if (!definition) throw new Error(`${name} is not in the C library workcell binds on ${HOST_OS}`);
  const bound = Deno.dlopen(LIBRARY, { [name]: definition }).symbols[name] as (...args: unknown[]) => unknown;
  const fixed = VARIADIC_FIXED_ARGUMENTS[name as keyof typeof VARIADIC_FIXED_ARGUMENTS];
  if (!ON_DARWIN || fixed === undefined || Deno.build.arch !== "aarch64") return bound;
  return (...args: unknown[]) => bound(...padVariadicArguments(args, fixed, Deno.build.arch));
}

/** This realm's libc symbols, each bound on first use (binding all cost 12-15 ms a realm); Linux and darwin only. */
export function libc(): Libc {
  if (handle) return handle;
  if (!ON_DARWIN && Deno.build.os !== "linux") {
    throw new Error(`workcell needs Linux or macOS (this is ${Deno.build.os})`);
  }
  const symbols: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(SYMBOLS), ...Object.keys(DARWIN_ONLY_SYMBOLS)])) {
    Object.defineProperty(symbols, name, {
      configurable: true,
      enumerable: true,
      get() {
        const bound = bind(symbols as Libc, name);
        Object.defineProperty(symbols, name, { value: bound, enumerable: true });
        return bound;
      },
    });
  }
  handle = symbols as Libc;
  return handle;
}

/** errno of the last synchronous libc call on this thread. */
export function errno(): number {
  const pointer = libc().__errno_location();
  return pointer === null ? 0 : new Deno.UnsafePointerView(pointer).getInt32();
}

/** The C library's description of an errno value, e.g. "No space left on device". */
export function strerror(code: number): string {
  const pointer = libc().strerror(code);
  return pointer === null ? `errno ${code}` : new Deno.UnsafePointerView(pointer).getCString();
}

/** A NUL-terminated copy of `text` for a `const char*` parameter. */
export function cString(text: string): Uint8Array<ArrayBuffer> {
  if (text.includes("\0")) throw new TypeError(`string contains a NUL byte: ${JSON.stringify(text.slice(0, 40))}`);
  return textEncoder.encode(`${text}\0`);
}

const textEncoder = new TextEncoder();
