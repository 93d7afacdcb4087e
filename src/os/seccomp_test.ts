import { assertEquals } from "../../testing/assert.ts";
import { AF, SOCK_FILTER_BYTES, socketFamilyFilter } from "./seccomp.ts";
import { SYSCALLS } from "./syscalls.ts";

/** Runs a classic BPF program of the kinds socketFamilyFilter emits over one seccomp_data. */
function evaluate(program: Uint8Array, data: { nr: number; arch: number; arg0: number }): number {
  const view = new DataView(program.buffer);
  let acc = 0;
  for (let pc = 0; pc < program.length / SOCK_FILTER_BYTES;) {
    const at = pc * SOCK_FILTER_BYTES;
    const code = view.getUint16(at, true);
    const [jt, jf, k] = [view.getUint8(at + 2), view.getUint8(at + 3), view.getUint32(at + 4, true)];
    if (code === 0x20) acc = k === 0 ? data.nr : k === 4 ? data.arch : data.arg0;
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    pc++;
  }
  throw new Error("fell off the program");
}

Deno.test("socketFamilyFilter: only the allowed families get a socket; io_uring, x32 and other arches are refused", () => {
  for (const arch of ["x86_64", "aarch64"] as const) {
    const table = SYSCALLS[arch];
    const program = socketFamilyFilter(table, [AF.UNIX, AF.NETLINK], 13);
    const run = (nr: number, arg0 = 0, auditArch = table.auditArch) => evaluate(program, { nr, arch: auditArch, arg0 });
    const ALLOW = 0x7fff0000, REFUSE = 0x00050000 | 13;
    assertEquals([run(table.socket, AF.UNIX), run(table.socket, AF.NETLINK)], [ALLOW, ALLOW]);
    for (const family of [AF.INET, AF.INET6, AF.PACKET, 40 /* vsock */]) {
      assertEquals([run(table.socket, family), run(table.socketpair, family)], [REFUSE, REFUSE], `${arch} ${family}`);
    }
    assertEquals(run(table.io_uring_setup), REFUSE);
    assertEquals(run(table.write), ALLOW);
    assertEquals(run(table.write, 0, 0x40000003 /* i386 */), 0x80000000);
    if (arch === "x86_64") assertEquals(run(table.socket | 0x40000000, AF.INET), REFUSE);
  }
});
