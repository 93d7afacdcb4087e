/** Darwin's constants, struct layouts and symbols that differ from Linux, with their SDK headers; tested on Linux. */

type Native = Deno.NativeType;
type SymbolTable = Record<string, Deno.ForeignFunction>;

/** 0 for Linux-only constants (O_PATH, AT_EMPTY_PATH, memfd seals...) so modules load; their calls fail on darwin. */
export const LINUX_ONLY = 0;

/** Every darwin constant workcell uses, by the Linux table's names. */
export const DARWIN = {
  /** <sys/fcntl.h>, like AT, F, FD_CLOEXEC and F_FULLFSYNC. */
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
  AT: { FDCWD: -2, SYMLINK_NOFOLLOW: 0x20, REMOVEDIR: 0x80, EMPTY_PATH: LINUX_ONLY },
  F: { DUPFD_CLOEXEC: 67, GETFL: 3, SETFL: 4, SETFD: 2, SETPIPE_SZ: LINUX_ONLY, ADD_SEALS: LINUX_ONLY },
  FD_CLOEXEC: 1,
  /** The fsync that also flushes the drive's cache (darwin's fsync does not). */
  F_FULLFSYNC: 51,
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
  /** <sys/spawn.h>; CLOEXEC_DEFAULT (closes fds the file actions do not name) stands in for glibc's addclosefrom_np. */
  SPAWN: { SETSIGDEF: 0x04, SETSIGMASK: 0x08, SETSID: 0x0400, CLOEXEC_DEFAULT: 0x4000 },
  WAIT: { NOHANG: 0x1, EXITED: 0x4, NOWAIT: 0x20, P_PID: 1 },
  /** <sys/ttycom.h>: _IOW('t', 103, struct winsize) */
  TIOCSWINSZ: 0x80087467,
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
  /** <sys/event.h>: struct kevent {uintptr_t ident; int16_t filter; uint16_t flags; uint32_t fflags; data; udata}. */
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
 * An array of struct kevent holding `events`, laid out as DARWIN_LAYOUT.kevent says.
 * @example
 * ```ts
 * packKevents([{ ident: 4242, filter: DARWIN.KQUEUE.EVFILT_PROC, flags: DARWIN.KQUEUE.EV_ADD, fflags: 0 }]);
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
 * @example
 * ```ts
 * unpackKevent(packKevents([{ ident: 7, filter: -5, flags: 0x4000, fflags: 0 }]), 0).ident; // 7
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
 * A fixed-argument FFI declaration reaching a variadic C function: on arm64 padding to fill x0-x7, then 8-byte slots.
 * @example
 * ```ts
 * variadicParameters(["i32", "i32"], ["i64"], "aarch64").length; // 9: fd, cmd, 6 padding slots, the argument
 * ```
 */
export function variadicParameters(fixed: readonly Native[], rest: readonly Native[], arch: string): Native[] {
  if (arch !== "aarch64") return [...fixed, ...rest];
  const padding = Array<Native>(ARM64_ARGUMENT_REGISTERS - fixed.length).fill("i64");
  return [...fixed, ...padding, ...rest];
}

/**
 * The arguments for a function declared with variadicParameters: zeros in the padding slots.
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

/** libc.ts's symbols darwin lacks (or declares otherwise, unused there): unbound, they fail when used on darwin. */
export const LINUX_ONLY_SYMBOLS = [
  "posix_spawn_file_actions_addclosefrom_np",
  "pipe2",
  "syscall",
  "syscall3",
  "eventfd",
  "ptsname_r",
  "statx",
  "getdents64",
  "syncfs",
  "memfd_create",
  "execve",
  "statvfs",
  "prctl",
  "mallopt",
] as const;

/** The calls on `struct stat`/`struct dirent`: their 64-bit-inode versions (fs_stat.ts and fs_dir.ts read them). */
const INODE64_SYMBOLS = ["fstat", "fstatat", "fdopendir", "readdir", "rewinddir"] as const;

/** `linux`'s entries that darwin declares otherwise (its narrower mode_t and nfds_t need none: the same register). */
export function darwinOwnSymbols(arch: string, linux: Readonly<SymbolTable>): SymbolTable {
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
    ioctl: variadic("ioctl", ["i32", "u64"], ["buffer"], "i32"),
    ...Object.fromEntries(INODE64_SYMBOLS.map((name) => [name, { ...linux[name], name: inode64(name, arch) }])),
    pread: { ...linux.pread, name: "pread" },
    __errno_location: { ...linux.__errno_location, name: "__error" },
    ...DARWIN_ONLY_SYMBOLS,
  };
}

/**
 * libSystem's name for a function using 64-bit-inode structs: x86_64 keeps the 32-bit ones under the plain names.
 * @example
 * ```ts
 * inode64("readdir", "x86_64"); // "readdir$INODE64"; "readdir" on aarch64
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
 * `pipe2` from `pipe` and `fcntl` (O_CLOEXEC only; not atomic, but darwin children get CLOEXEC_DEFAULT): 0 or -1.
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
 * `ptsname_r` from `ptsname` (its static buffer is safe: only the JS thread calls it): 0, `errnoNow()` or ERANGE.
 * @example
 * ```ts
 * const name = new TextEncoder().encode("/dev/ttys004\0");
 * ptsnameShim(() => Deno.UnsafePointer.of(name), () => 0)(3, new Uint8Array(64), 64n); // 0
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
