/**
 * Overhead of the command gate and the Landlock sandbox per exec.
 *
 * 1. exec_command round trip through the SDK client of `true` in safe mode
 *    (gate + argv + sandbox worker), trusted mode (gate + `sh -c` + sandbox
 *    worker) and dangerous mode (no gate, no sandbox, `sh -c`), the three
 *    servers interleaved in one run. trusted vs dangerous isolates the
 *    gate + sandbox cost for the same argv.
 * 2. At domain level: the gate alone (checkCommand) and the spawn alone
 *    (sandbox worker vs direct posix_spawnp on the main thread).
 */
import { startServer } from "../tests/harness.ts";
import { checkCommand } from "../src/policy/gate.ts";
import { gatesInForce } from "../src/policy/modes.ts";
import { Sandbox } from "../src/policy/sandbox.ts";
import { landlockRuleset } from "../src/policy/landlock.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";
import { findPerl } from "../src/policy/command_domain.ts";
import { directSpawner } from "../src/exec/spawn.ts";
import type { Spawner } from "../src/exec/spawn_request.ts";
import { closeFd, makePipe, reap } from "../src/exec/fd.ts";

const ROUNDS = 200;
const WARMUP = 20;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9) };
}

const fmt = (ms: number) => ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;

async function execLatencies(): Promise<Record<string, number[]>> {
  const servers = {
    safe: await startServer(),
    trusted: await startServer({ args: ["--mode", "trusted"] }),
    dangerous: await startServer({ args: ["--mode", "dangerous"] }),
  };
  const samples: Record<string, number[]> = { safe: [], trusted: [], dangerous: [] };
  try {
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      for (const [mode, server] of Object.entries(servers)) {
        const start = performance.now();
        const result = await server.call("exec_command", { cmd: "true" });
        const elapsed = performance.now() - start;
        if (result.isError || result.structured.exit_code !== 0) throw new Error(`${mode}: ${result.text}`);
        if (round >= WARMUP) samples[mode].push(elapsed);
      }
    }
  } finally {
    for (const server of Object.values(servers)) await server.close();
  }
  return samples;
}

async function spawnLatency(spawner: Spawner, cwd: string): Promise<number[]> {
  const samples: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const [inR, inW] = makePipe();
    const start = performance.now();
    const pid = await spawner({
      argv: ["/bin/true"],
      env: { PATH: "/usr/bin:/bin" },
      cwd,
      stdio: { stdin: inR, stdout: inW, stderr: inW },
    });
    closeFd(inR);
    closeFd(inW);
    while (!reap(pid)) {
      // spin: a timer would add its own granularity to a sub-millisecond measurement
    }
    if (round >= WARMUP) samples.push(performance.now() - start);
  }
  return samples;
}

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-bench-" }));
try {
  console.error("policy bench: exec_command round trips");
  const exec = await execLatencies();
  console.error("policy bench: gate");
  const gateSamples: number[] = [];
  const options = {
    mode: "safe" as const,
    gates: gatesInForce("safe", new Set()),
    workspace,
    cwd: workspace,
    tmpdir: workspace,
  };
  for (let i = 0; i < 2000; i++) {
    const start = performance.now();
    checkCommand("git -c color.ui=always log --oneline -n 5 -- src/main.ts", {}, options);
    gateSamples.push(performance.now() - start);
  }
  const { abi } = probeLandlock();
  console.error("policy bench: spawn");
  const startSandbox = performance.now();
  const sandbox = abi === null
    ? null
    : await Sandbox.start(landlockRuleset(abi, { writable: [workspace], denyTcp: true }));
  const sandboxStartMs = performance.now() - startSandbox;
  const direct = stats(await spawnLatency(directSpawner, workspace));
  const sandboxed = sandbox ? stats(await spawnLatency(sandbox.spawner, workspace)) : null;
  sandbox?.close();
  const perl = abi !== null && abi >= 6 ? findPerl() : null;
  const own = perl ? await Sandbox.start(landlockRuleset(abi!, { writable: [workspace], denyTcp: true }), perl) : null;
  const isolated = own ? stats(await spawnLatency(own.spawner, workspace)) : null;
  own?.close();

  const safe = stats(exec.safe);
  const trusted = stats(exec.trusted);
  const dangerous = stats(exec.dangerous);
  const gate = stats(gateSamples);
  const rows = [
    [
      "exec_command `true` median: safe (argv, sandboxed)",
      fmt(dangerous.median),
      fmt(safe.median),
      (safe.median / dangerous.median).toFixed(2),
    ],
    ["exec_command `true` p90: safe", fmt(dangerous.p90), fmt(safe.p90), (safe.p90 / dangerous.p90).toFixed(2)],
    [
      "exec_command `true` median: trusted (`sh -c`, sandboxed)",
      fmt(dangerous.median),
      fmt(trusted.median),
      (trusted.median / dangerous.median).toFixed(2),
    ],
    [
      "exec_command `true` p90: trusted",
      fmt(dangerous.p90),
      fmt(trusted.p90),
      (trusted.p90 / dangerous.p90).toFixed(2),
    ],
    [
      "spawn to exit of /bin/true: direct vs sandbox worker, shared domain (median)",
      fmt(direct.median),
      sandboxed ? fmt(sandboxed.median) : "n/a",
      sandboxed ? (sandboxed.median / direct.median).toFixed(2) : "n/a",
    ],
    [
      "spawn to exit of /bin/true: direct vs sandbox worker + own domain (perl) (median)",
      fmt(direct.median),
      isolated ? fmt(isolated.median) : "n/a",
      isolated ? (isolated.median / direct.median).toFixed(2) : "n/a",
    ],
    ["gate only: checkCommand of a git command (median)", "—", fmt(gate.median), "—"],
    ["sandbox worker start-up (once per policy)", "—", fmt(sandboxStartMs), "—"],
  ];
  console.log([
    "## Command policy: gate + Landlock overhead per exec",
    "",
    `${ROUNDS} rounds after ${WARMUP} warm-up, safe and dangerous servers interleaved in one run; Landlock ABI ${
      abi ?? "unavailable"
    }. ` +
    "Safe runs `true` as argv from the sandbox worker, trusted `/bin/sh -c true` from the sandbox worker, dangerous `/bin/sh -c true` directly.",
    "",
    "| measure | dangerous / direct | gated + sandboxed | ratio |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n"));
} finally {
  await Deno.remove(workspace, { recursive: true });
}
