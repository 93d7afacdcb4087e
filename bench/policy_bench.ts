/**
 * Overhead of the command gate and the sandbox per exec.
 *
 * 1. exec_command round trip through the SDK client of `true` in safe mode
 *    (gate + argv + launcher with the safe plan), trusted mode (gate +
 *    `sh -c` + launcher with the trusted plan) and dangerous mode (no gate,
 *    no sandbox, `sh -c`), the three servers interleaved in one run.
 * 2. At domain level: the gate alone (checkCommand) and the spawn alone
 *    (the launcher with each plan vs a direct posix_spawnp).
 */
import { startServer } from "../tests/harness.ts";
import { checkCommand } from "../src/policy/gate.ts";
import { diskPaths } from "../src/policy/gate_paths.ts";
import { gatesInForce } from "../src/policy/modes.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";
import { ChildSandboxes } from "../src/policy/linux_spawners.ts";
import { openWorkspace } from "../src/workspace/workspace.ts";
import { directSpawner } from "../src/os/spawn.ts";
import { rgPath } from "@vscode/ripgrep";
import type { Spawner } from "../src/os/spawn_request.ts";
import { closeFd, makePipe, reap } from "../src/os/fd.ts";
import { formatMs, latencyStats } from "./latency.ts";

const ROUNDS = 200;
const WARMUP = 20;

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
    paths: diskPaths(workspace, workspace),
  };
  for (let i = 0; i < 2000; i++) {
    const start = performance.now();
    checkCommand("git -c color.ui=always log --oneline -n 5 -- src/main.ts", {}, options);
    gateSamples.push(performance.now() - start);
  }
  const landlock = probeLandlock();
  const abi = landlock.abi;
  console.error("policy bench: spawn");
  const children = new ChildSandboxes(openWorkspace(workspace), {
    tmpdir: null,
    env: Deno.env.toObject(),
    landlock,
    ripgrep: { path: rgPath, fd: null },
  });
  const startProbe = performance.now();
  await children.facts();
  const probeMs = performance.now() - startProbe;
  const direct = latencyStats(await spawnLatency(directSpawner, workspace));
  const safeSpawn = latencyStats(await spawnLatency(children.commandSpawner("safe", new Set()), workspace));
  const trustedSpawn = latencyStats(await spawnLatency(children.commandSpawner("trusted", new Set()), workspace));

  const safe = latencyStats(exec.safe);
  const trusted = latencyStats(exec.trusted);
  const dangerous = latencyStats(exec.dangerous);
  const gate = latencyStats(gateSamples);
  const rows = [
    [
      "exec_command `true` median: safe (argv, sandboxed)",
      formatMs(dangerous.median),
      formatMs(safe.median),
      (safe.median / dangerous.median).toFixed(2),
    ],
    [
      "exec_command `true` p90: safe",
      formatMs(dangerous.p90),
      formatMs(safe.p90),
      (safe.p90 / dangerous.p90).toFixed(2),
    ],
    [
      "exec_command `true` median: trusted (`sh -c`, sandboxed)",
      formatMs(dangerous.median),
      formatMs(trusted.median),
      (trusted.median / dangerous.median).toFixed(2),
    ],
    [
      "exec_command `true` p90: trusted",
      formatMs(dangerous.p90),
      formatMs(trusted.p90),
      (trusted.p90 / dangerous.p90).toFixed(2),
    ],
    [
      "spawn to exit of /bin/true: direct vs launcher, safe plan (median)",
      formatMs(direct.median),
      formatMs(safeSpawn.median),
      (safeSpawn.median / direct.median).toFixed(2),
    ],
    [
      "spawn to exit of /bin/true: direct vs launcher, trusted plan (median)",
      formatMs(direct.median),
      formatMs(trustedSpawn.median),
      (trustedSpawn.median / direct.median).toFixed(2),
    ],
    ["gate only: checkCommand of a git command (median)", "—", formatMs(gate.median), "—"],
    ["sandbox probe (launcher made, namespaces and seccomp tried; once per process)", "—", formatMs(probeMs), "—"],
  ];
  console.log([
    "## Command policy: gate + sandbox overhead per exec",
    "",
    `${ROUNDS} rounds after ${WARMUP} warm-up, safe and dangerous servers interleaved in one run; Landlock ABI ${
      abi ?? "unavailable"
    }. ` +
    "Safe runs `true` as argv through the launcher (mount namespace, Landlock, seccomp, capabilities), trusted `/bin/sh -c true` through the launcher (Landlock, capabilities), dangerous `/bin/sh -c true` directly.",
    "",
    "| measure | dangerous / direct | gated + sandboxed | ratio |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n"));
} finally {
  await Deno.remove(workspace, { recursive: true });
}
