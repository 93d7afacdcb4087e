import { assertEquals } from "../../testing/assert.ts";
import { LineIndex } from "./line_index.ts";
import { Haystack, NORMALISERS } from "./seek.ts";

const hay = (text: string) => new Haystack(new LineIndex(text));

Deno.test("NORMALISERS: each pass drops what it tolerates and nothing more", () => {
  const line = "\t\u201cx\u201d \u2014 it\u2019s\u00a0y  \r";
  assertEquals(NORMALISERS.exact(line), line);
  assertEquals(NORMALISERS.trim_end(line), "\t\u201cx\u201d \u2014 it\u2019s\u00a0y");
  assertEquals(NORMALISERS.trim(line), "\u201cx\u201d \u2014 it\u2019s\u00a0y");
  assertEquals(NORMALISERS.unicode(line), '"x" - it\'s y');
  assertEquals(NORMALISERS.unicode("a\u2028b\u3000"), "a\u2028b", "a line separator is not a space");
});

Deno.test("seek finds a unique match, lists every place of an ambiguous one, and takes the first in first mode", () => {
  const h = hay("a\nb\nc\nb\nc\n");
  assertEquals(h.seek(["a", "b"], 0, "unique", false), { kind: "found", index: 0, pass: "exact" });
  assertEquals(h.seek(["b", "c"], 0, "unique", false), { kind: "ambiguous", indexes: [1, 3], pass: "exact" });
  assertEquals(h.seek(["b", "c"], 0, "first", false), { kind: "found", index: 1, pass: "exact" });
  assertEquals(h.seek(["b", "c"], 2, "unique", false), { kind: "found", index: 3, pass: "exact" }, "from line 2");
  assertEquals(h.seek(["x"], 0, "unique", false), { kind: "none" });
});

Deno.test("seek tries the passes strictest first and stops at the first that matches", () => {
  const h = hay("  value = 1  \nvalue = 1\n\u201cq\u201d\n");
  // The exact match wins even though the trimmed pass would find two.
  assertEquals(h.seek(["value = 1"], 0, "unique", false), { kind: "found", index: 1, pass: "exact" });
  assertEquals(h.seek(["  value = 1"], 0, "unique", false), { kind: "found", index: 0, pass: "trim_end" });
  assertEquals(h.seek(["value = 1   "], 0, "unique", false), { kind: "found", index: 1, pass: "trim_end" });
  // Each pass is still held to uniqueness: here only the trim pass matches, twice.
  assertEquals(h.seek([" value = 1"], 0, "unique", false), { kind: "ambiguous", indexes: [0, 1], pass: "trim" });
  assertEquals(h.seek(["\t\u201cq\u201d"], 0, "unique", false), { kind: "found", index: 2, pass: "trim" });
  assertEquals(h.seek(['"q"'], 0, "unique", false), { kind: "found", index: 2, pass: "unicode" });
});

Deno.test("with eof a match must end the file, a final empty line of a trailing newline aside", () => {
  const h = hay("x\ny\nx\ny\n");
  assertEquals(h.seek(["x", "y"], 0, "unique", true), { kind: "found", index: 2, pass: "exact" });
  assertEquals(h.seek(["x"], 0, "unique", true), { kind: "none" });
  // A pattern that itself ends with the empty line matches only at the very end.
  assertEquals(h.seek(["y", ""], 0, "unique", true), { kind: "found", index: 3, pass: "exact" });
  assertEquals(hay("x\ny").seek(["x", "y"], 0, "unique", true), { kind: "found", index: 0, pass: "exact" });
});

Deno.test("the exact pass counts only whole lines, not a first line found inside another", () => {
  const h = hay("prefix abc\nabc\nnext\nabcabc\nabc\nnext\n");
  assertEquals(h.matches(["abc", "next"], 0, "exact", false, Infinity), [1, 4]);
  assertEquals(h.matches(["abc", "next"], 0, "exact", false, 1), [1], "limit");
  assertEquals(
    h.matches(["", "abc"], 0, "exact", false, Infinity),
    [],
    "an empty first line takes the line-by-line path",
  );
  assertEquals(hay("a\n\nabc\n").matches(["", "abc"], 0, "exact", false, Infinity), [1]);
});

Deno.test("a tolerant view is computed once and reused", () => {
  const h = hay("a \nb\n");
  const view = h.view("trim_end");
  assertEquals(view, ["a", "b", ""]);
  assertEquals(h.view("trim_end") === view, true);
});
