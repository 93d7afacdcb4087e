import { assertEquals } from "../../tests/assert.ts";
import { firstNonText } from "./show.ts";

Deno.test("firstNonText finds NULs, bad bytes, overlongs and surrogates, but forgives a cut character", () => {
  const bytes = (...values: number[]) => new Uint8Array(values);
  assertEquals(firstNonText(new TextEncoder().encode("héllo €"), false), -1);
  assertEquals(firstNonText(bytes(0x61, 0x00), false), 1);
  assertEquals(firstNonText(bytes(0x61, 0xff), false), 1);
  assertEquals(firstNonText(bytes(0x61, 0xc0, 0x80), false), 1); // overlong
  assertEquals(firstNonText(bytes(0xed, 0xa0, 0x80), false), 0); // surrogate
  assertEquals(firstNonText(bytes(0x61, 0xe2, 0x82), true), -1); // € cut by the bound
  assertEquals(firstNonText(bytes(0x61, 0xe2, 0x82), false), 1);
});
