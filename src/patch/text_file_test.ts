import { assert, assertEquals } from "../../testing/assert.ts";
import { LineIndex } from "./line_index.ts";
import { decodeText, encodeText } from "./text_file.ts";

Deno.test("decode and encode round-trip BOM, CRLF, a missing final newline and mixed endings", () => {
  for (const text of ["\ufeffa\r\nb\r\n", "a\nb", "a\r\nb\n", "", "\n", "x\u2028y\x85\n"]) {
    const bytesIn = new TextEncoder().encode(text);
    assertEquals(encodeText(decodeText(bytesIn, "f")), bytesIn, JSON.stringify(text));
  }
  assertEquals(decodeText(new TextEncoder().encode("a\r\nb\r\n"), "f"), {
    text: "a\nb\n",
    bom: false,
    crlf: true,
  });
});

Deno.test("LineIndex splits on \\n only and treats the segment after the last \\n as a line", () => {
  const index = new LineIndex("a\u2028b\x0c\nc\x85\n");
  assertEquals(index.count, 3);
  assertEquals([0, 1, 2].map((i) => index.line(i)), ["a\u2028b\x0c", "c\x85", ""]);
  assert(index.equals(1, "c\x85") && !index.equals(1, "c"));
  assertEquals(index.joined(0, 2), "a\u2028b\x0c\nc\x85");
  assertEquals(index.segment(1, 3), "c\x85\n");
  assertEquals(new LineIndex("").count, 1);
});
