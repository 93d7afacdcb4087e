import { assertEquals } from "../../tests/assert.ts";
import { decodeRecord, RecordSplitter } from "./records.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("RecordSplitter joins records across chunks and caps each one", () => {
  const got: [string, boolean][] = [];
  const split = new RecordSplitter(0, 4, (record, cut) => {
    got.push([new TextDecoder().decode(record), cut]);
  });
  split.push(bytes("ab\0cd"));
  split.push(bytes("ef\0\0gh"));
  split.end();
  assertEquals(got, [["ab", false], ["cdef", false], ["", false], ["gh", false]]);
  const long: [string, boolean][] = [];
  const capped = new RecordSplitter(0x0a, 3, (record, cut) => {
    long.push([new TextDecoder().decode(record), cut]);
  });
  capped.push(bytes("abcdef\nxy\n"));
  assertEquals(long, [["abc", true], ["xy", false]]);
});

Deno.test("decodeRecord drops a character split by a cut", () => {
  assertEquals(decodeRecord(bytes("aé").subarray(0, 2), true), "a");
  assertEquals(decodeRecord(bytes("aé"), true), "aé");
  assertEquals(decodeRecord(bytes("a€").subarray(0, 3), true), "a");
});
