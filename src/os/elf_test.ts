import { assert, assertEquals } from "../../testing/assert.ts";
import { elfInterpreter } from "./elf.ts";
import { launcherImage } from "./launcher.ts";

/** Linux-only: it reads the loaders of the system's ELF programs; macOS's are Mach-O. */
const LINUX_ONLY = Deno.build.os !== "linux";

Deno.test("elfInterpreter: a dynamic program names its loader; a static one, a script or nothing at all none", {
  ignore: LINUX_ONLY,
}, async () => {
  const loader = elfInterpreter("/bin/sh");
  assert(loader !== null && loader.startsWith("/lib") && loader.includes("ld-"), String(loader));
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeFile(`${dir}/launcher`, launcherImage());
    await Deno.writeTextFile(`${dir}/script`, "#!/bin/sh\n");
    assertEquals([elfInterpreter(`${dir}/launcher`), elfInterpreter(`${dir}/script`)], [null, null]);
    assertEquals(elfInterpreter(`${dir}/missing`), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
