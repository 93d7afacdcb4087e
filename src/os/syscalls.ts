/** Launcher script system call numbers per architecture; those from 424 on are the same everywhere (generic table). */

/** Calls numbered from 424 on (io_uring, Landlock): one number on every architecture. */
const UNIFIED = {
  io_uring_setup: 425,
  landlock_create_ruleset: 444,
  landlock_add_rule: 445,
  landlock_restrict_self: 446,
} as const;

/** arch/x86/entry/syscalls/syscall_64.tbl; `auditArch` is the AUDIT_ARCH_* of seccomp_data.arch. */
const X86_64 = {
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
  ...UNIFIED,
};

/** The calls a launcher script may make, and the architecture's AUDIT_ARCH_* (`auditArch`). */
export type SyscallTable = Record<keyof typeof X86_64, number>;

/** Numbers per architecture (aarch64's: include/uapi/asm-generic/unistd.h). */
export const SYSCALLS: Readonly<Record<"x86_64" | "aarch64", SyscallTable>> = {
  x86_64: X86_64,
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
    ...UNIFIED,
  },
};

/** The table of the running architecture. */
export function syscallTable(arch: string = Deno.build.arch): SyscallTable {
  const table = SYSCALLS[arch as keyof typeof SYSCALLS];
  if (!table) throw new Error(`no system call table for ${arch}`);
  return table;
}
