/**
 * Server start-up and round-trip latency over stdio: spawn to initialize
 * response, and 1,000 sequential server_info calls (p50/p99), against a
 * baseline measured in the same run: spawning `deno run` of an empty script.
 */
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";

const RUNS = Number(Deno.env.get("BENCH_STARTUP_RUNS") ?? 5);
const CALLS = Number(Deno.env.get("BENCH_SERVER_INFO_CALLS") ?? 1000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-bench-" }));
const empty = `${workspace}/empty.ts`;
await Deno.writeTextFile(empty, "");

const baseline: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  await new Deno.Command(Deno.execPath(), { args: ["run", empty], stdout: "null", stderr: "null" }).output();
  baseline.push(performance.now() - start);
}

const startup: number[] = [];
let client: Client | null = null;
for (let i = 0; i < RUNS; i++) {
  const start = performance.now();
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [...sourceRunArgs({ writeRoot: workspace, http: null }), "--workspace", workspace],
    stderr: "ignore",
  });
  const candidate = new Client({ name: "bench", version: "1" });
  await candidate.connect(transport);
  startup.push(performance.now() - start);
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
console.log(`## Start-up and server_info latency (stdio)

| measurement | workcell | baseline | ratio |
| --- | ---: | ---: | ---: |
| spawn → initialize response, median of ${RUNS} (ms) | ${f(median(startup))} | ${
  f(median(baseline))
} (\`deno run\` empty script) | ${(median(startup) / median(baseline)).toFixed(2)}× |
| server_info p50 over ${CALLS} sequential calls (ms) | ${f(percentile(calls, 50))} | | |
| server_info p99 over ${CALLS} sequential calls (ms) | ${f(percentile(calls, 99))} | | |`);
