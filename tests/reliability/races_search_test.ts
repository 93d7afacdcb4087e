/**
 * Races: a workspace directory flips between itself and a symlink to the
 * outside tree while list_files or search_text works in it. Nothing outside may be read, listed
 * or written, and no answer may carry outside names or content.
 */
import { assertEquals } from "../assert.ts";
import { race } from "./outside.ts";

Deno.test("races: search_text and list_files under race/ never report outside files", async () => {
  assertEquals(
    await race(
      (server, i) =>
        i % 2 === 0
          ? server.call("search_text", { pattern: "OUTSIDE-SECRET", path: "race" })
          : server.call("list_files", { path: "race" }),
    ),
    [],
  );
});
