import { assertEquals } from "../../testing/assert.ts";
import { ChunkReader, countNewlines, FIRST_READ_BYTES, READ_CHUNK_BYTES } from "./chunk_reader.ts";

/** A file of `bytes` as a handle reads it, recording the size of each read asked for. */
function fileOf(bytes: Uint8Array, asked: number[]) {
  return {
    read(buffer: Uint8Array, position: number): Promise<number> {
      asked.push(buffer.length);
      const part = bytes.subarray(position, position + buffer.length);
      buffer.set(part);
      return Promise.resolve(part.length);
    },
  };
}

Deno.test("ChunkReader: reads forward in chunks doubling up to READ_CHUNK_BYTES, then says the end", async () => {
  const bytes = new Uint8Array(FIRST_READ_BYTES * 30).map((_, i) => i % 251);
  const asked: number[] = [];
  const reader = new ChunkReader(fileOf(bytes, asked), 5);
  const seen: number[] = [];
  while (await reader.next()) {
    assertEquals(reader.chunk[0], bytes[reader.base]);
    assertEquals(reader.at, 0);
    seen.push(reader.chunk.length);
    reader.at = reader.chunk.length;
  }
  assertEquals(asked.slice(0, 6), [1, 2, 4, 8, 16, 16].map((k) => k * FIRST_READ_BYTES));
  assertEquals(Math.max(...asked), READ_CHUNK_BYTES);
  assertEquals(seen.reduce((a, b) => a + b), bytes.length - 5);
  assertEquals([reader.base, reader.bytesRead, reader.exhausted], [bytes.length, bytes.length - 5, true]);
});

Deno.test("ChunkReader: peek reads aside and counts its bytes", async () => {
  const reader = new ChunkReader(fileOf(new TextEncoder().encode("abcdef"), []), 4);
  assertEquals(new TextDecoder().decode(await reader.peek(0, 3)), "abc");
  assertEquals(await reader.next(), true);
  assertEquals(new TextDecoder().decode(reader.chunk), "ef");
  assertEquals(reader.bytesRead, 5);
});

Deno.test("countNewlines counts \\n in any range, aligned or not", () => {
  const text = "a\nbb\n\nccc\ndddd\n\n\ne";
  const bytes = new TextEncoder().encode(`xyz${text}`).subarray(3);
  for (let from = 0; from < bytes.length; from++) {
    for (let to = from; to <= bytes.length; to++) {
      assertEquals(countNewlines(bytes, from, to), text.slice(from, to).split("\n").length - 1, `${from}-${to}`);
    }
  }
});
