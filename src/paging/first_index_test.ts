import { assertEquals } from "../../testing/assert.ts";
import { firstIndex } from "./first_index.ts";

Deno.test("firstIndex finds where a predicate starts to hold, at either end too", () => {
  const items = [1, 3, 3, 5, 8];
  for (const [bound, expected] of [[0, 0], [1, 1], [3, 3], [4, 3], [8, 5], [9, 5]]) {
    assertEquals(firstIndex(items.length, (i) => items[i] > bound), expected, `past ${bound}`);
  }
  assertEquals(firstIndex(0, () => true), 0);
  // Each probe is a distinct index inside the range: about log2(n) of them.
  const probed = new Set<number>();
  assertEquals(firstIndex(1_000_000, (i) => (probed.add(i), i >= 765_432)), 765_432);
  assertEquals(probed.size <= 20 && [...probed].every((i) => i >= 0 && i < 1_000_000), true);
});
