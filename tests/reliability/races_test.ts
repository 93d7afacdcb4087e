/**
 * Races: a workspace directory flips between itself and a symlink to the
 * outside tree while a tool works in it. Nothing outside may be created,
 * removed or changed, and no answer may carry outside names or content.
 */
import { assertEquals } from "../../testing/assert.ts";
import { race } from "./outside.ts";
import type { TestServer } from "../harness.ts";

Deno.test("races: read_file of race/secret.txt never reads the outside file", async () => {
  assertEquals(await race((server) => server.call("read_file", { path: "race/secret.txt" })), []);
});

Deno.test("races: list_dir of race/ never lists the outside directory", async () => {
  assertEquals(await race((server) => server.call("list_dir", { path: "race" })), []);
});

Deno.test("races: list_dir of the workspace never descends into a deeper directory swapped for a symlink", async () => {
  const listing = (server: TestServer) => server.call("list_dir", { path: ".", depth: 4 });
  assertEquals(await race(listing, { swap: "deep/race" }), []);
});

Deno.test("races: view_image of race/image.png never reads the outside tree", async () => {
  assertEquals(await race((server) => server.call("view_image", { path: "race/image.png" })), []);
});

Deno.test("races: exec_command in workdir race/ never starts outside", async () => {
  const cat = (server: TestServer) => server.call("exec_command", { cmd: "cat secret.txt", workdir: "race" });
  assertEquals(await race(cat), []);
});

Deno.test("races: git_blame of race/secret.txt never reads the outside file", async () => {
  const blame = (server: TestServer) => server.call("git_blame", { path: "race/secret.txt" });
  assertEquals(await race(blame, { git: true }), []);
});
