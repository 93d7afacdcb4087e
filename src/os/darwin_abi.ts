/**
 * The darwin (macOS) side of the C library workcell binds: every constant,
 * struct layout and symbol that differs from Linux, in one table, each with
 * the macOS SDK header it comes from. libc.ts picks this table instead of
 * the Linux one once, when it loads, on darwin; nothing here calls the OS,
 * so every entry and helper is unit-tested on Linux.
 *
 * Three things need more than a value:
 * - variadic functions (`open`, `fcntl`, `ioctl`): Apple's arm64 ABI passes
 *   every variadic argument on the stack, each in an 8-byte slot, while
 *   Deno's FFI only makes fixed-argument calls. Declaring padding arguments
 *   that fill the 8 argument registers puts the first variadic argument in
 *   the first stack slot, where the callee's `va_arg` reads it
 *   ({@linkcode variadicParameters}, {@linkcode padVariadicArguments});
 *   x86_64 passes variadic arguments in registers, as fixed ones;
 * - `pipe2`, which darwin lacks: `pipe` then close-on-exec on both ends
 *   ({@linkcode pipe2Shim}; not atomic, but every child workcell spawns on
 *   darwin gets POSIX_SPAWN_CLOEXEC_DEFAULT, so none inherits a pipe early);
 * - `ptsname_r`: `ptsname` copied out ({@linkcode ptsnameShim}; the JS
 *   thread is the only caller, so its static buffer is not shared).
 *
 * @example
 * ```ts
 * DARWIN.ERRNO.EAGAIN; // 35 (11 on Linux)
 * variadicParameters(["i32", "i32"], ["i64"], "aarch64").length; // 9: fd, cmd, 6 padding slots, the argument
 * ```
 */

/** A parameter type of Deno's FFI. */
type Native = Deno.NativeType;

/**
 * Constants of the Linux tables that darwin has no counterpart for (O_PATH, AT_EMPTY_PATH, pipe sizing, memfd
 * sealing). They are 0 here, so that a module computing a Linux-only flag set at load still loads; the calls that
 * would pass them (statx, getdents64, memfd_create, the fd backend's reopen through /proc) are Linux's alone:
 * absent from {@linkcode darwinOwnSymbols} and {@linkcode SAME_AS_LINUX}, so using them on darwin fails when the
 * symbol is bound, never silently. (O_PATH is 0: a directory the shared fs_at.ts opens "by O_PATH" is opened
 * O_RDONLY on darwin, which needs read permission.)
 */
export const LINUX_ONLY = 0;

/** Every darwin constant workcell uses, by the Linux table's names. */
export const DARWIN = {
  /** <sys/fcntl.h> */
  O: {
    RDONLY: 0x0,
    WRONLY: 0x1,
    RDWR: 0x2,
    CREAT: 0x200,
    EXCL: 0x800,
    NOCTTY: 0x20000,
    APPEND: 0x8,
    NONBLOCK: 0x4,
    DIRECTORY: 0x100000,
    NOFOLLOW: 0x100,
    CLOEXEC: 0x1000000,
    PATH: LINUX_ONLY,
  },
  /** <sys/fcntl.h> */
  AT: { SYMLINK_NOFOLLOW: 0x20, REMOVEDIR: 0x80, EMPTY_PATH: LINUX_ONLY },
  /** <sys/fcntl.h>; F_SETFD and FD_CLOEXEC are used by {@linkcode pipe2Shim}. */
  F: { DUPFD_CLOEXEC: 67, GETFL: 3, SETFL: 4, SETFD: 2, SETPIPE_SZ: LINUX_ONLY, ADD_SEALS: LINUX_ONLY },
  /** <sys/fcntl.h> */
  FD_CLOEXEC: 1,
  /** <sys/fcntl.h>: F_FULLFSYNC, the fsync that also flushes the drive's cache (darwin's fsync does not). */
  F_FULLFSYNC: 51,
  /** <sys/poll.h> (the same values as Linux) */
  POLL: { IN: 0x1, OUT: 0x4, ERR: 0x8, HUP: 0x10, NVAL: 0x20 },
  /** <sys/errno.h>: EAGAIN and ELOOP differ from Linux. */
  ERRNO: {
    EPERM: 1,
    ENOENT: 2,
    ESRCH: 3,
    EINTR: 4,
    EIO: 5,
    EAGAIN: 35,
    EACCES: 13,
    EBUSY: 16,
    EEXIST: 17,
    ENOTDIR: 20,
    EISDIR: 21,
    EROFS: 30,
    EPIPE: 32,
    E2BIG: 7,
    EINVAL: 22,
    ELOOP: 62,
  },
  /**
   * <sys/spawn.h>. CLOEXEC_DEFAULT closes every fd the file actions do not name: darwin's stand-in for
   * glibc's posix_spawn_file_actions_addclosefrom_np.
   */
  SPAWN: { SETSIGDEF: 0x04, SETSIGMASK: 0x08, SETSID: 0x0400, CLOEXEC_DEFAULT: 0x4000 },
  /** <sys/wait.h> */
  WAIT: { NOHANG: 0x1, EXITED: 0x4, NOWAIT: 0x20, P_PID: 1 },
  /** <sys/ttycom.h>: _IOW('t', 103, struct winsize) */
  TIOCSWINSZ: 0x80087467,
  /** <sys/signal.h> */
  SIGNALS: {
    HUP: 1,
    INT: 2,
    QUIT: 3,
    ILL: 4,
    TRAP: 5,
    ABRT: 6,
    EMT: 7,
    FPE: 8,
    KILL: 9,
    BUS: 10,
    SEGV: 11,
    SYS: 12,
    PIPE: 13,
    ALRM: 14,
    TERM: 15,
    URG: 16,
    STOP: 17,
    TSTP: 18,
    CONT: 19,
    CHLD: 20,
    TTIN: 21,
    TTOU: 22,
    IO: 23,
    XCPU: 24,
    XFSZ: 25,
    VTALRM: 26,
    PROF: 27,
    WINCH: 28,
    INFO: 29,
    USR1: 30,
    USR2: 31,
  },
  /** <sys/event.h>: the kqueue filters, flags and notes of the child-exit watcher (darwin.ts). */
  KQUEUE: {
    EVFILT_PROC: -5,
    EVFILT_USER: -10,
    EV_ADD: 0x1,
    EV_CLEAR: 0x20,
    EV_RECEIPT: 0x40,
    EV_ERROR: 0x4000,
    NOTE_EXIT: 0x80000000,
    NOTE_TRIGGER: 0x01000000,
  },
} as const;

/** Struct layouts that differ from Linux (LP64, little-endian: both darwin architectures). */
export const DARWIN_LAYOUT = {
  /** <sys/signal.h>: siginfo_t is 104 bytes; si_pid follows si_signo, si_errno and si_code. */
  siginfo: { bytes: 104, pidOffset: 12 },
  /** <sys/_types/_sigset_t.h>: sigset_t is a 32-bit mask. */
  sigsetBytes: 4,
  /**
   * <sys/event.h>: struct kevent { uintptr_t ident; int16_t filter; uint16_t flags; uint32_t fflags;
   * intptr_t data; void *udata; }, 32 bytes.
   */
  kevent: { bytes: 32, ident: 0, filter: 8, flags: 10, fflags: 12, data: 16, udata: 24 },
} as const;

/** One struct kevent's fields (data and udata are 0 in every change workcell makes). */
export interface KeventFields {
  ident: number;
  filter: number;
  flags: number;
  fflags: number;
}

/**
 * An array of struct kevent holding `events`, laid out as {@linkcode DARWIN_LAYOUT}.kevent says.
 *
 * @example
 * ```ts
 * const { KQUEUE } = DARWIN;
 * packKevents([{ ident: 4242, filter: KQUEUE.EVFILT_PROC, flags: KQUEUE.EV_ADD, fflags: KQUEUE.NOTE_EXIT }]).length; // 32
 * ```
 */
export function packKevents(events: readonly KeventFields[]): Uint8Array<ArrayBuffer> {
  const layout = DARWIN_LAYOUT.kevent;
  const bytes = new Uint8Array(layout.bytes * events.length);
  const view = new DataView(bytes.buffer);
  events.forEach((event, index) => {
    const at = index * layout.bytes;
    view.setBigUint64(at + layout.ident, BigInt(event.ident), true);
    view.setInt16(at + layout.filter, event.filter, true);
    view.setUint16(at + layout.flags, event.flags, true);
    view.setUint32(at + layout.fflags, event.fflags, true);
  });
  return bytes;
}

/**
 * The fields and `data` (an errno when `flags` has EV_ERROR) of the kevent at `index`.
 *
 * @example
 * ```ts
 * const receipt = packKevents([{ ident: 7, filter: -5, flags: 0x4000, fflags: 0 }]);
 * unpackKevent(receipt, 0).ident; // 7
 * ```
 */
export function unpackKevent(bytes: Uint8Array<ArrayBuffer>, index: number): KeventFields & { data: number } {
  const layout = DARWIN_LAYOUT.kevent;
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const at = index * layout.bytes;
  return {
    ident: Number(view.getBigUint64(at + layout.ident, true)),
    filter: view.getInt16(at + layout.filter, true),
    flags: view.getUint16(at + layout.flags, true),
    fflags: view.getUint32(at + layout.fflags, true),
    data: Number(view.getBigInt64(at + layout.data, true)),
  };
}

/** Integer argument registers of arm64 (x0-x7): Apple's ABI puts variadic arguments after them, on the stack. */
const ARM64_ARGUMENT_REGISTERS = 8;

/**
 * The parameter list that makes a fixed-argument FFI call reach a variadic C function: on arm64, padding
 * integers up to the 8th register, then the variadic arguments as 8-byte slots; on x86_64, as declared.
 *
 * @example
 * ```ts
 * variadicParameters(["buffer", "i32"], ["i64"], "x86_64"); // ["buffer", "i32", "i64"]
 * ```
 */
export function variadicParameters(fixed: readonly Native[], rest: readonly Native[], arch: string): Native[] {
  if (arch !== "aarch64") return [...fixed, ...rest];
  const padding = Array<Native>(ARM64_ARGUMENT_REGISTERS - fixed.length).fill("i64");
  return [...fixed, ...padding, ...rest];
}

/**
 * The arguments for a function declared with {@linkcode variadicParameters}: zeros in the padding slots.
 *
 * @example
 * ```ts
 * padVariadicArguments([3, 4, 1], 2, "aarch64"); // [3, 4, 0, 0, 0, 0, 0, 0, 1]
 * ```
 */
export function padVariadicArguments(args: readonly unknown[], fixed: number, arch: string): unknown[] {
  if (arch !== "aarch64") return [...args];
  return [...args.slice(0, fixed), ...Array(ARM64_ARGUMENT_REGISTERS - fixed).fill(0), ...args.slice(fixed)];
}

/** The variadic functions workcell calls, with their count of fixed arguments. */
export const VARIADIC_FIXED_ARGUMENTS = { open: 2, openat: 3, fcntl: 2, fcntl_wait: 2, ioctl: 2 } as const;

/**
 * The symbols darwin's libSystem has with the very declaration of libc.ts's Linux table (the names are the JS
 * names of that table); libc.ts takes their entries from there. darwin's mode_t is 16 bits where Linux's is 32
 * (fchmod, mkdirat, mkdir, addopen): the same value in the same full register.
 */
export const SAME_AS_LINUX = [
  "posix_spawnp",
  "posix_spawn_file_actions_init",
  "posix_spawn_file_actions_destroy",
  "posix_spawn_file_actions_adddup2",
  "posix_spawn_file_actions_addopen",
  "posix_spawn_file_actions_addchdir_np",
  "posix_spawn_file_actions_addfchdir_np",
  "posix_spawnattr_init",
  "posix_spawnattr_destroy",
  "posix_spawnattr_setflags",
  "posix_spawnattr_setsigmask",
  "posix_spawnattr_setsigdefault",
  "sigemptyset",
  "sigfillset",
  "read",
  "write",
  "close",
  "poll",
  "poll_now",
  "waitpid",
  "waitid",
  "kill",
  "posix_openpt",
  "grantpt",
  "unlockpt",
  "fsync",
  "fsync_now",
  "fchmod",
  "mkdtemp",
  "access",
  "strerror",
  "lseek",
  "mkdir",
  "rename",
  "getuid",
  "getgid",
  "read_wait",
  "mkdirat",
  "renameat",
  "linkat",
  "unlinkat",
  "closedir",
  "flock_now",
] as const;

/**
 * The symbols whose darwin declaration differs from Linux's, in libSystem's names, by the JS names of libc.ts's
 * table; with {@linkcode SAME_AS_LINUX} they are all workcell calls on darwin, and what is missing from both is
 * Linux-only and fails when first used. `poll`'s nfds_t is 32 bits on darwin: Linux's 64-bit declaration passes
 * the same value in the same register.
 */
export function darwinOwnSymbols(arch: string): Record<string, Deno.ForeignFunction> {
  const variadic = (name: string, fixed: Native[], rest: Native[], result: Deno.NativeResultType) => ({
    name,
    parameters: variadicParameters(fixed, rest, arch),
    result,
  });
  return {
    fcntl: variadic("fcntl", ["i32", "i32"], ["i64"], "i32"),
    fcntl_wait: { ...variadic("fcntl", ["i32", "i32"], ["i64"], "i32"), nonblocking: true },
    open: variadic("open", ["buffer", "i32"], ["i64"], "i32"),
    openat: variadic("openat", ["i32", "buffer", "i32"], ["i64"], "i32"),
    // x86_64 keeps the 32-bit-inode structs under the plain names; the 64-bit ones (arm64's only) are suffixed.
    fstat: { name: inode64("fstat", arch), parameters: ["i32", "buffer"], result: "i32" },
    fstatat: { name: inode64("fstatat", arch), parameters: ["i32", "buffer", "buffer", "i32"], result: "i32" },
    fdopendir: { name: inode64("fdopendir", arch), parameters: ["i32"], result: "pointer" },
    readdir: { name: inode64("readdir", arch), parameters: ["pointer"], result: "pointer" },
    rewinddir: { name: inode64("rewinddir", arch), parameters: ["pointer"], result: "void" },
    ioctl: variadic("ioctl", ["i32", "u64"], ["buffer"], "i32"),
    pread: { parameters: ["i32", "buffer", "usize", "i64"], result: "isize", nonblocking: true },
    __errno_location: { name: "__error", parameters: [], result: "pointer" },
    ...DARWIN_ONLY_SYMBOLS,
  };
}

/**
 * The libSystem name of a function that takes or returns `struct stat` or `struct dirent` with 64-bit inodes
 * (the layouts src/os/fs_stat.ts and fs_dir.ts read): `name$INODE64` on x86_64, `name` on arm64.
 *
 * @example
 * ```ts
 * inode64("readdir", "x86_64"); // "readdir$INODE64"
 * inode64("readdir", "aarch64"); // "readdir"
 * ```
 */
export function inode64(name: string, arch: string): string {
  return arch === "x86_64" ? `${name}$INODE64` : name;
}

/** Symbols only darwin has (bound on Linux, they fail when first used). */
export const DARWIN_ONLY_SYMBOLS = {
  pipe: { parameters: ["buffer"], result: "i32" },
  ptsname: { parameters: ["i32"], result: "pointer" },
  kqueue: { parameters: [], result: "i32" },
  kevent: { parameters: ["i32", "buffer", "i32", "buffer", "i32", "buffer"], result: "i32" },
} as const satisfies Deno.ForeignLibraryInterface;

/**
 * `pipe2(fds, flags)` from `pipe` and `fcntl`: both ends get FD_CLOEXEC when `flags` has O_CLOEXEC (the only
 * flag workcell passes). Returns 0, or -1 with errno set by the call that failed (both ends then closed).
 *
 * @example
 * ```ts
 * const fake = { pipe: (fds: Int32Array) => (fds.set([5, 6]), 0), fcntl: () => 0, close: () => 0 };
 * pipe2Shim(fake.pipe, fake.fcntl, fake.close)(new Int32Array(2), DARWIN.O.CLOEXEC); // 0
 * ```
 */
export function pipe2Shim(
  pipe: (fds: Int32Array<ArrayBuffer>) => number,
  fcntl: (fd: number, command: number, argument: number) => number,
  close: (fd: number) => number,
): (fds: Int32Array<ArrayBuffer>, flags: number) => number {
  return (fds, flags) => {
    if (pipe(fds) !== 0) return -1;
    if ((flags & DARWIN.O.CLOEXEC) === 0) return 0;
    for (const fd of fds) {
      if (fcntl(fd, DARWIN.F.SETFD, DARWIN.FD_CLOEXEC) === 0) continue;
      for (const end of fds) close(end);
      return -1;
    }
    return 0;
  };
}

/**
 * `ptsname_r(fd, buffer, size)` from `ptsname`: copies the name (NUL-terminated) into `buffer`; returns 0, or
 * an errno (`errnoNow()` when ptsname failed, ERANGE 34 when the buffer is too small).
 *
 * @example
 * ```ts
 * const name = new TextEncoder().encode("/dev/ttys004\0");
 * const shim = ptsnameShim(() => Deno.UnsafePointer.of(name), () => 0);
 * shim(3, new Uint8Array(64), 64n); // 0, and the buffer holds "/dev/ttys004"
 * ```
 */
export function ptsnameShim(
  ptsname: (fd: number) => Deno.PointerValue,
  errnoNow: () => number,
): (fd: number, buffer: Uint8Array<ArrayBuffer>, size: bigint) => number {
  const ERANGE = 34;
  return (fd, buffer, size) => {
    const pointer = ptsname(fd);
    if (pointer === null) return errnoNow();
    const name = new TextEncoder().encode(new Deno.UnsafePointerView(pointer).getCString());
    if (name.length + 1 > Number(size) || name.length + 1 > buffer.length) return ERANGE;
    buffer.set(name);
    buffer[name.length] = 0;
    return 0;
  };
}
