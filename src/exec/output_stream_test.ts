import { assertEquals } from "../../testing/assert.ts";
import { OutputStream } from "./output_stream.ts";

Deno.test("OutputStream: random appends match a reference model of head + tail", () => {
  for (const budget of [64, 1000, 8192]) {
    const stream = new OutputStream(budget);
    const all: number[] = [];
    let seed = budget;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 300; round++) {
      const size = Math.floor(random() ** 3 * budget * 2);
      const chunk = Uint8Array.from({ length: size }, (_, i) => (all.length + i) % 251);
      stream.append(chunk);
      all.push(...chunk);
      const head = Math.min(all.length, budget / 8 | 0);
      const tail = Math.min(all.length - head, budget - (budget / 8 | 0));
      assertEquals(stream.total, all.length);
      assertEquals(stream.retainedBytes, head + tail);
      assertEquals(stream.evictedBytes, all.length - head - tail);
      const offset = Math.floor(random() * all.length);
      const read = stream.read(offset, 97);
      const tailStart = all.length - tail;
      const start = offset < head ? offset : Math.max(offset, tailStart);
      assertEquals(read.start, start);
      assertEquals(read.skipped, start - offset);
      const contiguous = tailStart === head;
      const end = start < head && !contiguous ? Math.min(head, start + 97) : Math.min(all.length, start + 97);
      assertEquals([...read.bytes], all.slice(start, end));
    }
  }
});
