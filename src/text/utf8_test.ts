import { assertEquals } from "../testing/assert.ts";
import { utf8CutIndex } from "./utf8.ts";

Deno.test("utf8CutIndex never splits a character", () => {
  const encoder = new TextEncoder();
  for (const text of ["abc", "éé", "€€€", "😀😀", "a😀b€"]) {
    const bytes = encoder.encode(text);
    for (let max = 0; max <= bytes.length; max++) {
      const end = utf8CutIndex(bytes, max);
      const decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, end));
      assertEquals(text.startsWith(decoded), true);
      assertEquals(end <= max, true);
    }
  }
  assertEquals(utf8CutIndex(encoder.encode("ab"), 5), 2);
});
