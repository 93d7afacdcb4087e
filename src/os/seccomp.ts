/**
 * A seccomp filter refusing sockets outside a few families, so "no network" holds for every protocol (Landlock's covers
 * TCP only), and io_uring, which would bypass it. Another architecture's calls (32-bit on x86_64) end the process.
 */
import type { SyscallTable } from "./syscalls.ts";

/** Address families (socket.h). */
export const AF = { UNIX: 1, INET: 2, INET6: 10, NETLINK: 16, PACKET: 17 } as const;

/** Bytes of one `struct sock_filter`. */
export const SOCK_FILTER_BYTES = 8;

const BPF = { LD_W_ABS: 0x20, JEQ_K: 0x15, JGE_K: 0x35, RET_K: 0x06 } as const;
const RET = { KILL_PROCESS: 0x80000000, ERRNO: 0x00050000, ALLOW: 0x7fff0000 } as const;
/** Offsets in `struct seccomp_data`: nr, arch, args[0] (its low 32 bits, little-endian). */
const DATA = { nr: 0, arch: 4, arg0: 16 } as const;
/** x86_64's x32 system calls carry this bit; they are not the calls the numbers name. */
const X32_SYSCALL_BIT = 0x40000000;

interface Instruction {
  code: number;
  k: number;
  /** Labels of the jump targets (for conditional jumps). */
  then?: string;
  otherwise?: string;
  label?: string;
}

function assemble(program: Instruction[]): Uint8Array<ArrayBuffer> {
  const labels = new Map<string, number>();
  program.forEach((instruction, index) => instruction.label && labels.set(instruction.label, index));
  const bytes = new Uint8Array(program.length * SOCK_FILTER_BYTES);
  const view = new DataView(bytes.buffer);
  const offset = (from: number, label: string | undefined) => {
    if (label === undefined) return 0;
    const target = labels.get(label);
    if (target === undefined || target <= from) throw new Error(`bad BPF label ${label}`);
    return target - from - 1;
  };
  program.forEach((instruction, index) => {
    const at = index * SOCK_FILTER_BYTES;
    view.setUint16(at, instruction.code, true);
    view.setUint8(at + 2, offset(index, instruction.then));
    view.setUint8(at + 3, offset(index, instruction.otherwise));
    view.setUint32(at + 4, instruction.k >>> 0, true);
  });
  return bytes;
}

/** `table`'s filter: `socket`/`socketpair` fail with `errno` outside `allowedFamilies`, `io_uring_setup` always. */
export function socketFamilyFilter(
  table: SyscallTable,
  allowedFamilies: readonly number[],
  errno: number,
): Uint8Array<ArrayBuffer> {
  const x32 = table.auditArch === 0xc000003e;
  return assemble([
    { code: BPF.LD_W_ABS, k: DATA.arch },
    { code: BPF.JEQ_K, k: table.auditArch, then: "native", otherwise: "kill" },
    { label: "native", code: BPF.LD_W_ABS, k: DATA.nr },
    ...(x32 ? [{ code: BPF.JGE_K, k: X32_SYSCALL_BIT, then: "refuse", otherwise: "calls" }] : []),
    { label: "calls", code: BPF.JEQ_K, k: table.socket, then: "family", otherwise: "pair" },
    { label: "pair", code: BPF.JEQ_K, k: table.socketpair, then: "family", otherwise: "uring" },
    { label: "uring", code: BPF.JEQ_K, k: table.io_uring_setup, then: "refuse", otherwise: "allow" },
    { label: "family", code: BPF.LD_W_ABS, k: DATA.arg0 },
    ...allowedFamilies.map((family, index) => ({
      label: index === 0 ? undefined : `family${index}`,
      code: BPF.JEQ_K,
      k: family,
      then: "allow",
      otherwise: index === allowedFamilies.length - 1 ? "refuse" : `family${index + 1}`,
    })),
    { label: "refuse", code: BPF.RET_K, k: RET.ERRNO | errno },
    { label: "allow", code: BPF.RET_K, k: RET.ALLOW },
    { label: "kill", code: BPF.RET_K, k: RET.KILL_PROCESS },
  ]);
}
