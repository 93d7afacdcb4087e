/**
 * The launcher's machine code in src/os/launcher_code.ts is what its
 * assembly sources assemble to (`deno task launcher` regenerates it).
 */
import { assertEquals } from "./assert.ts";
import { assembleLauncher, LAUNCHER_ARCHES } from "../tasks/launcher_assemble.ts";
import { LAUNCHER_CODE_HEX } from "../src/os/launcher_code.ts";

Deno.test("src/os/launcher_code.ts is fresh: the committed bytes are what the .s sources assemble to", async () => {
  for (const arch of LAUNCHER_ARCHES) {
    const hex = [...await assembleLauncher(arch)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    assertEquals(LAUNCHER_CODE_HEX[arch], hex, `run \`deno task launcher\` after changing src/os/launcher_${arch}.s`);
  }
  assertEquals(Object.keys(LAUNCHER_CODE_HEX).sort(), [...LAUNCHER_ARCHES].sort());
});
