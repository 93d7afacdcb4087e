import { assertEquals } from "../../testing/assert.ts";
import { treeOrder } from "./tree_order.ts";

Deno.test("treeOrder: components compared in turn, a directory right before its contents", () => {
  const paths = ["b", "a.txt", "a/z", "a", "a/b/c", "a-b", "a/b"];
  assertEquals(paths.sort(treeOrder), ["a", "a/b", "a/b/c", "a/z", "a-b", "a.txt", "b"]);
  assertEquals(treeOrder("x/y", "x/y"), 0);
});
