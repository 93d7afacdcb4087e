import { assert, assertEquals } from "../../testing/assert.ts";
import { seededRandom } from "../../testing/random.ts";
import { decodeBytes, firstInvalidUtf8, utf8CutIndex, utf8SequenceLength, utf8Window } from "./utf8.ts";

const encoder = new TextEncoder();
const strict = new TextDecoder("utf-8", { fatal: true });
const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("utf8CutIndex never splits a character", () => {
  for (const text of ["abc", "éé", "€€€", "😀😀", "a😀b€"]) {
    const encoded = encoder.encode(text);
    for (let max = 0; max <= encoded.length; max++) {
      const end = utf8CutIndex(encoded, max);
      const decoded = strict.decode(encoded.subarray(0, end));
      assertEquals(text.startsWith(decoded), true);
      assertEquals(end <= max, true);
    }
  }
  assertEquals(utf8CutIndex(encoder.encode("ab"), 5), 2);
});

Deno.test("utf8CutIndex steps back over three continuation bytes at most", () => {
  // No character has more: a longer run is not UTF-8, and the cut stays near `max`.
  const run = bytes(0x61, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80);
  assertEquals(utf8CutIndex(run, 6), 3);
});

Deno.test("utf8SequenceLength reads the lead byte", () => {
  assertEquals(["a", "é", "€", "😀"].map((char) => utf8SequenceLength(encoder.encode(char)[0])), [1, 2, 3, 4]);
  assertEquals(utf8SequenceLength(0x80), 1);
});

Deno.test("firstInvalidUtf8 finds the offset of the first bad sequence", () => {
  assertEquals(firstInvalidUtf8(encoder.encode("héllo €𝄞")), -1);
  assertEquals(firstInvalidUtf8(bytes(0x61, 0xe9, 0x62)), 1); // Latin-1 é
  assertEquals(firstInvalidUtf8(bytes(0x61, 0xc0, 0xaf)), 1); // overlong
  assertEquals(firstInvalidUtf8(bytes(0xed, 0xa0, 0x80)), 0); // surrogate
  assertEquals(firstInvalidUtf8(bytes(0x61, 0xe2, 0x82)), 1); // truncated
  assertEquals(firstInvalidUtf8(bytes(0xf4, 0x90, 0x80, 0x80)), 0); // above U+10FFFF
});

Deno.test("firstInvalidUtf8 agrees with the WHATWG decoder on random bytes", () => {
  const next = seededRandom(18);
  // Mostly bytes that can form sequences, so valid and invalid inputs both occur.
  const pool = [0x41, 0x80, 0x9f, 0xa0, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xc0];
  for (let run = 0; run < 20_000; run++) {
    const input = Uint8Array.from({ length: 1 + Math.floor(next() * 6) }, () => pool[Math.floor(next() * pool.length)]);
    const invalid = firstInvalidUtf8(input);
    assertEquals(invalid === -1, !decodeBytes(input).lossy, `${input}`);
    if (invalid !== -1) {
      assertEquals(decodeBytes(input.subarray(0, invalid)).lossy, false, `${input}`);
      assert(decodeBytes(input.subarray(0, invalid + 4)).lossy, `${input}`);
    }
  }
});

Deno.test("utf8Window trims split characters at both ends", () => {
  const encoded = encoder.encode("é€😀");
  assertEquals(utf8Window(encoded.subarray(1), false), { from: 1, to: 8 });
  assertEquals(utf8Window(encoded.subarray(0, 7), false), { from: 0, to: 5 });
  assertEquals(utf8Window(encoded.subarray(0, 7), true), { from: 0, to: 7 });
  const binary = bytes(0x80, 0x80, 0x80, 0x80, 0x41);
  assert(utf8Window(binary, false).from === 0);
});

Deno.test("decodeBytes flags a lossy decoding", () => {
  assertEquals(decodeBytes(encoder.encode("é")), { text: "é", lossy: false });
  assertEquals(decodeBytes(bytes(0x61, 0xff)), { text: "a\uFFFD", lossy: true });
});
