/** Launcher script system call numbers per architecture; Landlock's three are the same everywhere (generic table). */

/** The calls a launcher script may make. */
export interface SyscallTable {
  /** AUDIT_ARCH_* of seccomp_data.arch. */
  auditArch: number;
  write: number;
  close: number;
  openat: number;
  fcntl: number;
  prctl: number;
  mount: number;
  unshare: number;
  capset: number;
  execve: number;
  seccomp: number;
  socket: number;
  socketpair: number;
  io_uring_setup: number;
  landlock_create_ruleset: number;
  landlock_add_rule: number;
  landlock_restrict_self: number;
}

const LANDLOCK = { landlock_create_ruleset: 444, landlock_add_rule: 445, landlock_restrict_self: 446 } as const;

/** Numbers per architecture (arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h). */
export const SYSCALLS: Readonly<Record<"x86_64" | "aarch64", SyscallTable>> = {
  x86_64: {
    auditArch: 0xc000003e,
    write: 1,
    close: 3,
    openat: 257,
    fcntl: 72,
    prctl: 157,
    mount: 165,
    unshare: 272,
    capset: 126,
    execve: 59,
    seccomp: 317,
    socket: 41,
    socketpair: 53,
    io_uring_setup: 425,
    ...LANDLOCK,
  },
  aarch64: {
    auditArch: 0xc00000b7,
    write: 64,
    close: 57,
    openat: 56,
    fcntl: 25,
    prctl: 167,
    mount: 40,
    unshare: 97,
    capset: 91,
    execve: 221,
    seccomp: 277,
    socket: 198,
    socketpair: 199,
    io_uring_setup: 425,
    ...LANDLOCK,
  },
};

/** The table of the running architecture. */
export function syscallTable(arch: string = Deno.build.arch): SyscallTable {
  const table = SYSCALLS[arch as keyof typeof SYSCALLS];
  if (!table) throw new Error(`no system call table for ${arch}`);
  return table;
}
