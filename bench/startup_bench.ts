/**
 * Server start-up and round-trip latency over stdio: `--version`, spawn to
 * the initialize response and to the first tools/list response, the RSS at
 * each, and 1,000 sequential server_info calls (p50/p99), against a
 * baseline measured in the same run, interleaved: spawning `deno run` of an
 * empty script.
 */
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";

const RUNS = Number(Deno.env.get("BENCH_STARTUP_RUNS") ?? 9);
/** How long after tools/list the idle RSS is read. */
const IDLE_MS = 1000;
const CALLS = Number(Deno.env.get("BENCH_SERVER_INFO_CALLS") ?? 1000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-bench-" }));
const empty = `${workspace}/empty.ts`;
await Deno.writeTextFile(empty, "");

const baseline: number[] = [];

/** Resident set of `pid` now, in MiB. */
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${pid}/status`))![1]) / 1024;

/**
 * spawn → initialize and spawn → tools/list answered over raw JSON lines: a client that answers initialize at
 * once and parses nothing (the SDK client compiles every tool's output schema when tools/list arrives).
 */
async function rawStart(): Promise<{ initialize: number; list: number }> {
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: serverArgs,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const line = (message: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  await line({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  const times = { initialize: 0, list: 0 };
  let buffered = "";
  for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const { id } = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      if (id === 1) {
        times.initialize = performance.now() - start;
        await line({ jsonrpc: "2.0", method: "notifications/initialized" });
        await line({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      } else if (id === 2) {
        times.list = performance.now() - start;
        await writer.close();
      }
    }
  }
  await child.status;
  return times;
}

const rawInitialize: number[] = [];
const rawList: number[] = [];
const version: number[] = [];
const startup: number[] = [];
const listed: number[] = [];
const rssAtInitialize: number[] = [];
const rssIdle: number[] = [];
let client: Client | null = null;
const serverArgs = [...sourceRunArgs({ http: null }), "--workspace", workspace];
for (let i = 0; i < RUNS; i++) {
  let start = performance.now();
  await new Deno.Command(Deno.execPath(), { args: ["run", empty], stdout: "null", stderr: "null" }).output();
  baseline.push(performance.now() - start);
  start = performance.now();
  await new Deno.Command(Deno.execPath(), { args: [...serverArgs, "--version"], stdout: "null" }).output();
  version.push(performance.now() - start);
  const raw = await rawStart();
  rawInitialize.push(raw.initialize);
  rawList.push(raw.list);
  start = performance.now();
  const transport = new StdioClientTransport({ command: Deno.execPath(), args: serverArgs, stderr: "ignore" });
  const candidate = new Client({ name: "bench", version: "1" });
  await candidate.connect(transport);
  startup.push(performance.now() - start);
  rssAtInitialize.push(rssMiB(transport.pid!));
  await candidate.listTools();
  listed.push(performance.now() - start);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  rssIdle.push(rssMiB(transport.pid!));
  if (i < RUNS - 1) await candidate.close();
  else client = candidate;
}

const calls: number[] = [];
for (let i = 0; i < CALLS; i++) {
  const start = performance.now();
  await client!.callTool({ name: "server_info", arguments: {} });
  calls.push(performance.now() - start);
}
await client!.close();
await Deno.remove(workspace, { recursive: true });
calls.sort((a, b) => a - b);

const f = (ms: number) => ms.toFixed(1);
const base = median(baseline);
const row = (what: string, values: number[]) =>
  `| ${what}, median of ${RUNS} (ms) | ${f(median(values))} | ${f(base)} (\`deno run\` empty script) | ${
    (median(values) / base).toFixed(2)
  }× |`;
console.log(`## Start-up and server_info latency (stdio)

spawn → answers through the SDK's stdio client, runs interleaved with the baseline; RSS is the server's VmRSS when
initialize has been answered and ${IDLE_MS} ms after the first tools/list. The initialize answer comes from main.ts
before the server's modules load (docs/performance.md); tools/list waits for them.

| measurement | workcell | baseline | ratio |
| --- | ---: | ---: | ---: |
${row("`--version`", version)}
${row("spawn → initialize response (SDK client)", startup)}
${row("spawn → first tools/list response (SDK client, its parsing included)", listed)}
${row("spawn → initialize response (raw JSON lines)", rawInitialize)}
${row("spawn → first tools/list response (raw JSON lines)", rawList)}
| RSS when initialize is answered, median (MiB) | ${median(rssAtInitialize).toFixed(0)} | | |
| RSS idle after tools/list, median (MiB) | ${median(rssIdle).toFixed(0)} | | |
| server_info p50 over ${CALLS} sequential calls (ms) | ${f(percentile(calls, 50))} | | |
| server_info p99 over ${CALLS} sequential calls (ms) | ${f(percentile(calls, 99))} | | |`);
