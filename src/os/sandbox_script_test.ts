import { assertEquals } from "../../testing/assert.ts";
import { ACCESS_FS } from "./landlock.ts";
import { sandboxScript } from "./sandbox_script.ts";
import { SYSCALLS } from "./syscalls.ts";

Deno.test("sandboxScript: namespaces and mounts before Landlock (which forbids mounting), capabilities last, then exec", () => {
  const script = sandboxScript(
    {
      mounts: { user: { uid: 1000, gid: 1000 }, readOnly: [{ path: "/ws/.git", flags: 0 }] },
      landlock: {
        abi: 7,
        handledFs: ACCESS_FS.WRITE_FILE,
        handledNet: 0n,
        scoped: 0n,
        rules: [{ path: "/ws", access: 2n }],
      },
      seccomp: new Uint8Array(8),
      dropCapabilities: true,
      lastCapability: 1,
    },
    { path: "/bin/true", argv: ["true"], env: {} },
    SYSCALLS.x86_64,
  );
  assertEquals(script.labels, [
    "unshare a user and mount namespace",
    "open /proc/self/setgroups",
    "write /proc/self/setgroups",
    "close /proc/self/setgroups",
    "open /proc/self/uid_map",
    "write /proc/self/uid_map",
    "close /proc/self/uid_map",
    "open /proc/self/gid_map",
    "write /proc/self/gid_map",
    "close /proc/self/gid_map",
    "make mounts private",
    "bind /ws/.git",
    "remount /ws/.git read-only",
    "set no_new_privs",
    "landlock_create_ruleset",
    "open /ws",
    "landlock rule for /ws",
    "landlock_restrict_self",
    "close the ruleset",
    "install the seccomp filter",
    "clear ambient capabilities",
    "drop capability 0 from the bounding set",
    "drop capability 1 from the bounding set",
    "drop every capability",
    "execve /bin/true",
  ]);
  assertEquals(script.execStep, 24);
});

Deno.test("sandboxScript: a probe (no target) ends without execve; root needs no user namespace", () => {
  const script = sandboxScript({
    mounts: { user: null, readOnly: [] },
    landlock: null,
    seccomp: null,
    dropCapabilities: false,
    lastCapability: 0,
  }, null);
  assertEquals(script.labels, ["unshare a mount namespace", "make mounts private", "set no_new_privs"]);
  assertEquals(script.execStep, null);
});
