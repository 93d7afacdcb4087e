/**
 * A 1 GiB output flood through exec_command: bounded server memory, exact
 * gap accounting in read_output.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer } from "./harness.ts";
import { COMMAND_LIMITS } from "../src/exec/limits.ts";

const FLOOD_BYTES = 1024 * 1024 * 1024;
/** Peak resident memory the server may reach while flooded (Deno itself takes about half of it). */
const MAX_SERVER_RSS_BYTES = 150 * 1024 * 1024;

const LINE = "0123456789abcdef\n";

/** The flood's bytes [start, end) as text (the line repeats). */
function expected(start: number, end: number): string {
  let text = "";
  for (let offset = start; offset < end; offset++) text += LINE[offset % LINE.length];
  return text;
}

function peakRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

Deno.test("a 1 GiB flood: bounded RSS, head and tail retained, the gap reported", async () => {
  await using server = await startServer({ args: ["--mode", "trusted"] });
  const pid = Number((await server.call("exec_command", { cmd: "echo $PPID" })).structured.stdout.trim());
  const started = performance.now();
  const result = await server.call("exec_command", {
    cmd: `yes 0123456789abcdef | head -c ${FLOOD_BYTES}`,
    yield_time_ms: 120000,
  });
  const seconds = (performance.now() - started) / 1000;
  console.error(
    `flood: ${seconds.toFixed(1)} s, ${(FLOOD_BYTES / 1e6 / seconds).toFixed(0)} MB/s, peak RSS ${
      peakRss(pid) >> 20
    } MiB`,
  );
  const data = result.structured;
  assertEquals([data.status, data.exit_code, data.stdout_total_bytes], ["exited", 0, FLOOD_BYTES]);
  assert(data.stdout_truncated && data.stdout.startsWith("0123456789abcdef\n"), data.stdout.slice(0, 100));
  assert(peakRss(pid) < MAX_SERVER_RSS_BYTES, `server peak RSS ${peakRss(pid)} bytes`);

  const head = COMMAND_LIMITS.perStreamBytes / 8;
  const tailStart = FLOOD_BYTES - (COMMAND_LIMITS.perStreamBytes - head);
  const ref = `command:${data.command_id}:stdout`;
  const first = await server.call("read_output", { output_ref: ref, offset: head - 17, limit: 65536 });
  assertEquals(first.structured.retained, [{ start: 0, end: head }, { start: tailStart, end: FLOOD_BYTES }]);
  assertEquals([first.structured.data, first.structured.next_offset], [expected(head - 17, head), head]);
  assertEquals(first.structured.omitted_bytes, FLOOD_BYTES - COMMAND_LIMITS.perStreamBytes);
  const gap = await server.call("read_output", { output_ref: ref, offset: head, limit: 17 });
  assertEquals([gap.structured.offset, gap.structured.evicted_gap_bytes], [tailStart, tailStart - head]);
  assertEquals(gap.structured.data, expected(tailStart, tailStart + 17));
  const last = await server.call("read_output", { output_ref: ref, offset: FLOOD_BYTES - 10, limit: 100 });
  assertEquals([last.structured.eof, last.structured.next_offset], [true, FLOOD_BYTES]);
});
