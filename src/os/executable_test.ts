import * as path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { assert, assertEquals } from "../../testing/assert.ts";
import { cachedExecutable, defaultCacheDir, materializeExecutable, memfdExecutable, sha256Hex } from "./executable.ts";
import { fdPath } from "./fs_at.ts";

/** Linux-only: memfd_create is Linux's (macOS takes the cache directory, tested here too). */
const LINUX_ONLY = Deno.build.os !== "linux";

async function version(exe: string): Promise<string> {
  const out = await new Deno.Command(exe, { args: ["--version"], stdout: "piped", stderr: "piped" }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).split("\n")[0];
}

Deno.test({
  name: "memfdExecutable: rg runs from a sealed close-on-exec memfd, and the fd does not leak into children",
  ignore: LINUX_ONLY,
  fn: async () => {
    const bytes = await Deno.readFile(rgPath);
    const exe = fdPath(memfdExecutable("rg", bytes));
    assert(/^\/proc\/self\/fd\/\d+$/.test(exe), exe);
    assert((await version(exe)).startsWith("ripgrep "));
    const fd = exe.split("/").pop()!;
    const ls = await new Deno.Command("ls", { args: ["/proc/self/fd"], stdout: "piped" }).output();
    const childFds = new TextDecoder().decode(ls.stdout).split(/\s+/);
    assert(!childFds.includes(fd), `fd ${fd} leaked into a child: ${childFds.join(" ")}`);
    // Sealed: the server's own copy cannot be changed under it.
    let refused = false;
    try {
      await Deno.writeFile(`/proc/self/fd/${fd}`, new Uint8Array([0]));
    } catch {
      refused = true;
    }
    assert(refused, "a sealed memfd must refuse writes");
  },
});

Deno.test({
  name: "cachedExecutable: a private 0700 dir, hash-named copy, reused only while its hash matches",
  fn: async () => {
    const bytes = await Deno.readFile(rgPath);
    const base = await Deno.makeTempDir({ prefix: "workcell-rgcache-" });
    try {
      const dir = path.join(base, "nested", "workcell");
      const exe = await cachedExecutable(dir, "rg", bytes);
      assertEquals(path.basename(exe), `rg-${await sha256Hex(bytes)}`);
      assertEquals((await Deno.stat(dir)).mode! & 0o777, 0o700);
      assertEquals((await Deno.stat(exe)).mode! & 0o777, 0o700);
      assert((await version(exe)).startsWith("ripgrep "));
      // Tampered copy: replaced on the next start.
      await Deno.writeFile(exe, new TextEncoder().encode("#!/bin/sh\necho pwned\n"));
      const again = await cachedExecutable(dir, "rg", bytes);
      assertEquals(again, exe);
      assert((await version(again)).startsWith("ripgrep "));
      // A directory others can write to is refused.
      await Deno.chmod(dir, 0o777);
      let refused = false;
      try {
        await cachedExecutable(dir, "rg", bytes);
      } catch (error) {
        refused = /not a private/.test((error as Error).message);
      }
      assert(refused, "a world-writable cache dir must be refused");
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test("materializeExecutable prefers memfd; defaultCacheDir follows XDG_CACHE_HOME then HOME", {
  ignore: LINUX_ONLY,
}, async () => {
  const made = await materializeExecutable("rg", await Deno.readFile(rgPath), null);
  assertEquals([made.via, made.path], ["memfd", fdPath(made.fd!)]);
  const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });
  assertEquals(defaultCacheDir(env({ XDG_CACHE_HOME: "/x/cache", HOME: "/h" })), "/x/cache/workcell");
  assertEquals(
    defaultCacheDir(env({ XDG_CACHE_HOME: "relative", HOME: "/h" })),
    "/h/.cache/workcell",
  );
  assertEquals(defaultCacheDir(env({})), null);
});
