/**
 * `deno task launcher`: assembles src/os/launcher_<arch>.s with GNU as and
 * writes the machine code to src/os/launcher_code.ts, the only place the
 * server reads it from. tests/launcher_code_test.ts fails when the committed
 * bytes differ from what the sources assemble to.
 *
 * @example
 * // deno task launcher
 */
import { assembleLauncher, LAUNCHER_ARCHES, launcherCodeModule } from "./launcher_assemble.ts";

const code: Record<string, Uint8Array> = {};
for (const arch of LAUNCHER_ARCHES) code[arch] = await assembleLauncher(arch);
const target = new URL("../src/os/launcher_code.ts", import.meta.url).pathname;
await Deno.writeTextFile(target, launcherCodeModule(code));
// Formatted as `deno task check` wants it.
await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", target] }).output();
console.error(`wrote ${Object.entries(code).map(([arch, bytes]) => `${arch} (${bytes.length} bytes)`).join(", ")}`);
