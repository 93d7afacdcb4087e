/**
 * `deno task bench sandbox`: what the confinement of the server's own
 * children costs, against the server before it, in one interleaved run.
 *
 * The baseline is the commit before the launcher (BASELINE_REF, overridable
 * with WORKCELL_BENCH_BASELINE): commands from a Landlock worker thread with
 * a Perl domain per command, git unsandboxed through Deno.Command, rg from
 * its own worker. The current server runs every child through the launcher
 * (mount namespace, Landlock, seccomp, capabilities). Both serve copies of
 * the same small repository; each round calls each case on both servers,
 * alternating which goes first.
 *
 * Prints one Markdown section to stdout; diagnostics go to stderr.
 */
import { exportCommit } from "./baseline_tree.ts";
import * as path from "node:path";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { commitAll, importHistory, writeFiles } from "../testing/git_fixtures.ts";

/** The last commit before the launcher. */
const BASELINE_REF = Deno.env.get("WORKCELL_BENCH_BASELINE") ?? "6e0851b8362b8d10f097e316f363004bab50fcd8";
const ROOT = new URL("..", import.meta.url).pathname;
const DATA = path.join(ROOT, "bench/.data");
const ROUNDS = Number(Deno.env.get("SANDBOX_BENCH_ROUNDS") ?? 150);
const WARMUP = 15;

const log = (message: string) => console.error(`sandbox_bench: ${message}`);

/** The baseline's sources, exported once from git into bench/.data. */
async function baselineCheckout(): Promise<string> {
  const dir = path.join(DATA, `baseline-${BASELINE_REF.slice(0, 12)}`);
  log(`exporting ${BASELINE_REF} to ${path.relative(ROOT, dir)} (once) and installing its dependencies`);
  await exportCommit(BASELINE_REF, dir);
  return dir;
}

/** A repository of 300 commits and 200 files, one of them dirty. */
async function repository(dir: string): Promise<void> {
  await importHistory(dir, 300);
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) files[`src/f${i}.ts`] = `export const v${i} = ${i};\n// TODO ${i}\n`;
  await writeFiles(dir, files);
  await commitAll(dir, "files");
  await writeFiles(dir, { "src/f1.ts": "changed\n" });
}

async function connect(checkout: string, workspace: string, mode: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      ...sourceRunArgs({ http: null }).map((arg) =>
        arg.startsWith(ROOT) ? path.join(checkout, path.relative(ROOT, arg)) : arg
      ),
      "--workspace",
      workspace,
      "--mode",
      mode,
    ],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" },
    stderr: "ignore",
  });
  const client = new Client({ name: "sandbox-bench", version: "1" });
  await client.connect(transport);
  return client;
}

const CASES: { name: string; mode: string; tool: string; args: Record<string, unknown> }[] = [
  { name: "exec_command `true`, safe", mode: "safe", tool: "exec_command", args: { cmd: "true" } },
  { name: "exec_command `true`, trusted", mode: "trusted", tool: "exec_command", args: { cmd: "true" } },
  { name: "git_status", mode: "safe", tool: "git_status", args: {} },
  { name: "git_diff (work tree)", mode: "safe", tool: "git_diff", args: {} },
  { name: "git_log (20 commits)", mode: "safe", tool: "git_log", args: {} },
  { name: "git_blame", mode: "safe", tool: "git_blame", args: { path: "src/f1.ts", rev: "HEAD" } },
  { name: "search_text, capped at 20", mode: "safe", tool: "search_text", args: { pattern: "TODO", max_results: 20 } },
];

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const baseline = await baselineCheckout();
const workspaces = { current: path.join(DATA, "sandbox-ws-current"), baseline: path.join(DATA, "sandbox-ws-baseline") };
for (const dir of Object.values(workspaces)) {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await repository(dir);
}
const clients: Record<string, Record<string, Client>> = { current: {}, baseline: {} };
for (const mode of ["safe", "trusted"]) {
  clients.current[mode] = await connect(ROOT, workspaces.current, mode);
  clients.baseline[mode] = await connect(baseline, workspaces.baseline, mode);
}
const samples: Record<string, { current: number[]; baseline: number[] }> = {};
try {
  for (const item of CASES) {
    samples[item.name] = { current: [], baseline: [] };
    log(item.name);
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const order = round % 2 === 0 ? ["current", "baseline"] as const : ["baseline", "current"] as const;
      for (const side of order) {
        const start = performance.now();
        const result = await clients[side][item.mode].callTool({ name: item.tool, arguments: item.args });
        const elapsed = performance.now() - start;
        if (result.isError) throw new Error(`${side} ${item.name}: ${JSON.stringify(result.content)}`);
        if (round >= WARMUP) samples[item.name][side].push(elapsed);
      }
    }
  }
} finally {
  for (const side of Object.values(clients)) for (const client of Object.values(side)) await client.close();
}
const rows = CASES.map((item) => {
  const { current, baseline: before } = samples[item.name];
  const [now, then] = [median(current), median(before)];
  return `| ${item.name} | ${then.toFixed(2)} ms | ${now.toFixed(2)} ms | ${(now / then).toFixed(2)}× |`;
});
console.log([
  "## Sandbox of the server's own children: cost per call against the server before it",
  "",
  `Median of ${ROUNDS} rounds after ${WARMUP} warm-up, both servers interleaved (alternating first), over the SDK ` +
  `client on stdio. Before: \`${BASELINE_REF.slice(0, 12)}\` (commands from a Landlock worker thread with a Perl ` +
  "domain each; git unsandboxed; rg from a worker). Now: every child through the launcher (safe commands: mount " +
  "namespace, Landlock with the credential rules, seccomp, capabilities; git and rg: read-only Landlock, seccomp, " +
  "capabilities).",
  "",
  "| call | before | now | ratio |",
  "|---|---:|---:|---:|",
  ...rows,
].join("\n"));
