import { assertEquals } from "../../testing/assert.ts";
import { closeFd, makePipe, writeSome } from "../os/fd.ts";
import { FdInput } from "./fd_input.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

Deno.test("FdInput: hands out what the fd gives, chunk by chunk, then its end; readyWithin reads nothing", async () => {
  const [readEnd, writeEnd] = makePipe();
  try {
    const input = new FdInput(readEnd);
    const reader = input.readable.getReader();
    assertEquals(await input.readyWithin(10), false);
    writeSome(writeEnd, encoder.encode('{"a":1}\n{"b":'));
    assertEquals(await input.readyWithin(1000), true);
    assertEquals(decoder.decode((await reader.read()).value), '{"a":1}\n{"b":');
    writeSome(writeEnd, encoder.encode("2}\n"));
    assertEquals(decoder.decode((await reader.read()).value), "2}\n");
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
