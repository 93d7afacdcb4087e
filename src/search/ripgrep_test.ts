import { assert, assertEquals } from "../../tests/assert.ts";
import { decodeBytes, decodeRgData, startRipgrep } from "./ripgrep.ts";
import { rgPath } from "@vscode/ripgrep";

async function collect(rg: ReturnType<typeof startRipgrep>): Promise<string> {
  let out = "";
  for await (const chunk of rg.chunks()) out += new TextDecoder().decode(chunk);
  return out;
}

Deno.test("startRipgrep: clean environment, so RIPGREP_CONFIG_PATH in ours is not read", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/a.txt`, "yes\nno\n");
  await Deno.writeTextFile(`${dir}/rgrc`, "--invert-match\n");
  Deno.env.set("RIPGREP_CONFIG_PATH", `${dir}/rgrc`);
  try {
    const rg = startRipgrep(rgPath, { args: ["--no-filename", "yes", "--", "a.txt"], cwd: dir });
    assertEquals(await collect(rg), "yes\n");
    assertEquals((await rg.finish()).code, 0);
  } finally {
    Deno.env.delete("RIPGREP_CONFIG_PATH");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startRipgrep: kill ends rg at once; finish reports it", async () => {
  const dir = await Deno.makeTempDir();
  for (let i = 0; i < 2000; i++) await Deno.writeTextFile(`${dir}/f${i}.txt`, "x\n");
  const rg = startRipgrep(rgPath, { args: ["--files", "--", "."], cwd: dir });
  for await (const _ of rg.chunks()) {
    rg.kill();
    break;
  }
  const outcome = await rg.finish();
  assertEquals([outcome.killed, outcome.code], [true, null]);
  const failing = startRipgrep(rgPath, { args: ["-e", "a(", "--", "."], cwd: dir });
  await collect(failing);
  const bad = await failing.finish();
  assert(bad.code === 2 && bad.stderr.includes("regex parse error"), bad.stderr);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("decodeRgData and decodeBytes: text as is, bytes lossy with a flag", () => {
  assertEquals(decodeRgData({ text: "a" }), { text: "a", lossy: false });
  assertEquals(decodeRgData({ bytes: btoa("ab\xff") }), { text: "ab\uFFFD", lossy: true });
  assertEquals(decodeBytes(new TextEncoder().encode("é")), { text: "é", lossy: false });
});
