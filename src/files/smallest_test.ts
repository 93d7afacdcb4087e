import { assertEquals } from "../../testing/assert.ts";
import { Smallest } from "./smallest.ts";

Deno.test("Smallest keeps the k smallest strings of any order, sorted", () => {
  let seed = 7;
  const values = Array.from({ length: 5000 }, () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return `p${seed % 3000}/f${seed % 17}`;
  });
  for (const k of [0, 1, 10, 999, 5000, 9000]) {
    const top = new Smallest(k);
    for (const value of values) top.offer(value);
    assertEquals(top.sorted(), [...values].sort().slice(0, k), `k=${k}`);
  }
});
