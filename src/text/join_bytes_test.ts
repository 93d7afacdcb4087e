import { assert, assertEquals } from "../../testing/assert.ts";
import { joinBytes } from "./join_bytes.ts";

Deno.test("joinBytes concatenates in order", () => {
  assertEquals(joinBytes([new Uint8Array([1, 2]), new Uint8Array(), new Uint8Array([3])]), new Uint8Array([1, 2, 3]));
  assertEquals(joinBytes([]), new Uint8Array());
});

Deno.test("joinBytes returns the one chunk that holds every byte without copying it", () => {
  const only = new Uint8Array([7, 8]);
  assert(joinBytes([only]) === only);
  assert(joinBytes([new Uint8Array(), only, new Uint8Array()]) === only);
});
