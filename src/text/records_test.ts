import { assertEquals } from "../../testing/assert.ts";
import { RecordSplitter } from "./records.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function split(separator: string, max: number, chunks: Uint8Array[]): [string, boolean][] {
  const got: [string, boolean][] = [];
  const splitter = new RecordSplitter(separator, max, (record, cut) => got.push([record, cut]));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return got;
}

Deno.test("RecordSplitter joins records across chunks and caps each one", () => {
  assertEquals(split("\0", 4, [bytes("ab\0cd"), bytes("ef\0\0gh")]), [
    ["ab", false],
    ["cdef", false],
    ["", false],
    ["gh", false],
  ]);
  assertEquals(split("\n", 3, [bytes("abcdef\nxy\n")]), [["abc", true], ["xy", false]]);
  assertEquals(split("\n", 3, [bytes("ab"), bytes("cd"), bytes("ef\nz")]), [["abc", true], ["z", false]]);
});

Deno.test("RecordSplitter keeps a character split across chunks and never cuts a surrogate pair", () => {
  const all = bytes("é\0😀x\0");
  assertEquals(split("\0", 10, [all.subarray(0, 1), all.subarray(1, 4), all.subarray(4)]), [
    ["é", false],
    ["😀x", false],
  ]);
  assertEquals(split("\0", 2, [bytes("a😀\0")]), [["a", true]]);
});
