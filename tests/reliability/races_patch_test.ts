/**
 * Races: a workspace directory flips between itself and a symlink to the
 * outside tree while apply_patch works in it. Nothing outside may be read, listed
 * or written, and no answer may carry outside names or content.
 */
import { assertEquals } from "../assert.ts";
import { race } from "./outside.ts";

Deno.test("races: apply_patch adding race/new-N.txt never writes outside", async () => {
  const patch = (i: number) => `*** Begin Patch\n*** Add File: race/new-${i}.txt\n+x\n*** End Patch\n`;
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: patch(i) })), []);
});
