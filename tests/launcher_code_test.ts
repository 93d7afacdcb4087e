/**
 * The launcher's machine code in src/os/launcher_code.ts is what its
 * assembly sources assemble to (`deno task launcher` regenerates it). Each
 * architecture is checked where its assembler is installed: the host's
 * always, the other one where binutils for it is (.ci/run installs it).
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { assembleLauncher, LAUNCHER_ARCHES } from "../tasks/launcher_assemble.ts";
import { LAUNCHER_CODE_HEX } from "../src/os/launcher_code.ts";

/** Linux-only: it assembles the Linux launcher with GNU as for x86_64 and aarch64 ELF. */
const LINUX_ONLY = Deno.build.os !== "linux";

Deno.test("src/os/launcher_code.ts is fresh: the committed bytes are what the .s sources assemble to", {
  ignore: LINUX_ONLY,
}, async () => {
  assertEquals(Object.keys(LAUNCHER_CODE_HEX).sort(), [...LAUNCHER_ARCHES].sort());
  const checked: string[] = [];
  for (const arch of LAUNCHER_ARCHES) {
    let bytes: Uint8Array;
    try {
      bytes = await assembleLauncher(arch);
    } catch (error) {
      if (arch === Deno.build.arch || !(error instanceof Deno.errors.NotFound)) throw error;
      console.error(`launcher_code_test: no assembler for ${arch} here; its bytes are not re-checked`);
      continue;
    }
    const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    assertEquals(LAUNCHER_CODE_HEX[arch], hex, `run \`deno task launcher\` after changing src/os/launcher_${arch}.s`);
    checked.push(arch);
  }
  assert(checked.includes(Deno.build.arch), "the host architecture's launcher was not checked");
});
