import { assertEquals } from "../../testing/assert.ts";
import { mapLargeBlocksApart } from "./allocator.ts";

Deno.test("mapLargeBlocksApart: glibc takes the fixed mmap threshold (darwin has nothing to set)", () => {
  assertEquals(mapLargeBlocksApart(), Deno.build.os === "linux");
});
