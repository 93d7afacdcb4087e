import { assert, assertEquals } from "../../testing/assert.ts";
import { layoutText, nextCall } from "./text_layout.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

Deno.test("layoutText shows whole items within the bound, its header counting them, the next call last", () => {
  const items = Array.from({ length: 100 }, (_, i) => `item ${i} ${"x".repeat(90)}`);
  const laid = layoutText({
    header: (shown) => `${shown} of 100 items`,
    items,
    footer: () => ["[warning: w]"],
    next: (shown) => shown < 100 ? `next: t {"from":${shown}}` : null,
  }, 2000);
  assert(bytes(laid.text) <= 2000, `${bytes(laid.text)}`);
  const lines = laid.text.split("\n");
  assertEquals(lines[0], `${laid.shown} of 100 items`);
  assertEquals(lines.slice(1, 1 + laid.shown), items.slice(0, laid.shown));
  assertEquals(lines.at(-2), "[warning: w]");
  assertEquals(lines.at(-1), `next: t {"from":${laid.shown}}`);
  assertEquals(laid.cutFirst, false);
  const all = layoutText({ header: () => "h", items: ["a", "b"], next: () => null });
  assertEquals([all.text, all.shown], ["h\na\nb", 2]);
});

Deno.test("layoutText cuts a first item too large for the bound, with a marker, and still moves on", () => {
  const laid = layoutText({ header: () => "h", items: ["é".repeat(5000), "b"], next: (n) => `next: ${n}` }, 1000);
  assert(bytes(laid.text) <= 1000, `${bytes(laid.text)}`);
  assertEquals([laid.shown, laid.cutFirst], [1, true]);
  assert(/more bytes of this item not shown\]\nnext: 1$/.test(laid.text), laid.text.slice(-100));
  assert(!laid.text.includes("\uFFFD"));
});

Deno.test("nextCall repeats the call's arguments, drops the replaced ones and puts the resume point last", () => {
  assertEquals(
    nextCall("read_file", { path: "big.ts" }, { offset: 256 }),
    'next: read_file {"path":"big.ts","offset":256}',
  );
  assertEquals(
    nextCall("read_file", { path: "a", byte_offset: 9, offset: 3 }, { offset: 4 }, ["byte_offset"]),
    'next: read_file {"path":"a","offset":4}',
  );
  assertEquals(
    nextCall("list_files", { cursor: "old", glob: "*" }, { cursor: "new" }),
    'next: list_files {"glob":"*","cursor":"new"}',
  );
});

Deno.test("layoutText measures items as TextEncoder does: astral characters, lone surrogates, exactly at the bound", () => {
  const samples = ["a", "\x7f", "\x80", "é", "€", "😀", "\ud800", "\udc00x", "😀\ud83d", "ab\u07ff\u0800"];
  for (const sample of samples) {
    const items = Array.from({ length: 50 }, (_, i) => `${i}${sample.repeat(i % 5)}`);
    for (let max = 40; max < 200; max += 7) {
      const laid = layoutText({ header: () => "h", items, next: () => null }, max);
      assert(bytes(laid.text) <= max || laid.cutFirst, `${sample} ${max}`);
      // One more item would not have fitted.
      const more = ["h", ...items.slice(0, laid.shown + 1)].join("\n");
      if (!laid.cutFirst && laid.shown < items.length) assert(bytes(more) > max, `${sample} ${max}: ${laid.shown}`);
    }
  }
});
