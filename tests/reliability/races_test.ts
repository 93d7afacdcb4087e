/**
 * Races: a workspace directory flips between itself and a symlink to the
 * outside tree while a tool works in it. Nothing outside may be read, listed
 * or written, and no answer may carry outside names or content.
 */
import { assertEquals } from "../assert.ts";
import { race } from "./outside.ts";

Deno.test("races: read_file of race/secret.txt never reads the outside file", async () => {
  assertEquals(await race((server) => server.call("read_file", { path: "race/secret.txt" })), []);
});

Deno.test("races: list_dir of race/ never lists the outside directory", async () => {
  assertEquals(await race((server) => server.call("list_dir", { path: "race" })), []);
});
