/**
 * The settle interval of write_stdin (src/exec/registry.ts SETTLE_MS).
 *
 * 1. For interactive programs (pipes and TTYs), each answer to one input is
 *    timed chunk by chunk until the program waits again (its prompt, or the
 *    whole echo): the longest quiet gap inside an answer says how short the
 *    interval may be before a poll returns half an answer. Measured on an
 *    idle machine and again with two busy loops competing for the cores.
 * 2. A five-input Python TTY session through `registry.wait({ settleMs })`
 *    for each candidate interval, against the same session read until each
 *    prompt (the baseline, measured in the same run): the ratio is what the
 *    interval costs per step, and "complete" counts the steps that returned
 *    the whole answer.
 */
import { Reactor } from "../src/os/reactor.ts";
import { CommandRegistry } from "../src/exec/registry.ts";
import type { Command } from "../src/exec/command.ts";
import { directSpawner } from "../src/os/spawn.ts";
import type { CommandPolicy } from "../src/policy/policy.ts";

const ROUNDS = 20;
const CANDIDATES = [100, 150, 200, 300];
const ANSWER_TIMEOUT_MS = 10_000;

const policy: CommandPolicy = {
  plan: (request) =>
    Promise.resolve({
      argv: ["/bin/sh", "-c", request.cmd],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: "/tmp", PS1: "READY> ", ...request.env },
      cwd: request.cwd,
      chdir: request.chdir,
      spawner: directSpawner,
    }),
};
const registry = new CommandRegistry({ policy, tty: { supported: true, reason: null }, reactor: new Reactor() });
const owner = new Set<string>();

interface Program {
  name: string;
  cmd: string;
  tty: boolean;
  input: string;
  /** The program waits again once the output since the input ends like this. */
  done: RegExp;
  /** Output that shows it is ready for the first input. */
  ready: RegExp;
}

const PROGRAMS: Program[] = [
  { name: "cat (pipe)", cmd: "cat", tty: false, input: "hello\n", done: /hello\n$/, ready: /^/ },
  { name: "bc -q (pipe)", cmd: "bc -q", tty: false, input: "2^3000\n", done: /\d\n$/, ready: /^/ },
  {
    name: "python3 -i (tty)",
    cmd: "python3 -q -i",
    tty: true,
    input: "sum(range(10**6))\r",
    done: />>> $/,
    ready: />>> $/,
  },
  {
    name: "python3 compute (tty)",
    cmd: "python3 -q -i",
    tty: true,
    input: "sum(range(4 * 10**6))\r",
    done: />>> $/,
    ready: />>> $/,
  },
  {
    name: "python3 import (tty)",
    cmd: "python3 -q -i",
    tty: true,
    input: "import json, decimal; print(len(dir(decimal)))\r",
    done: />>> $/,
    ready: />>> $/,
  },
  {
    name: "node (tty)",
    cmd: "node -i",
    tty: true,
    input: "[1,2,3].map(x => x * 2)\r",
    // The prompt may end with a cursor-position escape (ESC [ 3 G).
    done: /> (\S+G)?$/,
    ready: /> (\S+G)?$/,
  },
  {
    name: "bash -i (tty)",
    cmd: "bash --norc --noprofile -i",
    tty: true,
    input: "ls /\r",
    done: /READY> $/,
    ready: /READY> $/,
  },
];

const decoder = new TextDecoder();

/** Everything the command wrote to stdout after `from`. */
function textSince(command: Command, from: number): string {
  const stream = command.streams.stdout;
  return decoder.decode(stream.read(from, stream.total - from).bytes);
}

/** Waits until the output since `from` matches `done`; returns the arrival times of its chunks (ms after `t0`). */
async function answer(command: Command, from: number, done: RegExp, t0: number): Promise<number[]> {
  const arrivals: number[] = [];
  const deadline = t0 + ANSWER_TIMEOUT_MS;
  while (!done.test(textSince(command, from))) {
    if (command.status === "exited" || performance.now() > deadline) {
      throw new Error(`${command.cmd}: no answer (${JSON.stringify(textSince(command, from).slice(-80))})`);
    }
    const timer = new Promise((resolve) => setTimeout(resolve, deadline - performance.now()));
    await Promise.race([command.nextOutput(), command.done, timer]);
    if (command.lastOutputAt !== null && command.lastOutputAt >= t0) arrivals.push(command.lastOutputAt - t0);
  }
  return arrivals;
}

async function start(program: Program): Promise<Command> {
  const command = await registry.start(
    { cmd: program.cmd, cwd: "/tmp", chdir: "/tmp", env: {}, tty: program.tty, grants: new Set() },
    owner,
  );
  await answer(command, 0, program.ready, performance.now());
  return command;
}

/** Longest gap between consecutive chunks of each answer, and when the answer was complete. */
async function measureGaps(program: Program): Promise<{ gaps: number[]; complete: number[] }> {
  const command = await start(program);
  const gaps: number[] = [];
  const complete: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const from = command.streams.stdout.total;
      const t0 = performance.now();
      command.write(program.input);
      const arrivals = await answer(command, from, program.done, t0);
      let gap = 0;
      for (let i = 1; i < arrivals.length; i++) gap = Math.max(gap, arrivals[i] - arrivals[i - 1]);
      gaps.push(gap);
      complete.push(arrivals.at(-1) ?? 0);
    }
  } finally {
    await registry.kill(command, "KILL");
  }
  return { gaps, complete };
}

const SESSION: string[] = ["1+1\r", "x = [i * i for i in range(10)]\r", "sum(x)\r", "import os\r", "os.getpid() > 0\r"];

/** Five inputs to a Python TTY: with `settleMs`, as write_stdin waits; without, until each prompt (the baseline). */
async function session(settleMs: number | null): Promise<{ ms: number; complete: number }> {
  const program = PROGRAMS[2];
  const command = await start(program);
  command.cursors.stdout = command.streams.stdout.total;
  let complete = 0;
  const t0 = performance.now();
  try {
    for (const input of SESSION) {
      const from = command.cursors.stdout;
      command.write(input);
      if (settleMs === null) await answer(command, from, program.done, performance.now());
      else await registry.wait(command, ANSWER_TIMEOUT_MS, { settleMs });
      if (program.done.test(textSince(command, from))) complete++;
      command.cursors.stdout = command.streams.stdout.total;
      // A step that returned early leaves the rest of its answer for the next one; let it arrive.
      if (settleMs !== null) await answer(command, from, program.done, performance.now());
      command.cursors.stdout = command.streams.stdout.total;
    }
    return { ms: performance.now() - t0, complete };
  } finally {
    await registry.kill(command, "KILL");
  }
}

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** Two busy loops on the machine's (shared) cores, until stopped. */
async function load(): Promise<() => Promise<void>> {
  const hogs = await Promise.all(
    [1, 2].map(() =>
      registry.start(
        { cmd: "while :; do :; done", cwd: "/tmp", chdir: "/tmp", env: {}, tty: false, grants: new Set() },
        owner,
      )
    ),
  );
  return async () => {
    for (const hog of hogs) await registry.kill(hog, "KILL");
  };
}

const gapRows: string[] = [];
for (const program of PROGRAMS) {
  const idle = await measureGaps(program);
  const stop = await load();
  const loaded = await measureGaps(program).finally(stop);
  const splits = CANDIDATES.map((candidate) => loaded.gaps.filter((gap) => gap >= candidate).length);
  gapRows.push(
    `| ${program.name} | ${ms(quantile(idle.complete, 0.5))} | ${ms(Math.max(...idle.gaps))} | ${
      ms(quantile(loaded.complete, 0.5))
    } | ${ms(Math.max(...loaded.gaps))} | ${splits.join(" / ")} |`,
  );
}

const sessionRows: string[] = [];
const baselines: number[] = [];
const results = new Map<number, { ms: number[]; complete: number }>(
  CANDIDATES.map((candidate) => [candidate, { ms: [], complete: 0 }]),
);
for (let round = 0; round < 5; round++) {
  baselines.push((await session(null)).ms);
  for (const candidate of CANDIDATES) {
    const run = await session(candidate);
    results.get(candidate)!.ms.push(run.ms);
    results.get(candidate)!.complete += run.complete;
  }
}
const baseline = quantile(baselines, 0.5);
for (const candidate of CANDIDATES) {
  const run = results.get(candidate)!;
  const median = quantile(run.ms, 0.5);
  sessionRows.push(
    `| ${candidate} ms | ${ms(median)} | ${(median / baseline).toFixed(2)}× | ${
      ((median - baseline) / SESSION.length).toFixed(0)
    } ms | ${run.complete} / ${5 * SESSION.length} |`,
  );
}
await registry.close();

console.log(`## write_stdin settle interval (settle_bench)

Each answer of an interactive program, chunk by chunk, over ${ROUNDS} inputs, idle and with two busy loops competing
for the cores: when it was complete (median), its longest quiet gap between two chunks (max), and how many loaded
answers a poll with each candidate interval would have cut in two.

| program | idle: complete | idle: longest gap | loaded: complete | loaded: longest gap | loaded answers split at ${
  CANDIDATES.join(" / ")
} ms |
| --- | ---: | ---: | ---: | ---: | ---: |
${gapRows.join("\n")}

A five-input Python TTY session as write_stdin waits (\`registry.wait\` with \`settleMs\`) against the same session
read until each prompt, measured in the same run (baseline median ${ms(baseline)}; median of 5 sessions):

| settle | session | vs baseline | added per step | steps that returned the whole answer |
| --- | ---: | ---: | ---: | ---: |
${sessionRows.join("\n")}`);
