/**
 * exec_command benchmark: spawn-to-result latency of `true` against a raw
 * Deno.Command spawn in this same process, flood throughput against the
 * same pipeline into /dev/null, the server's peak RSS during a 1 GiB flood,
 * and the same commands through @wonderwhy-er/desktop-commander's
 * start_process (when installed in bench/.data/peers).
 *
 * Run: deno task bench exec
 */
import { startServer } from "../tests/harness.ts";
import { connectPeer, PEERS } from "./peers.ts";
import { median, timeRuns as medianRuns } from "./timing.ts";

const LATENCY_RUNS = 40;
const FLOOD_BYTES = 1024 * 1024 * 1024;
/** The peer keeps all output in memory and returns it inline: flood it with less. */
const PEER_FLOOD_BYTES = 32 * 1024 * 1024;
/** A command that finishes after a known sleep: polling it measures how soon a poll returns at exit. */
const SLOW_COMMAND = "sleep 0.3; echo done";
const SLOW_SLEEP_MS = 300;
const POLL_RUNS = 10;
const floodCommand = (bytes: number) => `yes 0123456789abcdef | head -c ${bytes}`;

function timeRuns(run: () => Promise<unknown>, runs = LATENCY_RUNS): Promise<number> {
  return medianRuns(run, runs);
}

function peakRssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** Medians of runs that alternate between the candidates, so machine load hits them alike. */
async function timeInterleaved(runs: Record<string, () => Promise<unknown>>): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = {};
  for (const [name, run] of Object.entries(runs)) {
    await run(); // warm-up
    samples[name] = [];
  }
  for (let i = 0; i < LATENCY_RUNS; i++) {
    for (const [name, run] of Object.entries(runs)) {
      const started = performance.now();
      await run();
      samples[name].push(performance.now() - started);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

// The runner alone: dangerous mode has no gate and no sandbox (bench/policy_bench.ts measures what they add).
const server = await startServer({ args: ["--mode", "dangerous"] });
const serverPid = Number((await server.call("exec_command", { cmd: "echo $PPID" })).structured.stdout.trim());
const latency = await timeInterleaved({
  rawTrue: () => new Deno.Command("true", { stdin: "null" }).output(),
  rawShTrue: () => new Deno.Command("/bin/sh", { args: ["-c", "true"], stdin: "null" }).output(),
  oursTrue: () => server.call("exec_command", { cmd: "true" }),
  // The protocol's own cost: a call that fails before doing anything.
  roundTrip: () => server.call("read_output", { output_ref: "x" }),
});
const { rawTrue, rawShTrue, oursTrue, roundTrip } = latency;
const oursNet = oursTrue - roundTrip;
const floodStarted = performance.now();
await new Deno.Command("/bin/sh", { args: ["-c", `${floodCommand(FLOOD_BYTES)} | cat > /dev/null`] }).output();
const rawFloodSeconds = (performance.now() - floodStarted) / 1000;
const idleRss = rssMiB(serverPid);
const oursFloodStarted = performance.now();
const flood = await server.call("exec_command", { cmd: floodCommand(FLOOD_BYTES), yield_time_ms: 300000 });
const oursFloodSeconds = (performance.now() - oursFloodStarted) / 1000;
if (flood.structured.stdout_total_bytes !== FLOOD_BYTES) throw new Error(`flood lost bytes: ${flood.text}`);
const oursPeakRss = peakRssMiB(serverPid);
const oursPoll = await timeRuns(async () => {
  const started = await server.call("exec_command", { cmd: SLOW_COMMAND, yield_time_ms: 0 });
  const done = await server.call("write_stdin", { command_id: started.structured.command_id, yield_time_ms: 5000 });
  if (done.structured.stdout !== "done\n") throw new Error(`poll lost output: ${done.text}`);
}, POLL_RUNS);
await server.close();

interface PeerResult {
  trueMs: number;
  pollMs: number;
  floodMBps: number;
  peakRss: number;
}

async function measurePeer(): Promise<PeerResult | string> {
  const workspace = await Deno.makeTempDir({ prefix: "peer-ws-" });
  let peer;
  try {
    peer = await connectPeer(PEERS.desktopCommander, workspace);
  } catch (error) {
    return `failed to start: ${(error as Error).message}`;
  }
  const client = peer.client;
  const start = (command: string, timeout: number) =>
    client.callTool({ name: "start_process", arguments: { command, timeout_ms: timeout } });
  try {
    const trueMs = await timeRuns(() => start("true", 10000));
    const pollMs = await timeRuns(async () => {
      const started = await start(SLOW_COMMAND, 1);
      const text = (started.content as { text: string }[])[0].text;
      const pid = Number(/PID (\d+)/.exec(text)?.[1]);
      const output = await client.callTool({ name: "read_process_output", arguments: { pid, timeout_ms: 5000 } });
      const body = (output.content as { text: string }[]).map((block) => block.text).join("");
      if (!body.includes("done")) throw new Error(`peer poll lost output: ${body}`);
    }, POLL_RUNS);
    const started = performance.now();
    await start(floodCommand(PEER_FLOOD_BYTES), 120000);
    const seconds = (performance.now() - started) / 1000;
    return { trueMs, pollMs, floodMBps: PEER_FLOOD_BYTES / 1e6 / seconds, peakRss: peakRssMiB(peer.pid) };
  } finally {
    await peer.close();
    await Deno.remove(workspace, { recursive: true }).catch(() => {});
  }
}
const peer = await measurePeer();

const mbps = (bytes: number, seconds: number) => bytes / 1e6 / seconds;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const rows = [
  "| measurement | workcell | baseline | ratio |",
  "|---|---|---|---|",
  `| \`true\`: exec_command round trip vs raw Deno.Command("true") | ${ms(oursTrue)} | ${ms(rawTrue)} | ${
    (oursTrue / rawTrue).toFixed(2)
  }x |`,
  `| \`true\`: exec_command (runs \`sh -c true\`) vs raw Deno.Command("sh -c true") | ${ms(oursTrue)} | ${
    ms(rawShTrue)
  } | ${(oursTrue / rawShTrue).toFixed(2)}x |`,
  `| MCP round trip of a no-op call (read_output refusing a bad ref) | ${ms(roundTrip)} | | |`,
  // exec_command runs `sh -c`, and every call is a round trip: no runner can answer sooner than both together.
  `| floor: the round trip + raw Deno.Command("sh -c true"), vs raw Deno.Command("true") | ${
    ms(roundTrip + rawShTrue)
  } | ${ms(rawTrue)} | ${((roundTrip + rawShTrue) / rawTrue).toFixed(2)}x |`,
  `| \`true\` spawn-to-result without the round trip vs raw Deno.Command("sh -c true") (goal <= 1.3x) | ${
    ms(oursNet)
  } | ${ms(rawShTrue)} | ${(oursNet / rawShTrue).toFixed(2)}x |`,
  `| 1 GiB flood throughput vs the same pipeline \`\\| cat > /dev/null\` | ${
    mbps(FLOOD_BYTES, oursFloodSeconds).toFixed(0)
  } MB/s | ${mbps(FLOOD_BYTES, rawFloodSeconds).toFixed(0)} MB/s | ${
    (rawFloodSeconds / oursFloodSeconds).toFixed(2)
  }x |`,
  `| server peak RSS during the 1 GiB flood (goal < 150 MiB) vs idle RSS | ${oursPeakRss.toFixed(0)} MiB | ${
    idleRss.toFixed(0)
  } MiB | ${(oursPeakRss / idleRss).toFixed(2)}x |`,
];
const peerRows = typeof peer === "string" ? [`desktop-commander: ${peer}`] : [
  "| desktop-commander 0.2.52 (start_process) | workcell | desktop-commander | ratio |",
  "|---|---|---|---|",
  `| \`true\` round trip | ${ms(oursTrue)} | ${ms(peer.trueMs)} | ${(peer.trueMs / oursTrue).toFixed(2)}x slower |`,
  `| \`${SLOW_COMMAND}\`: start + one poll until exit, beyond the ${SLOW_SLEEP_MS} ms sleep | ${
    ms(oursPoll - SLOW_SLEEP_MS)
  } | ${ms(peer.pollMs - SLOW_SLEEP_MS)} | ${
    ((peer.pollMs - SLOW_SLEEP_MS) / (oursPoll - SLOW_SLEEP_MS)).toFixed(1)
  }x |`,
  `| flood throughput (workcell 1 GiB, peer ${PEER_FLOOD_BYTES >> 20} MiB) | ${
    mbps(FLOOD_BYTES, oursFloodSeconds).toFixed(0)
  } MB/s | ${peer.floodMBps.toFixed(0)} MB/s | ${(mbps(FLOOD_BYTES, oursFloodSeconds) / peer.floodMBps).toFixed(1)}x |`,
  `| server peak RSS (after the floods above) | ${oursPeakRss.toFixed(0)} MiB | ${peer.peakRss.toFixed(0)} MiB | ${
    (peer.peakRss / oursPeakRss).toFixed(2)
  }x |`,
];
console.log(
  [
    "## exec_command",
    "",
    `Median of ${LATENCY_RUNS} sequential calls over stdio (MCP round trip included), server in \`--mode dangerous\` ` +
    "(the runner alone; the policy section measures the gate and sandbox); floods are `yes | head -c N`.",
    "",
    ...rows,
    "",
    ...peerRows,
  ].join("\n"),
);
