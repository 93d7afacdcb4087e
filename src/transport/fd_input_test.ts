import { assertEquals } from "../testing/assert.ts";
import { closeFd, makePipe, writeSome } from "../os/fd.ts";
import { FdInput } from "./fd_input.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

Deno.test("FdInput: hands out the prefix, then the fd; pause names the partial line and stops reading", async () => {
  const [readEnd, writeEnd] = makePipe();
  try {
    const input = new FdInput(readEnd, encoder.encode("replayed\n"));
    const reader = input.readable.getReader();
    assertEquals(decoder.decode((await reader.read()).value), "replayed\n");
    writeSome(writeEnd, encoder.encode('{"a":1}\n{"b":'));
    assertEquals(decoder.decode((await reader.read()).value), '{"a":1}\n{"b":');
    assertEquals(decoder.decode(input.pause()), '{"b":');
    // Paused, bytes stay in the pipe for whoever reads next.
    writeSome(writeEnd, encoder.encode("2}\n"));
    const next = reader.read();
    const raced = await Promise.race([next, new Promise((resolve) => setTimeout(() => resolve("still paused"), 300))]);
    assertEquals(raced, "still paused");
    input.resume();
    assertEquals(decoder.decode((await next).value), "2}\n");
    assertEquals(decoder.decode(input.pause()), "");
    input.resume();
    closeFd(writeEnd);
    assertEquals((await reader.read()).done, true);
  } finally {
    closeFd(readEnd);
  }
});

Deno.test("FdInput.ready: false on an empty pipe, true once bytes (or the end of input) are there, and never waits", () => {
  const [readEnd, writeEnd] = makePipe();
  try {
    const input = new FdInput(readEnd);
    assertEquals(input.ready(), false);
    writeSome(writeEnd, encoder.encode("x"));
    assertEquals(input.ready(), true);
    closeFd(writeEnd);
    assertEquals(input.ready(), true);
  } finally {
    closeFd(readEnd);
  }
});
