import { assertEquals } from "../../tests/assert.ts";
import { decodeText, encodeText, firstInvalidUtf8 } from "./text_file.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("firstInvalidUtf8 finds the offset of the first bad sequence", () => {
  assertEquals(firstInvalidUtf8(new TextEncoder().encode("héllo €𝄞")), -1);
  assertEquals(firstInvalidUtf8(bytes(0x61, 0xe9, 0x62)), 1); // Latin-1 é
  assertEquals(firstInvalidUtf8(bytes(0x61, 0xc0, 0xaf)), 1); // overlong
  assertEquals(firstInvalidUtf8(bytes(0xed, 0xa0, 0x80)), 0); // surrogate
  assertEquals(firstInvalidUtf8(bytes(0x61, 0xe2, 0x82)), 1); // truncated
});

Deno.test("decode and encode round-trip BOM, CRLF, a missing final newline and mixed endings", () => {
  for (const text of ["\ufeffa\r\nb\r\n", "a\nb", "a\r\nb\n", "", "\n", "x\u2028y\x85\n"]) {
    const bytesIn = new TextEncoder().encode(text);
    assertEquals(encodeText(decodeText(bytesIn, "f")), bytesIn, JSON.stringify(text));
  }
  assertEquals(decodeText(new TextEncoder().encode("a\r\nb\r\n"), "f"), {
    lines: ["a", "b", ""],
    bom: false,
    crlf: true,
  });
});
