/**
 * Streamable HTTP round trips: 1,000 sequential `server_info` calls over
 * loopback HTTP (with bearer auth) against the same calls over stdio in the
 * same run (the baseline), then 16 concurrent HTTP clients, each in its own
 * session, calling `server_info` for 30 s; every request must come back ok
 * (nothing lost).
 *
 * Knobs: BENCH_HTTP_CALLS (1000), BENCH_HTTP_CLIENTS (16), BENCH_HTTP_SECONDS (30).
 */
import { Client, StdioClientTransport, StreamableHTTPClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";

const CALLS = Number(Deno.env.get("BENCH_HTTP_CALLS") ?? 1000);
const CLIENTS = Number(Deno.env.get("BENCH_HTTP_CLIENTS") ?? 16);
const SECONDS = Number(Deno.env.get("BENCH_HTTP_SECONDS") ?? 30);
const TOKEN = "bench-token-0123456789abcdef";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function sequential(client: Client): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    const result = await client.callTool({ name: "server_info", arguments: {} });
    if (result.isError) throw new Error("server_info failed");
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-bench-http-" }));

// Baseline: stdio.
const stdio = new Client({ name: "bench-stdio", version: "1" });
await stdio.connect(
  new StdioClientTransport({
    command: Deno.execPath(),
    args: [...sourceRunArgs({ http: null }), "--workspace", workspace],
    stderr: "ignore",
  }),
);
const stdioTimes = await sequential(stdio);
await stdio.close();

// HTTP server.
const port = freePort();
const http = { host: "127.0.0.1", port };
const server = new Deno.Command(Deno.execPath(), {
  args: [...sourceRunArgs({ http }), "--workspace", workspace, "--http", `127.0.0.1:${port}`],
  env: { WORKCELL_AUTH_TOKEN: TOKEN },
  stdin: "null",
  stdout: "null",
  stderr: "piped",
}).spawn();
const reader = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
for (let seen = ""; !seen.includes("serving MCP Streamable HTTP");) {
  const { done, value } = await reader.read();
  if (done) throw new Error(`server exited: ${seen}`);
  seen += value;
}
(async () => {
  while (!(await reader.read()).done) { /* drain */ }
})();
const url = new URL(`http://127.0.0.1:${port}/mcp`);

async function connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  const client = new Client({ name, version: "1" });
  await client.connect(transport);
  return { client, transport };
}

const single = await connect("bench-http");
const httpTimes = await sequential(single.client);
await single.transport.terminateSession();
await single.client.close();

// Load: CLIENTS sessions in parallel for SECONDS.
const sessions = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => connect(`bench-load-${i}`)));
const loadTimes: number[] = [];
let sent = 0;
let ok = 0;
let failed = 0;
const end = performance.now() + SECONDS * 1000;
const loadStart = performance.now();
await Promise.all(sessions.map(async ({ client }) => {
  while (performance.now() < end) {
    sent++;
    const start = performance.now();
    try {
      const result = await client.callTool({ name: "server_info", arguments: {} });
      if (result.isError || (result.structuredContent as { ok?: boolean }).ok !== true) failed++;
      else ok++;
    } catch (error) {
      failed++;
      console.error("bench: call failed:", (error as Error).message);
    }
    loadTimes.push(performance.now() - start);
  }
}));
const elapsed = (performance.now() - loadStart) / 1000;
for (const { client, transport } of sessions) {
  await transport.terminateSession().catch(() => {});
  await client.close();
}
loadTimes.sort((a, b) => a - b);
server.kill("SIGTERM");
await server.status;
await Deno.remove(workspace, { recursive: true });

const f = (ms: number) => ms.toFixed(2);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const lost = sent - ok - failed;
console.log(`## Streamable HTTP round trips and concurrent load

\`server_info\` over loopback HTTP with bearer auth (one session), against the same calls over stdio in the same run;
then ${CLIENTS} concurrent clients (one session each) for ${SECONDS} s.

| measurement | HTTP | stdio (baseline) | ratio |
| --- | ---: | ---: | ---: |
| p50 of ${CALLS} sequential calls (ms) | ${f(percentile(httpTimes, 50))} | ${f(percentile(stdioTimes, 50))} | ${
  ratio(percentile(httpTimes, 50), percentile(stdioTimes, 50))
} |
| p99 of ${CALLS} sequential calls (ms) | ${f(percentile(httpTimes, 99))} | ${f(percentile(stdioTimes, 99))} | ${
  ratio(percentile(httpTimes, 99), percentile(stdioTimes, 99))
} |

| ${CLIENTS} clients × ${SECONDS} s | value |
| --- | ---: |
| calls sent | ${sent} |
| answered ok | ${ok} |
| failed | ${failed} |
| lost (sent − ok − failed) | ${lost} |
| throughput (calls/s) | ${(ok / elapsed).toFixed(0)} (${
  ratio(ok / elapsed, 1000 / percentile(httpTimes, 50))
} of one sequential client) |
| latency p50 / p99 under load (ms) | ${f(percentile(loadTimes, 50))} / ${f(percentile(loadTimes, 99))} |`);
if (failed > 0 || lost > 0) Deno.exit(1);
