/**
 * `deno task bench npm`: start-up of the npm package's bin against
 * `deno task start` from the checkout, measured in the same run: spawn to
 * initialize response, through the same SDK client.
 * - baseline: `deno task start`, median of RUNS warm starts;
 * - `npm install -g` of the packed tarball into a fresh prefix, with an empty npm cache (the deno
 *   package, about 40 MB, comes from the registry, as on a user's first `npx -y workcell`) and warm;
 * - first start of the installed bin with an empty DENO_DIR, so the npm dependencies come from the
 *   registry (median, min and max of FIRST_RUNS, each with DENO_DIR and app/node_modules removed: the
 *   registry's latency varies a lot from one try to the next here);
 * - first start with Deno's cache warm (only app/node_modules is laid out), likewise;
 * - warm starts of the bin, median of RUNS.
 */
import * as path from "node:path";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { packNpmPackage } from "../packaging/npm_package.ts";
import { npm } from "../tasks/npm_tools.ts";

const RUNS = Number(Deno.env.get("BENCH_NPM_RUNS") ?? 5);
const FIRST_RUNS = Number(Deno.env.get("BENCH_NPM_FIRST_RUNS") ?? 3);
const config = new URL("../deno.json", import.meta.url).pathname;
const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-npm-bench-" }));
const workspace = path.join(scratch, "ws");
await Deno.mkdir(workspace);
// The whole environment, as a client passes it: npm and Deno need its proxy and CA settings to reach the registry.
const baseEnv = Deno.env.toObject();

/** Spawn to initialize response, in ms. */
async function startup(command: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  const start = performance.now();
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, env: { ...baseEnv, ...env }, stderr: "ignore" }));
  const ms = performance.now() - start;
  await client.close();
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function repeat(runs: number, run: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await run());
  return times;
}

const remove = (dir: string) => Deno.remove(dir, { recursive: true }).catch(() => {});

const tarball = await packNpmPackage(path.join(scratch, "out"));
const task = () => startup(Deno.execPath(), ["task", "--quiet", "--config", config, "start", "--workspace", workspace]);
await task(); // the checkout's own first run, not measured
const baseline = median(await repeat(RUNS, task));

/** `npm install -g` of the tarball into a fresh prefix, in ms. */
async function install(prefix: string, extra: string[] = []): Promise<number> {
  const start = performance.now();
  await npm(["install", "--global", "--prefix", prefix, ...extra, tarball], { cwd: scratch });
  return performance.now() - start;
}
const coldInstallMs = await install(path.join(scratch, "cold-cache"), ["--cache", path.join(scratch, "npm-cache")]);
const prefix = path.join(scratch, "prefix");
const installMs = await install(prefix);
const bin = path.join(prefix, "bin", "workcell");
const laidOut = path.join(prefix, "lib", "node_modules", "workcell", "app", "node_modules");
const denoDir = path.join(scratch, "deno-dir");
const coldFirst = await repeat(FIRST_RUNS, async () => {
  await remove(denoDir);
  await remove(laidOut);
  return await startup(bin, ["--workspace", workspace], { DENO_DIR: denoDir });
});
const warmCacheFirst = await repeat(FIRST_RUNS, async () => {
  await remove(laidOut);
  return await startup(bin, ["--workspace", workspace]);
});
const warm = median(await repeat(RUNS, () => startup(bin, ["--workspace", workspace])));
await remove(scratch);

const s = (ms: number) => (ms / 1000).toFixed(2);
const ratio = (ms: number) => `${(ms / baseline).toFixed(2)}×`;
const spread = (times: number[]) => `${s(median(times))} (${s(Math.min(...times))}–${s(Math.max(...times))})`;
console.log(`## npm package start-up (spawn → initialize response)

| measurement | time (s) | vs \`deno task start\` |
| --- | ---: | ---: |
| \`deno task start\` from the checkout, warm, median of ${RUNS} (baseline) | ${s(baseline)} | 1.00× |
| \`npm install -g\` of the tarball into a fresh prefix, empty npm cache (deno from the registry) | ${
  s(coldInstallMs)
} | |
| \`npm install -g\` of the tarball into a fresh prefix, npm cache warm | ${s(installMs)} | |
| npm bin, first start, empty DENO_DIR (dependencies from the registry), median (min–max) of ${FIRST_RUNS} | ${
  spread(coldFirst)
} | ${ratio(median(coldFirst))} |
| npm bin, first start, Deno's cache warm (app/node_modules laid out), median (min–max) of ${FIRST_RUNS} | ${
  spread(warmCacheFirst)
} | ${ratio(median(warmCacheFirst))} |
| npm bin, warm, median of ${RUNS} | ${s(warm)} | ${ratio(warm)} |`);
