/**
 * Races: a workspace directory flips between itself and a symlink to the
 * outside tree while list_files or search_text works in it, or in a
 * directory above it (rg then meets the swap while it walks). Nothing outside
 * may be created, removed or changed, and no answer may carry outside names
 * or content.
 */
import { assertEquals } from "../../testing/assert.ts";
import { race } from "./outside.ts";
import type { CallResult, TestServer } from "../harness.ts";

/** Files put beside the swapped directory: rg lists them before it opens the directory, widening the race. */
const SIBLINGS = 500;

/**
 * search_text and list_files on `path`, alternately. With `crowd`, the first call first fills that directory
 * with siblings of the swapped one.
 */
function searchOrList(path: string, crowd?: string) {
  let crowded = crowd === undefined;
  return async (server: TestServer, i: number): Promise<CallResult> => {
    if (!crowded) {
      crowded = true;
      for (let n = 0; n < SIBLINGS; n++) await Deno.writeTextFile(`${server.workspace}/${crowd}/f${n}.txt`, "in\n");
    }
    return i % 2 === 0
      ? await server.call("search_text", { pattern: "OUTSIDE-SECRET", path })
      : await server.call("list_files", { path });
  };
}

Deno.test("races: search_text and list_files under race/ never report outside files", async () => {
  assertEquals(await race(searchOrList("race")), []);
});

Deno.test("races: a directory swapped below the searched one (deep/race under deep) is never walked into", async () => {
  assertEquals(await race(searchOrList("deep", "deep"), { swap: "deep/race" }), []);
});

Deno.test("races: a directory swapped two levels below the workspace root is never walked into", async () => {
  assertEquals(await race(searchOrList(".", "deep/er"), { swap: "deep/er/race" }), []);
});
