import { assertEquals } from "../../testing/assert.ts";
import { lineBytes } from "./search_text.ts";

Deno.test("lineBytes keeps max_line_bytes unless a match with its context could outgrow half the page", () => {
  assertEquals(lineBytes({ maxLineBytes: 500, context: 0 }, 47_990), 500);
  assertEquals(lineBytes({ maxLineBytes: 65536, context: 0 }, 47_990), 3999);
  assertEquals(lineBytes({ maxLineBytes: 65536, context: 10 }, 47_990), 190);
  // 21 lines of 190 bytes, each at most six JSON characters a byte: under half the page.
  assertEquals(21 * 190 * 6 <= 47_990 / 2, true);
  assertEquals(lineBytes({ maxLineBytes: 65536, context: 10 }, 1_000), 16);
});
