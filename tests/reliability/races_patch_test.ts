/**
 * Races: a workspace directory flips between itself and a symlink to the
 * outside tree while apply_patch works in it. Nothing outside may be read, listed
 * or written, and no answer may carry outside names or content.
 *
 * race/secret.txt holds "inside\n"; the outside secret.txt holds the secret. The update, delete and move
 * patches apply cleanly whenever race/ stays a real directory for a whole call (a failed call only shifts
 * their alternation for one call); race/ stays real for about a millisecond in each flip, so that some calls get
 * through and others are cut anywhere in the commit, not only at the matcher's check.
 */
import { assertEquals } from "../../testing/assert.ts";
import { race } from "./outside.ts";

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n");

Deno.test("races: apply_patch adding race/new-N.txt never writes outside", async () => {
  const add = (i: number) => patch(`*** Add File: race/new-${i}.txt`, "+x");
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: add(i) })), []);
});

Deno.test("races: apply_patch updating race/secret.txt never reads or writes outside", async () => {
  // Each call adds a line under "inside", so every call that gets through changes the file.
  const update = (i: number) => patch("*** Update File: race/secret.txt", "@@", " inside", `+edit ${i}`);
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: update(i) })), []);
});

Deno.test("races: apply_patch deleting race/secret.txt never reads or deletes outside", async () => {
  // Deleted on even calls (the deletion's preview quotes what was read), put back on odd ones.
  const step = (i: number) =>
    i % 2 === 0 ? patch("*** Delete File: race/secret.txt") : patch("*** Add File: race/secret.txt", "+inside");
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: step(i) })), []);
});

Deno.test("races: apply_patch moving race/secret.txt within race/ never reads or writes outside", async () => {
  // Moved, with an edit, to race/moved.txt on even calls and back on odd ones.
  const move = (i: number) =>
    i % 2 === 0
      ? patch("*** Update File: race/secret.txt", "*** Move to: race/moved.txt", "@@", "-inside", "+inside moved")
      : patch("*** Update File: race/moved.txt", "*** Move to: race/secret.txt", "@@", "-inside moved", "+inside");
  assertEquals(await race((server, i) => server.call("apply_patch", { patch: move(i) })), []);
});
