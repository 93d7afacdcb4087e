import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { readLines, type ReadLinesOptions } from "./read_file.ts";
import { FIRST_READ_BYTES, READ_CHUNK_BYTES } from "./chunk_reader.ts";
import { ToolError } from "../errors.ts";
import { openWorkspace } from "../workspace/workspace.ts";

const dir = await Deno.makeTempDir({ prefix: "workcell-read-" });
const ws = openWorkspace(dir);
const encoder = new TextEncoder();

async function page(content: string | Uint8Array, options: Partial<ReadLinesOptions> = {}) {
  const name = `f${crypto.randomUUID()}`;
  await Deno.writeFile(`${dir}/${name}`, typeof content === "string" ? encoder.encode(content) : content);
  return await readLines(ws, name, { offset: 1, limit: 2000, maxBytes: 65536, ...options });
}

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await assertRejects(() => promise);
  assert(error instanceof ToolError, String(error));
  return error.code;
}

Deno.test("readLines: ranges, has_more and next_offset", async () => {
  const r = await page("a\nb\nc\n", { limit: 2 });
  assertEquals([r.text, r.start_line, r.end_line, r.lines_returned], ["a\nb\n", 1, 2, 2]);
  assertEquals([r.has_more, r.next_offset, r.truncated_by, r.newline], [true, 3, "lines", "lf"]);
  const last = await page("a\nb\nc\n", { offset: 3 });
  assertEquals([last.text, last.has_more, last.next_offset, last.truncated_by, last.total_lines], [
    "c\n",
    false,
    null,
    null,
    3,
  ]);
  const exact = await page("a\nb\n", { limit: 2 });
  assertEquals([exact.has_more, exact.truncated_by], [false, null]);
});

Deno.test("readLines: empty file, no final newline, offset past the end", async () => {
  const empty = await page("");
  assertEquals([empty.text, empty.lines_returned, empty.has_more, empty.newline, empty.total_lines], [
    "",
    0,
    false,
    "none",
    0,
  ]);
  const open = await page("a\nb");
  assertEquals([open.text, open.lines_returned, open.end_line, open.has_more], ["a\nb", 2, 2, false]);
  const past = await page("a\nb", { offset: 9 });
  assertEquals([past.lines_returned, past.start_line, past.total_lines, past.has_more], [0, 9, 2, false]);
});

Deno.test("readLines: newline style and BOM", async () => {
  assertEquals((await page("a\r\nb\r\n")).newline, "crlf");
  assertEquals((await page("a\r\nb\n")).newline, "mixed");
  assertEquals((await page("a")).newline, "none");
  const bom = await page("\uFEFFhello\n");
  assertEquals([bom.bom, bom.text], [true, "hello\n"]);
  assertEquals((await page("\uFEFFa\nb\n", { offset: 2 })).text, "b\n");
});

Deno.test("readLines: max_bytes stops before a line that does not fit", async () => {
  const r = await page("aaaa\nbbbb\ncccc\n", { maxBytes: 12 });
  assertEquals([r.text, r.truncated_by, r.next_offset, r.next_byte_offset], ["aaaa\nbbbb\n", "bytes", 3, 10]);
});

Deno.test("readLines: a line longer than max_bytes is cut with a byte resume point", async () => {
  const content = "x".repeat(100) + "\nnext\n";
  const first = await page(content, { maxBytes: 30 });
  assertEquals([first.text, first.lines_returned, first.truncated_by], ["x".repeat(30), 1, "bytes"]);
  assertEquals([first.has_more, first.next_offset, first.next_byte_offset], [true, 1, 30]);
  const file = `${dir}/long`;
  await Deno.writeTextFile(file, content);
  const rest = await readLines(ws, "long", { offset: 1, limit: 5, maxBytes: 100, byteOffset: 30 });
  assertEquals([rest.text, rest.start_line, rest.end_line, rest.has_more], ["x".repeat(70) + "\nnext\n", 1, 2, false]);
  const later = await readLines(ws, "long", { offset: 1, limit: 5, maxBytes: 100, byteOffset: 101 });
  assertEquals([later.text, later.start_line], ["next\n", 2]);
  const multibyte = await page("é".repeat(50), { maxBytes: 5 });
  assertEquals([multibyte.text, multibyte.next_byte_offset], ["éé", 4]);
  assertEquals(
    await code(readLines(ws, "long", { offset: 1, limit: 1, maxBytes: 9, byteOffset: 999 })),
    "INVALID_ARGUMENT",
  );
  await Deno.writeTextFile(file, "é");
  assertEquals(
    await code(readLines(ws, "long", { offset: 1, limit: 1, maxBytes: 9, byteOffset: 1 })),
    "INVALID_ARGUMENT",
  );
});

Deno.test("readLines: lines across chunk boundaries", async () => {
  const lines = Array.from({ length: 120000 }, (_, i) => `line ${i + 1}${i % 2 ? "\r\n" : "\n"}`);
  const all = lines.join("");
  assert(all.length > 8 * FIRST_READ_BYTES, "spans several reads of growing size");
  const r = await page(all, { offset: 70000, limit: 3 });
  assertEquals([r.text, r.start_line, r.newline], [lines.slice(69999, 70002).join(""), 70000, "mixed"]);
  const full = await page(all, { limit: 80000, maxBytes: 1048576 });
  assertEquals([full.text, full.truncated_by], [lines.slice(0, 80000).join(""), "lines"]);
  assert(full.bytes_read < all.length, "stops reading at the end of the range");
});

Deno.test("readLines: NOT_UTF8 names the byte offset; NOT_A_FILE for directories and FIFOs", async () => {
  const error = await assertRejects(() => page(new Uint8Array([0x61, 0x0a, 0x62, 0xff, 0x0a])));
  assert(error instanceof ToolError);
  assertEquals([error.code, error.details.byte_offset, error.details.line], ["NOT_UTF8", 3, 2]);
  assertEquals(await code(readLines(ws, ".", { offset: 1, limit: 1, maxBytes: 9 })), "NOT_A_FILE");
  const fifo = `${dir}/fifo`;
  await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assertEquals(await code(readLines(ws, "fifo", { offset: 1, limit: 1, maxBytes: 9 })), "NOT_A_FILE");
});

Deno.test("readLines: bulk newline counting is exact on arbitrary bytes", async () => {
  const bytes = new Uint8Array(3 * READ_CHUNK_BYTES + 7);
  let seed = 1;
  for (let i = 0; i < bytes.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    bytes[i] = [0x0a, 0x8a, 0x0b, 0x09, 0x00, 0xff][seed % 6];
  }
  let expected = 0;
  for (const byte of bytes) if (byte === 0x0a) expected++;
  if (bytes[bytes.length - 1] !== 0x0a) expected++;
  const past = await page(bytes, { offset: bytes.length + 1 });
  assertEquals(past.total_lines, expected);
  const file = `${dir}/random`;
  await Deno.writeFile(file, bytes);
  const at = await readLines(ws, "random", { offset: 1, limit: 1, maxBytes: 1, byteOffset: bytes.length });
  assertEquals(at.start_line, expected + (bytes[bytes.length - 1] === 0x0a ? 1 : 0));
});

Deno.test("readLines: maxChars bounds the page's JSON, by whole lines, then inside a first line", async () => {
  const quoted = `"${"q".repeat(40)}"\n`; // 43 bytes, 47 characters in JSON
  const content = quoted.repeat(1000);
  const r = await page(content, { maxChars: 5000 });
  assert(JSON.stringify(r).length <= 5000, `${JSON.stringify(r).length}`);
  assertEquals([r.truncated_by, r.has_more, r.next_byte_offset], ["result_size", true, r.text.length]);
  assertEquals(r.text, quoted.repeat(r.lines_returned));
  assertEquals([r.next_offset, r.start_byte], [r.lines_returned + 1, 0]);
  const next = await page(content, { offset: r.next_offset!, maxChars: 5000 });
  assertEquals(next.start_byte, quoted.length * r.lines_returned);

  const line = "\t".repeat(10_000) + "\n"; // each tab is two characters in JSON
  const cut = await page(line + "b\n", { maxChars: 4000 });
  assert(JSON.stringify(cut).length <= 4000, `${JSON.stringify(cut).length}`);
  assertEquals([cut.lines_returned, cut.next_offset, cut.truncated_by], [1, 1, "result_size"]);
  assertEquals(cut.next_byte_offset, cut.text.length);
  // Without maxChars a byte cap alone would have let 10,000 bytes through: 20,000 characters.
  assertEquals((await page(line, { maxBytes: 10_000 })).text.length, 10_000);
});

Deno.test("readLines: the newline style is of the lines returned", async () => {
  assertEquals((await page("a\r\nb\n", { limit: 1 })).newline, "crlf");
  assertEquals((await page("a\r\nb\n")).newline, "mixed");
  assertEquals((await page("a\r\nb\n", { offset: 2 })).newline, "lf");
});

Deno.test("readLines: next_byte_offset with next_offset as lineAtByte starts there at once, with the same pages", async () => {
  const content = "\uFEFF" + Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${"é".repeat(i % 7)}\n`).join("");
  const name = `f${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${dir}/${name}`, content);
  const options = { offset: 1, limit: 700, maxBytes: 9000 };
  let counted = await readLines(ws, name, options);
  let jumped = counted;
  const pages = [counted.text];
  while (counted.has_more) {
    const at = { byteOffset: counted.next_byte_offset!, offset: counted.next_offset! };
    counted = await readLines(ws, name, { ...options, ...at });
    jumped = await readLines(ws, name, {
      ...options,
      byteOffset: jumped.next_byte_offset!,
      lineAtByte: jumped.next_offset!,
    });
    const { bytes_read: countedRead, ...countedPage } = counted;
    const { bytes_read: jumpedRead, ...jumpedPage } = jumped;
    assertEquals(jumpedPage, countedPage);
    // Only the page's first chunk and the BOM's three bytes are read, not the lines before it.
    assert(jumpedRead <= 3 + FIRST_READ_BYTES && countedRead >= jumped.start_byte, `${jumpedRead} vs ${countedRead}`);
    pages.push(jumped.text);
  }
  assertEquals(pages.join(""), content.slice(1));
  assertEquals([jumped.end_line, jumped.total_lines, jumped.bom], [5000, 5000, true]);
  // Inside a long line, the line given is the line reported.
  const long = await page("a\n" + "x".repeat(100) + "\nz\n", { maxBytes: 40, offset: 2 });
  const rest = await readLines(ws, long.path, { ...options, byteOffset: long.next_byte_offset!, lineAtByte: 2 });
  assertEquals([rest.start_line, rest.text], [2, "x".repeat(60) + "\nz\n"]);
});
