/**
 * `deno task bench files`: read_file, list_files and search_text through
 * the MCP client against raw ripgrep and @modelcontextprotocol/server-filesystem,
 * measured in the same run. Prints one Markdown section to stdout.
 *
 * Data (generated once, cached under bench/.data/files/):
 * - a tree of WORKCELL_BENCH_FILES files (default 100,000) totalling about
 *   WORKCELL_BENCH_TREE_BYTES (default 1 GB): source-like text in nested
 *   packages, a few large logs, binaries, hidden directories, .gitignore'd
 *   build output;
 * - one text file of WORKCELL_BENCH_BIG_BYTES (default 2 GB) for read_file;
 * - this repository's own node_modules.
 * The peer is installed by bench/peers.ts.
 * WORKCELL_BENCH_RUNS (default 7) sets the repetitions (short operations run up to 40 times); each figure is
 * the best of them (the machine is shared: the fastest run is the least disturbed one), sides alternating.
 */
import * as path from "node:path";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { rgPath } from "@vscode/ripgrep";
import { RG_BASE_ARGS } from "../src/search/ripgrep.ts";
import { searchArgs, type SearchOptions } from "../src/search/search_text.ts";
import { listFilesArgs } from "../src/files/list_files.ts";
import { peerEntry, PEERS } from "./peers.ts";
import { seededRandom } from "../testing/random.ts";
import { median } from "./timing.ts";
import { openWorkspace } from "../src/workspace/workspace.ts";
import { ChildSandboxes } from "../src/policy/linux_spawners.ts";
import { probeLandlock } from "../src/policy/landlock_probe.ts";
import { Reactor } from "../src/os/reactor.ts";
import { RipgrepRunner } from "../src/search/ripgrep_runner.ts";

const BENCH_DIR = new URL(".", import.meta.url).pathname;
const DATA = `${BENCH_DIR}.data/files`;
const REPO = path.resolve(BENCH_DIR, "..");

const envInt = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const FILES = envInt("WORKCELL_BENCH_FILES", 100_000);
const TREE_BYTES = envInt("WORKCELL_BENCH_TREE_BYTES", 1_000_000_000);
const BIG_BYTES = envInt("WORKCELL_BENCH_BIG_BYTES", 2_000_000_000);
const RUNS = envInt("WORKCELL_BENCH_RUNS", 7);

const log = (...parts: unknown[]) => console.error("files_bench:", ...parts);
const encoder = new TextEncoder();

// ---------------------------------------------------------------- data

const WORDS = ("const let function return import export from async await if else for while class interface type " +
  "value result error config request response handler server client buffer stream index length path file " +
  "string number boolean undefined null true false this new throw catch try map filter reduce push slice")
  .split(" ");

/** About `bytes` of source-like lines (average ~60 bytes), ending in a newline. */
function textPool(bytes: number, rand: () => number): Uint8Array {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const indent = "  ".repeat(Math.floor(rand() * 4));
    const count = 2 + Math.floor(rand() * 10);
    const words = Array.from({ length: count }, () => WORDS[Math.floor(rand() * WORDS.length)]);
    const line = `${indent}${words.join(" ")} ${Math.floor(rand() * 100000)};\n`;
    lines.push(line);
    size += line.length;
  }
  return encoder.encode(lines.join(""));
}

/** A line-aligned slice of the pool of about `size` bytes. */
function slice(pool: Uint8Array, size: number, rand: () => number): Uint8Array {
  let start = Math.floor(rand() * Math.max(1, pool.length - size - 1));
  while (start > 0 && pool[start - 1] !== 0x0a) start--;
  let end = Math.min(pool.length, start + size);
  while (end < pool.length && pool[end - 1] !== 0x0a) end++;
  return pool.subarray(start, end);
}

/** The rare word of the "full search" (in about 0.05% of the files) and the common one of the capped search. */
const RARE = "zebracorn";
const COMMON = "handler";

async function generateTree(root: string): Promise<void> {
  const marker = `${root}/.complete`;
  if (await exists(marker)) return;
  log(`generating ${FILES} files, ~${TREE_BYTES} bytes in ${root} (cached afterwards)`);
  await Deno.remove(root, { recursive: true }).catch(() => {});
  const rand = seededRandom(42);
  const pool = textPool(16 << 20, rand);
  const large = Math.max(1, Math.floor(FILES / 100)); // 1% large files carry ~40% of the bytes
  const largeSize = Math.floor((TREE_BYTES * 0.4) / large);
  const smallSize = Math.floor((TREE_BYTES * 0.6) / (FILES - large));
  const exts = [".ts", ".ts", ".ts", ".js", ".js", ".json", ".md", ".py", ".go", ".rs"];
  let written = 0;
  const start = performance.now();
  for (let i = 0; i < FILES; i++) {
    const pkg = `packages/pkg${i % 200}`;
    const sub = i % 7 === 0 ? "dist" : i % 11 === 0 ? ".cache" : `src/mod${i % 13}/part${i % 5}`;
    const dir = `${root}/${pkg}/${sub}`;
    let name: string;
    let content: Uint8Array;
    if (i < large) {
      const binary = i % 4 === 0;
      name = binary ? `asset${i}.png` : `trace${i}.log`;
      if (binary) {
        content = new Uint8Array(largeSize);
        for (let k = 0; k < content.length; k += 4096) content[k] = Math.floor(rand() * 256);
      } else content = slice(pool, largeSize, rand);
    } else {
      name = `file${i}${exts[i % exts.length]}`;
      // Log-normal-ish sizes around the mean.
      const size = Math.max(200, Math.floor(smallSize * Math.exp((rand() - 0.5) * 1.6) / 1.12));
      content = slice(pool, size, rand);
    }
    await Deno.mkdir(dir, { recursive: true });
    const file = await Deno.open(`${dir}/${name}`, { write: true, create: true, truncate: true });
    if (i % 2000 === 1) await file.write(encoder.encode(`// ${RARE} marker ${i}\n`));
    await file.write(content);
    file.close();
    written += content.length;
    if (i % 10000 === 0 && i > 0) log(`  ${i} files, ${(written / 1e6).toFixed(0)} MB`);
  }
  for (let p = 0; p < 200; p++) await Deno.writeTextFile(`${root}/packages/pkg${p}/.gitignore`, "dist/\n*.log\n");
  await Deno.writeTextFile(`${root}/.gitignore`, "node_modules/\n");
  log(`generated ${(written / 1e6).toFixed(0)} MB in ${((performance.now() - start) / 1000).toFixed(0)} s`);
  await Deno.writeTextFile(marker, `${FILES} ${TREE_BYTES}\n`);
}

async function generateBigFile(file: string): Promise<void> {
  const marker = `${file}.complete`;
  if (await exists(marker)) return;
  log(`generating ${BIG_BYTES} bytes in ${file} (cached afterwards)`);
  const pool = textPool(8 << 20, seededRandom(7));
  const out = await Deno.open(file, { write: true, create: true, truncate: true });
  for (let written = 0; written < BIG_BYTES; written += pool.length) {
    await out.write(pool.subarray(0, Math.min(pool.length, BIG_BYTES - written)));
  }
  out.close();
  await Deno.writeTextFile(marker, `${BIG_BYTES}\n`);
}

async function exists(file: string): Promise<boolean> {
  return await Deno.stat(file).then(() => true, () => false);
}

// ---------------------------------------------------------------- clients

interface McpProcess {
  client: Client;
  pid: number;
  call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; structured: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function connect(command: string, args: string[]): Promise<McpProcess> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" },
    stderr: "ignore",
  });
  const client = new Client({ name: "workcell-bench", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid!,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
      return {
        isError: result.isError === true,
        structured: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
    close: () => client.close(),
  };
}

function startWorkcell(workspace: string): Promise<McpProcess> {
  return connect(Deno.execPath(), [...sourceRunArgs({ http: null }), "--workspace", workspace]);
}

function startPeer(entry: string, workspace: string): Promise<McpProcess> {
  return connect("node", [entry, workspace]);
}

async function rssKiB(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const field = (name: string) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? NaN);
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/** Resets the kernel's peak-RSS counter of `pid` to its current RSS. */
async function resetPeak(pid: number): Promise<void> {
  await Deno.writeTextFile(`/proc/${pid}/clear_refs`, "5");
}

// ---------------------------------------------------------------- measuring

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Short operations run more often (up to this many times) until each side has spent about SHORT_BUDGET_MS. */
const MAX_RUNS = 40;
const SHORT_BUDGET_MS = 400;

/**
 * Runs the two sides alternately after one warm-up each, RUNS times or, for short operations, more (up to MAX_RUNS)
 * until about SHORT_BUDGET_MS was spent; returns the best times in ms.
 */
async function compare(ours: () => Promise<unknown>, theirs: () => Promise<unknown>): Promise<[number, number]> {
  await ours();
  await theirs();
  const a: number[] = [];
  const b: number[] = [];
  let spent = 0;
  for (let i = 0; i < RUNS || (spent < SHORT_BUDGET_MS && i < MAX_RUNS); i++) {
    a.push(await time(ours));
    b.push(await time(theirs));
    spent += a[i];
  }
  return [Math.min(...a), Math.min(...b)];
}

/** Runs rg directly like the server does; resolves when rg exits, or when `stopAfter` matches have arrived. */
async function rawRg(args: string[], cwd: string, stopAfter = Infinity): Promise<number> {
  const child = new Deno.Command(rgPath, {
    args: [...RG_BASE_ARGS, ...args],
    cwd,
    clearEnv: true,
    env: {},
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let matches = 0;
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    if (stopAfter !== Infinity) {
      matches += decoder.decode(chunk).split('{"type":"match"').length - 1;
      if (matches >= stopAfter) {
        child.kill("SIGKILL");
        break;
      }
    }
  }
  await child.status;
  return matches;
}

/**
 * rg started as the server starts it (its read-only sandbox: the launcher's Landlock and seccomp steps), from this
 * process and without MCP, read until `stopAfter` matches: the floor of search_text's capped rows.
 */
function launchedRg(root: string): (args: string[], stopAfter: number) => Promise<number> {
  const children = new ChildSandboxes(openWorkspace(root), {
    tmpdir: null,
    env: Deno.env.toObject(),
    landlock: probeLandlock(),
    ripgrep: { path: rgPath, fd: null },
  });
  const runner = new RipgrepRunner({ rg: { path: rgPath, fd: null }, children, reactor: new Reactor() });
  return async (args, stopAfter) => {
    await using rg = await runner.start({ args, cwd: root });
    let matches = 0;
    const decoder = new TextDecoder();
    for await (const chunk of rg.chunks()) {
      matches += decoder.decode(chunk).split('{"type":"match"').length - 1;
      if (matches >= stopAfter) {
        rg.kill();
        break;
      }
    }
    await rg.finish();
    return matches;
  };
}

const SEARCH_DEFAULTS: Omit<SearchOptions, "page"> = {
  pattern: "",
  regex: false,
  case: "smart",
  globs: [],
  includeHidden: false,
  context: 0,
  maxResults: 200,
  maxLineBytes: 500,
};

interface Row {
  what: string;
  ours: string;
  baseline: string;
  ratio: string;
  goal: string;
}

const rows: Row[] = [];
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;

function addTimed(what: string, ours: number, baselineName: string, baseline: number, goal: string): void {
  const ratio = ours / baseline;
  rows.push({ what, ours: ms(ours), baseline: `${baselineName} ${ms(baseline)}`, ratio: `${ratio.toFixed(2)}×`, goal });
  log(`${what}: ${ms(ours)} vs ${baselineName} ${ms(baseline)} = ${ratio.toFixed(2)}×`);
}

async function searchRows(server: McpProcess, label: string, root: string, target: string, hidden: boolean) {
  const call = async (args: Record<string, unknown>) => {
    const result = await server.call("search_text", { path: target, include_hidden: hidden, ...args });
    if (result.isError) throw new Error(JSON.stringify(result.structured));
    return result.structured;
  };
  const rel = path.relative(root, target) || ".";
  // Full search: a rare word, so rg walks and reads the whole tree (fewer matches than the cap).
  const full = { ...SEARCH_DEFAULTS, pattern: RARE, includeHidden: hidden, maxResults: 2000 };
  const fullResult = await call({ pattern: RARE, max_results: 2000 });
  const [ourFull, rgFull] = await compare(
    () => call({ pattern: RARE, max_results: 2000 }),
    () => rawRg(searchArgs(full, rel, []), root),
  );
  addTimed(
    `search_text full search (${(fullResult.matches as unknown[]).length} matches), ${label}`,
    ourFull,
    "rg --json",
    rgFull,
    "≤ 1.2×",
  );
  // Capped search: a common word; the call returns after max_results+1 matches.
  const capped = { ...SEARCH_DEFAULTS, pattern: COMMON, includeHidden: hidden };
  const [ourCapped, rgCapped] = await compare(
    () => call({ pattern: COMMON }),
    () => rawRg(searchArgs(capped, rel, []), root, capped.maxResults + 1),
  );
  addTimed(
    `search_text capped (max_results 200) result vs rg's 201st match, ${label}`,
    ourCapped,
    "rg --json",
    rgCapped,
    "≤ 1.1×",
  );
  const launched = launchedRg(await Deno.realPath(root));
  const [ourCappedAgain, floorCapped] = await compare(
    () => call({ pattern: COMMON }),
    () => launched(searchArgs(capped, rel, []), capped.maxResults + 1),
  );
  addTimed(
    `search_text capped (max_results 200) vs the floor: rg started through its sandbox launcher, to its 201st ` +
      `match (no MCP), ${label}`,
    ourCappedAgain,
    "launched rg",
    floorCapped,
    "(floor)",
  );
  const [ourFirst, rgFirst] = await compare(
    () => call({ pattern: COMMON, max_results: 1 }),
    () => rawRg(searchArgs(capped, rel, []), root, 2),
  );
  addTimed(
    `search_text max_results 1 (result needs 2 matches) vs rg's 2nd match, ${label}`,
    ourFirst,
    "rg --json",
    rgFirst,
    "≤ 1.1×",
  );
  const [ourUncapped] = await compare(() => call({ pattern: COMMON, max_results: 2000 }), () => Promise.resolve());
  rows.push({
    what: `search_text common word: capped 200 vs max_results 2000, ${label}`,
    ours: ms(ourCapped),
    baseline: `itself at 2000: ${ms(ourUncapped)}`,
    ratio: `${(ourCapped / ourUncapped).toFixed(2)}×`,
    goal: "stops early",
  });
}

async function listRows(server: McpProcess, label: string, target: string, hidden: boolean) {
  const call = async (args: Record<string, unknown>) => {
    const result = await server.call("list_files", { path: target, include_hidden: hidden, ...args });
    if (result.isError) throw new Error(JSON.stringify(result.structured));
    return result.structured;
  };
  const options = { respectGitignore: true, includeHidden: hidden, sort: "path" as const };
  const all = await call({ sort: "none", limit: 100000 });
  const count = all.total_matched as number | null ?? (all.files as unknown[]).length;
  const [ourPath, rgFiles] = await compare(
    () => call({}),
    () => rawRg(listFilesArgs(options, []), target),
  );
  addTimed(
    `list_files sort path, limit 1000 (of ${count}), ${label}`,
    ourPath,
    "rg --files",
    rgFiles,
    "≤ 1.3×",
  );
  const [ourNone] = await compare(() => call({ sort: "none" }), () => Promise.resolve());
  addTimed(`list_files sort none, limit 1000, ${label}`, ourNone, "rg --files (all)", rgFiles, "stops at cap");
  const [ourAll] = await compare(() => call({ sort: "none", limit: 100000 }), () => Promise.resolve());
  addTimed(`list_files all ${count} with size+mtime, ${label}`, ourAll, "rg --files", rgFiles, "(stats every file)");
  await resetPeak(server.pid);
  const idle = await rssKiB(server.pid);
  await call({ sort: "none", limit: 100000 });
  rows.push({
    what: `list_files all ${count}: memory`,
    ours: `peak RSS ${mib((await rssKiB(server.pid)).peak)} (idle ${mib(idle.rss)})`,
    baseline: "",
    ratio: "",
    goal: "peak ≤ 200 MiB",
  });
  const glob = ["--type-add", "workcellglob:*.ts", "--type", "workcellglob"];
  const [ourGlob, rgGlob] = await compare(
    () => call({ glob: "**/*.ts" }),
    () => rawRg(listFilesArgs(options, glob), target),
  );
  addTimed(`list_files glob **/*.ts, ${label}`, ourGlob, "rg --files -t", rgGlob, "≤ 1.3×");
}

/**
 * read_file paged at its default page size from line `from` until `lines` lines have come back, each call the
 * continuation the previous page gave: with its byte position (`next_byte_offset` with `next_offset`), or, as a
 * client that ignores it would, by line alone (every page then counts lines from the start of the file).
 */
async function pagedRead(server: McpProcess, file: string, from: number, lines: number, byByte: boolean) {
  let next: Record<string, unknown> = { offset: from };
  let read = 0;
  let pages = 0;
  for (; read < lines; pages++) {
    const result = await server.call("read_file", { path: file, limit: lines - read, ...next });
    if (result.isError) throw new Error(JSON.stringify(result.structured));
    const page = result.structured as { lines_returned: number; next_offset: number; next_byte_offset: number };
    read += page.lines_returned;
    next = byByte ? { offset: page.next_offset, byte_offset: page.next_byte_offset } : { offset: page.next_offset };
  }
  return pages;
}

/**
 * 2,000 lines read by read_file's own continuation (pages of its default size, as bounded by the result ceiling)
 * against the raw tool reading the same lines (`head`, `sed -n`) and, from the start, the reference filesystem
 * server's one `read_text_file head` call; the peak RSS of both servers; and the same pages by line alone.
 */
async function readRows(server: McpProcess, peer: McpProcess, dir: string, big: string, small: string) {
  const measured = async (pid: number, fn: () => Promise<unknown>) => {
    await resetPeak(pid);
    const before = await rssKiB(pid);
    const start = performance.now();
    await fn();
    const elapsed = performance.now() - start;
    return { elapsed, rss: before.rss, peak: (await rssKiB(pid)).peak };
  };
  const repeat = async (fn: () => Promise<{ elapsed: number; rss: number; peak: number }>) => {
    await fn();
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await fn());
    return {
      elapsed: Math.min(...runs.map((run) => run.elapsed)),
      rss: median(runs.map((run) => run.rss)),
      peak: Math.max(...runs.map((run) => run.peak)),
    };
  };
  const raw = (args: string[]) => async () => {
    const out = await new Deno.Command(args[0], { args: args.slice(1), cwd: dir, stdout: "piped" }).output();
    if (!out.success) throw new Error(`${args.join(" ")} failed`);
  };
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(bytes < 1e8 ? 3 : 1)} GB`;
  const cases: [string, string, number, string[]][] = [
    [`lines 1-2000 of ${gb((await Deno.stat(small)).size)}`, small, 1, ["head", "-n", "2000"]],
    [`lines 1-2000 of ${gb((await Deno.stat(big)).size)}`, big, 1, ["head", "-n", "2000"]],
    [`lines 5,000,000-5,002,000 of ${gb((await Deno.stat(big)).size)}`, big, 5_000_000, [
      "sed",
      "-n",
      "5000000,5001999p;5002000q",
    ]],
  ];
  for (const [label, file, from, command] of cases) {
    const name = path.basename(file);
    const ours = () => pagedRead(server, name, from, 2000, true);
    const result = await repeat(() => measured(server.pid, ours));
    const [timed, rawTime] = await compare(ours, raw([...command, name]));
    addTimed(
      `read_file ${label}, paged by the tool's own continuation`,
      timed,
      `\`${command.join(" ")}\``,
      rawTime,
      from === 1 ? "≤ 2×" : "≤ 1.5×",
    );
    if (from === 1) {
      // Each page is a round trip, and the result ceiling bounds a page: the floor is that many one-line reads.
      const pages = await pagedRead(server, name, from, 2000, true);
      const [oneLine] = await compare(
        () => server.call("read_file", { path: name, limit: 1 }),
        () => Promise.resolve(),
      );
      addTimed(
        `read_file ${label} vs the floor: ${pages} pages (default max_bytes, within the result ceiling) × the ` +
          `round trip of a one-line read_file`,
        timed,
        `${pages} × ${ms(oneLine)} =`,
        pages * oneLine,
        "(floor)",
      );
    }
    rows.push({
      what: `read_file ${label}: memory`,
      ours: `peak RSS ${mib(result.peak)} (idle ${mib(result.rss)})`,
      baseline: "",
      ratio: "",
      goal: "RSS flat in file size",
    });
    if (from === 1) {
      const peerResult = await repeat(() =>
        measured(peer.pid, () => peer.call("read_text_file", { path: file, head: 2000 }))
      );
      rows.push({
        what: `read_file ${label} vs server-filesystem`,
        ours: ms(result.elapsed),
        baseline: `server-filesystem read_text_file head ${ms(peerResult.elapsed)}, peak RSS ${mib(peerResult.peak)}`,
        ratio: `${(result.elapsed / peerResult.elapsed).toFixed(2)}×`,
        goal: "below server-filesystem",
      });
    } else {
      const [byLine] = await compare(() => pagedRead(server, name, from, 2000, false), () => Promise.resolve());
      addTimed(`read_file ${label}, paged by offset alone`, byLine, "by its continuation", timed, "");
    }
  }
}

async function peerSearchRow(server: McpProcess, peer: McpProcess, root: string) {
  const ours = () =>
    server.call("list_files", { glob: "**/*.md", respect_gitignore: false, include_hidden: true, limit: 100000 });
  const theirs = () => peer.call("search_files", { path: root, pattern: "**/*.md" });
  // The peer walks with a realpath and a minimatch per entry: one run each is enough to compare.
  const ourTime = await time(ours);
  const theirTime = await time(theirs);
  addTimed(
    "list_files glob **/*.md (no ignore, hidden) vs server-filesystem search_files",
    ourTime,
    "server-filesystem",
    theirTime,
    "comparable",
  );
}

// ---------------------------------------------------------------- main

await Deno.mkdir(DATA, { recursive: true });
const tree = `${DATA}/tree-${FILES}-${TREE_BYTES}`;
const big = `${DATA}/big-${BIG_BYTES}.txt`;
const small = `${DATA}/small.txt`;
await generateTree(tree);
await generateBigFile(big);
if (!(await exists(small))) await Deno.writeFile(small, textPool(20 << 20, seededRandom(3)));
const peerMain = await peerEntry(PEERS.filesystem);

// Warm the page cache so every side reads from memory.
await rawRg(["--files", "--hidden", "--no-ignore", "--", "."], tree);
await rawRg(["--no-ignore", "--hidden", "-c", "warm-cache-nothing-matches", "--", "."], tree);

{
  const server = await startWorkcell(tree);
  const [floor] = await compare(() => server.call("read_file", { path: ".complete" }), () => Promise.resolve());
  rows.push({
    what: "MCP round trip floor: read_file of a one-line file",
    ours: ms(floor),
    baseline: "",
    ratio: "",
    goal: "(fixed cost in every row)",
  });
  await searchRows(server, `generated tree (${FILES} files)`, tree, tree, false);
  await listRows(server, "generated tree", tree, false);
  const peer = await startPeer(peerMain, tree);
  await peerSearchRow(server, peer, tree);
  await peer.close();
  await server.close();
}
{
  // A copy outside the repository: the repo's .gitignore ("node_modules/") would hide every nested package.
  const copy = await Deno.makeTempDir({ prefix: "workcell-bench-node_modules-" });
  await new Deno.Command("cp", { args: ["-a", `${REPO}/node_modules`, copy] }).output();
  const modules = `${copy}/node_modules`;
  await rawRg(["--hidden", "-c", "warm-cache-nothing-matches", "--", "."], modules);
  const server = await startWorkcell(copy);
  const label = "this repo's node_modules (include_hidden: Deno keeps packages in node_modules/.deno)";
  await searchRows(server, label, copy, modules, true);
  await listRows(server, "node_modules", modules, true);
  await server.close();
  await Deno.remove(copy, { recursive: true });
}
{
  const server = await startWorkcell(DATA);
  const peer = await startPeer(peerMain, DATA);
  await readRows(server, peer, DATA, big, small);
  await peer.close();
  await server.close();
}

const table = [
  "| operation | workcell | baseline (same run) | ratio | goal |",
  "|---|---|---|---|---|",
  ...rows.map((row) => `| ${row.what} | ${row.ours} | ${row.baseline} | ${row.ratio} | ${row.goal} |`),
];
console.log(
  [
    "## Files and search",
    "",
    `Best of ${RUNS} runs (up to ${MAX_RUNS} for short operations; sides alternating, one warm-up each, page cache warm; peak RSS is the max), through the MCP client over stdio, ` +
    `${navigator.hardwareConcurrency} cores. rg ${rgPath.includes("ripgrep") ? "from npm:@vscode/ripgrep" : rgPath}. ` +
    `Tree: ${FILES} files, ~${(TREE_BYTES / 1e9).toFixed(1)} GB; big file ${(BIG_BYTES / 1e9).toFixed(1)} GB.`,
    "",
    ...table,
  ].join("\n"),
);
