import { assertEquals } from "../../testing/assert.ts";
import { mountFlagsOf } from "./mount_flags.ts";

/** Linux-only: mount flags come from /proc/self/mountinfo (the Linux sandbox remounts git dirs read-only). */
const LINUX_ONLY = Deno.build.os !== "linux";

Deno.test("mountFlagsOf: every mount has exactly one atime mode a remount must repeat; a missing path is 0", {
  ignore: LINUX_ONLY,
}, () => {
  const MS_NOATIME = 0x400, MS_RELATIME = 1 << 21, MS_STRICTATIME = 1 << 24;
  for (const mount of ["/", "/proc", "/dev"]) {
    const atime = [MS_NOATIME, MS_RELATIME, MS_STRICTATIME].filter((flag) => (mountFlagsOf(mount) & flag) !== 0);
    assertEquals(atime.length, 1, mount);
  }
  assertEquals(mountFlagsOf("/no/such/path"), 0);
});
