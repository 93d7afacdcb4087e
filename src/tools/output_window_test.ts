import { assertEquals } from "../../testing/assert.ts";
import { BYTES, headWithin, JSON_CHARS, windowOutput } from "./output_window.ts";

Deno.test("windowOutput keeps what fits, else a head and a tail at line ends, with the ranges left out", () => {
  const text = "a\nb\nc\nd\n";
  assertEquals(windowOutput(10, [{ start: 10, text }], 100, BYTES), { pieces: [{ start: 10, text }], gaps: [] });
  assertEquals(windowOutput(0, [{ start: 0, text }], 4, BYTES), {
    pieces: [{ start: 0, text: "a\n" }, { start: 6, text: "d\n" }],
    gaps: [{ start: 2, end: 6 }],
  });
  // A preview's head and tail: the short tail is shown whole, the head gets the rest of the room.
  const parts = [{ start: 0, text: "1\n2\n3\n4\n" }, { start: 100, text: "9\n" }];
  assertEquals(windowOutput(0, parts, 6, BYTES), {
    pieces: [{ start: 0, text: "1\n2\n" }, { start: 100, text: "9\n" }],
    gaps: [{ start: 4, end: 100 }],
  });
  // Evicted bytes before the head are a gap too.
  assertEquals(windowOutput(0, [{ start: 50, text: "x" }], 10, BYTES).gaps, [{ start: 0, end: 50 }]);
});

Deno.test("windowOutput measures JSON characters too, and never splits a character", () => {
  const control = "\x01".repeat(100); // six JSON characters each
  const { pieces, gaps } = windowOutput(0, [{ start: 0, text: control }], 60, JSON_CHARS);
  assertEquals(pieces.map((piece) => piece.text.length), [5, 5]);
  assertEquals(gaps, [{ start: 5, end: 95 }]);
  const emoji = windowOutput(0, [{ start: 0, text: "😀".repeat(10) }], 10, BYTES).pieces;
  assertEquals(emoji.map((piece) => [piece.start, piece.text]), [[0, "😀"], [36, "😀"]]);
});

Deno.test("headWithin ends at a line end in the second half of the room", () => {
  assertEquals(headWithin("ab\ncd\nef", 7, BYTES), "ab\ncd\n");
  assertEquals(headWithin("abcdefgh\nx", 5, BYTES), "abcde");
});
