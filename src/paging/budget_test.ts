import { assertEquals } from "../../testing/assert.ts";
import { fitCount, fitLines, jsonChars, jsonStringChars, prefixWithinJson } from "./budget.ts";

Deno.test("jsonChars and jsonStringChars count what JSON.stringify gives", () => {
  assertEquals(jsonChars({ a: "é" }), 9);
  assertEquals(jsonStringChars('say "hi"\n'), 12);
  assertEquals(jsonStringChars("\x01"), 6);
});

Deno.test("fitCount takes whole items while the JSON fits, with the resume point of the last one", () => {
  const items = ["aaaa", "bbbb", "cccc"]; // 6 characters each, plus a comma between
  const fixed = jsonChars({ items: [], next: null });
  assertEquals(fitCount(items, fixed + 20, { fixed, more: false }), 3);
  assertEquals(fitCount(items, fixed + 19, { fixed, more: false }), 2);
  // A resume point is needed after every item but the last (nothing follows it).
  assertEquals(fitCount(items, fixed + 17, { fixed, more: false }), 2);
  assertEquals(fitCount(items, fixed + 17, { fixed, more: false, resume: () => 5 }), 1);
  assertEquals(fitCount(items, fixed + 20, { fixed, more: false, resume: () => 5 }), 3);
  // With more beyond the candidates, the last one needs its resume point too.
  assertEquals(fitCount(items, fixed + 20, { fixed, more: true, resume: () => 1 }), 2);
});

Deno.test("fitCount measures resume points only for the counts it tries, from the longest prefix down", () => {
  const items = Array.from({ length: 100 }, (_, i) => `item${String(i).padStart(3, "0")}`); // 9 characters each
  const fixed = 2;
  const asked: number[] = [];
  const resume = (_: string, index: number) => {
    asked.push(index);
    return index === 49 ? 50 : 5; // the point after item 49 is long: the page ends one item earlier
  };
  // 50 items take 2 + 50 × 9 + 49 commas = 501 characters.
  assertEquals(fitCount(items, 505, { fixed, more: false, resume }), 49);
  assertEquals(asked, [49, 48]);
  asked.length = 0;
  assertEquals(fitCount(items.slice(0, 3), 505, { fixed, more: false, resume }), 3);
  assertEquals(asked, []);
});

Deno.test("fitCount always takes the first item, so paging moves on", () => {
  assertEquals(fitCount(["x".repeat(100)], 10, { fixed: 2, more: true }), 1);
  assertEquals(fitCount([], 10, { fixed: 2, more: false }), 0);
});

Deno.test("prefixWithinJson cuts on code points where the JSON stops fitting, keeping at least one", () => {
  assertEquals(prefixWithinJson("a\tb", 3), "a\t");
  assertEquals(prefixWithinJson("😀😀", 2), "😀");
  assertEquals(prefixWithinJson("\x01abc", 2), "\x01");
  assertEquals(prefixWithinJson("abc", 10), "abc");
});

Deno.test("fitLines keeps whole lines within the JSON budget, else cuts the first line", () => {
  assertEquals(fitLines("ab\ncd\n", 5), { text: "ab\n", lines: 1, cut: false });
  assertEquals(fitLines("ab\ncd", 100), { text: "ab\ncd", lines: 2, cut: false });
  assertEquals(fitLines('"""""\n', 4), { text: '""', lines: 1, cut: true });
});
