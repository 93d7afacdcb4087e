import { assertEquals } from "../../testing/assert.ts";
import { MAX_SNAPSHOT_BYTES, MAX_SNAPSHOTS, Snapshots } from "./snapshots.ts";

Deno.test("Snapshots: keeps at most MAX_SNAPSHOTS, dropping the least recently used", () => {
  const snapshots = new Snapshots();
  for (let i = 0; i < MAX_SNAPSHOTS; i++) snapshots.put(`k${i}`, i, 10);
  assertEquals(snapshots.get<number>("k0"), 0); // k0 used again: k1 is now the oldest
  snapshots.put("new", "n", 10);
  assertEquals([snapshots.size, snapshots.get("k1"), snapshots.get("k0"), snapshots.get("new")], [
    MAX_SNAPSHOTS,
    undefined,
    0,
    "n",
  ]);
  snapshots.clear();
});

Deno.test("Snapshots: stays within MAX_SNAPSHOT_BYTES, refuses one larger, and clear drops all", () => {
  const snapshots = new Snapshots();
  snapshots.put("a", "a", MAX_SNAPSHOT_BYTES / 2);
  snapshots.put("b", "b", MAX_SNAPSHOT_BYTES / 2);
  snapshots.put("c", "c", 1); // over the bound: "a" goes
  assertEquals([snapshots.get("a"), snapshots.get("b"), snapshots.get("c")], [undefined, "b", "c"]);
  snapshots.put("huge", "h", MAX_SNAPSHOT_BYTES + 1);
  assertEquals(snapshots.get("huge"), undefined);
  snapshots.put("b", "b2", 1); // the same key replaces
  assertEquals(snapshots.get("b"), "b2");
  snapshots.clear();
  assertEquals(snapshots.size, 0);
});
