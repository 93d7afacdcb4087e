import { assertEquals } from "../../testing/assert.ts";
import { firstNonText } from "./show.ts";

Deno.test("firstNonText finds NULs, bad bytes, overlongs, surrogates and a character missing its end", () => {
  const bytes = (...values: number[]) => new Uint8Array(values);
  assertEquals(firstNonText(new TextEncoder().encode("héllo €")), -1);
  assertEquals(firstNonText(bytes(0x61, 0x00)), 1);
  assertEquals(firstNonText(bytes(0x61, 0xff)), 1);
  assertEquals(firstNonText(bytes(0x61, 0xc0, 0x80)), 1); // overlong
  assertEquals(firstNonText(bytes(0xed, 0xa0, 0x80)), 0); // surrogate
  assertEquals(firstNonText(bytes(0x61, 0xe2, 0x82)), 1);
});
