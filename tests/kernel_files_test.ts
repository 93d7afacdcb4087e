/**
 * Deno's read grant covers /proc and /sys only under --allow-all, which the
 * server never has: a Deno file API on such a path throws NotCapable in the
 * server while working in tests run with -A (so apply_patch silently never
 * used syncfs). Kernel files are read through os/fs_at.ts's readKernelFile.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";
import { serverFlags } from "../src/permissions.ts";

const LINUX_ONLY = Deno.build.os !== "linux";

const SRC = new URL("../src/", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;

Deno.test("no module in src/ reads /proc or /sys through a Deno file API", async () => {
  const offenders: string[] = [];
  for await (const file of walk(SRC)) {
    // Test modules run under -A; doc comments are examples.
    if (file.endsWith("_test.ts")) continue;
    const lines = (await Deno.readTextFile(file)).split("\n");
    lines.forEach((line, i) => {
      if (/^\s*(\*|\/\/)/.test(line)) return;
      const call = /Deno\.\w+\(\s*["'`]\/(proc|sys)\/[^"'`]*/.exec(line);
      if (call) offenders.push(`${path.relative(SRC, file)}:${i + 1}: ${call[0]}`);
    });
  }
  assertEquals(offenders, []);
});

Deno.test(
  "under the server's own permission flags the kernel files it needs are read",
  { ignore: LINUX_ONLY },
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "workcell-kernel-files-" });
    try {
      const script = `${dir}/probe.ts`;
      await Deno.writeTextFile(
        script,
        [
          `import { machineDirtyBytes } from ${JSON.stringify(`${SRC}patch/durability.ts`)};`,
          `import { readKernelFile } from ${JSON.stringify(`${SRC}os/fs_at.ts`)};`,
          `console.log(JSON.stringify({`,
          `  dirty: machineDirtyBytes(),`,
          `  lastCap: readKernelFile("/proc/sys/kernel/cap_last_cap").trim(),`,
          `  argv0: readKernelFile("/proc/self/cmdline").split("\\0")[0],`,
          `}));`,
        ].join("\n"),
      );
      const run = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--config", CONFIG, ...serverFlags({ http: null }), script],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert(run.success, new TextDecoder().decode(run.stderr));
      const seen = JSON.parse(new TextDecoder().decode(run.stdout));
      assert(typeof seen.dirty === "number", `Dirty + Writeback: ${seen.dirty}`);
      assert(/^\d+$/.test(seen.lastCap), `cap_last_cap: ${seen.lastCap}`);
      assertEquals(path.basename(seen.argv0), path.basename(Deno.execPath()));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory) yield* walk(full);
    else if (entry.name.endsWith(".ts")) yield full;
  }
}
