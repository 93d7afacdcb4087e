import { assertEquals } from "../../testing/assert.ts";
import { SYSCALLS, syscallTable } from "./syscalls.ts";
import { ARCH_OPEN_FLAGS } from "./libc.ts";

Deno.test("syscall numbers: Landlock's are the generic table's on both architectures; the rest pinned per arch", () => {
  for (const arch of ["x86_64", "aarch64"] as const) {
    const table = SYSCALLS[arch];
    assertEquals(
      [table.landlock_create_ruleset, table.landlock_add_rule, table.landlock_restrict_self],
      [444, 445, 446],
    );
  }
  // arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h (arm64).
  assertEquals(
    [SYSCALLS.x86_64.openat, SYSCALLS.x86_64.mount, SYSCALLS.x86_64.unshare, SYSCALLS.x86_64.seccomp],
    [257, 165, 272, 317],
  );
  assertEquals(
    [SYSCALLS.aarch64.openat, SYSCALLS.aarch64.mount, SYSCALLS.aarch64.unshare, SYSCALLS.aarch64.seccomp],
    [56, 40, 97, 277],
  );
  assertEquals([SYSCALLS.x86_64.auditArch, SYSCALLS.aarch64.auditArch], [0xc000003e, 0xc00000b7]);
  assertEquals(syscallTable("x86_64"), SYSCALLS.x86_64);
  // O_DIRECTORY / O_NOFOLLOW differ on arm64.
  assertEquals(ARCH_OPEN_FLAGS.aarch64, { DIRECTORY: 0o40000, NOFOLLOW: 0o100000 });
});
