/**
 * workcell against the MCP servers a user would pick instead, all started
 * over stdio and driven by the same SDK client on the same workspace, in
 * the same run: spawn to initialize response, the tools/list result in
 * bytes (what an agent pays for the catalog on every turn), RSS idle and
 * peak RSS during LOAD_CALLS calls of each server's read tool. The runtime
 * baselines are an empty `deno run` and an empty `node` script.
 *
 * Run: deno task bench peers
 */
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { CODEX, connectPeer, type Peer, PEERS } from "./peers.ts";
import { treeRssMiB } from "./memory.ts";

const STARTS = Number(Deno.env.get("BENCH_PEER_STARTS") ?? 5);
const LOAD_CALLS = Number(Deno.env.get("BENCH_PEER_LOAD_CALLS") ?? 200);
/** Untimed calls before the load, so both runtimes' JITs have warmed up. */
const WARMUP_CALLS = 50;
/** Calls in flight at once during the load phase. */
const LOAD_CONCURRENCY = 4;
const IDLE_SETTLE_MS = 1000;
const RSS_SAMPLE_MS = 10;
const FILE_LINES = 400;

const log = (message: string) => console.error(`peers_bench: ${message}`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A server under test: how to start it and which call is its "read a file" load. */
interface Candidate {
  label: string;
  start(workspace: string): Promise<{ client: Client; pid: number }>;
  /** One call of its read tool on `file` (an absolute path inside the workspace); null when it has none. */
  load: ((workspace: string, file: string) => { name: string; arguments: Record<string, unknown> }) | null;
  /** How it does each common operation on the same input (call `i` of a run), checking the answer. */
  ops: Partial<Record<Operation, (client: Client, workspace: string, i: number, edit: string) => Promise<void>>>;
}

/** The operations every file-tool server offers in some form, timed side by side. */
const OPERATIONS = [
  "read a file",
  "list a directory",
  "search file contents",
  "find files by name",
  "edit a line",
] as const;
type Operation = typeof OPERATIONS[number];
/** Timed calls per operation (after OP_WARMUP untimed ones); the figure is their median. */
const OP_RUNS = 30;
const OP_WARMUP = 3;
const SOURCE_FILES = 50;
/** The one source file holding NEEDLE. */
const NEEDLE_FILE = "f17.txt";
const NEEDLE = "needle-7f3a";
const MAX_SEARCH_POLLS = 200;

/** Calls a tool, throws on an error result, returns its text. */
async function text(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const body = (result.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n");
  if (result.isError) throw new Error(`${name}: ${body.slice(0, 300)}`);
  return body;
}

function expect(body: string, wanted: string, what: string): void {
  if (!body.includes(wanted)) throw new Error(`${what}: ${wanted} missing from ${body.slice(0, 300)}`);
}

/** Desktop Commander searches in the background: start, then poll until the needle is reported. */
async function desktopSearch(client: Client, args: Record<string, unknown>, wanted: string): Promise<void> {
  const started = await text(client, "start_search", args);
  let body = started;
  const sessionId = /session: (\S+)/.exec(started)?.[1];
  for (let polls = 0; !body.includes(wanted); polls++) {
    if (!sessionId || polls > MAX_SEARCH_POLLS) throw new Error(`start_search never reported ${wanted}: ${body}`);
    body = await text(client, "get_more_search_results", { sessionId });
  }
}

async function startWorkcell(workspace: string): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [...sourceRunArgs({ http: null }), "--workspace", workspace],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root", NO_COLOR: "1" },
    stderr: "ignore",
  });
  const client = new Client({ name: "workcell-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

const peer = (p: Peer) => (workspace: string) => connectPeer(p, workspace);

const CANDIDATES: Candidate[] = [
  {
    label: "workcell",
    start: startWorkcell,
    load: (_, file) => ({ name: "read_file", arguments: { path: file.split("/").pop() } }),
    ops: {
      "read a file": async (c) => expect(await text(c, "read_file", { path: "notes.txt" }), "line 399", "read"),
      "list a directory": async (c) => expect(await text(c, "list_dir", { path: "src" }), NEEDLE_FILE, "list"),
      "search file contents": async (c) =>
        expect(await text(c, "search_text", { pattern: NEEDLE, path: "src" }), NEEDLE_FILE, "search"),
      "find files by name": async (c) =>
        expect(await text(c, "list_files", { path: "src", glob: "f1*.txt" }), NEEDLE_FILE, "find"),
      "edit a line": async (c, _, i, edit) => {
        await text(c, "apply_patch", {
          patch: `*** Begin Patch\n*** Update File: ${edit}\n@@\n-edit-${i}\n+edit-${i + 1}\n*** End Patch\n`,
        });
      },
    },
  },
  {
    label: `${PEERS.filesystem.package}@${PEERS.filesystem.version}`,
    start: peer(PEERS.filesystem),
    load: (_, file) => ({ name: "read_text_file", arguments: { path: file } }),
    ops: {
      "read a file": async (c, ws) =>
        expect(await text(c, "read_text_file", { path: `${ws}/notes.txt` }), "line 399", "read"),
      "list a directory": async (c, ws) =>
        expect(await text(c, "list_directory", { path: `${ws}/src` }), NEEDLE_FILE, "list"),
      "find files by name": async (c, ws) =>
        expect(await text(c, "search_files", { path: `${ws}/src`, pattern: "**/f1*.txt" }), NEEDLE_FILE, "find"),
      "edit a line": async (c, ws, i, edit) => {
        await text(c, "edit_file", {
          path: `${ws}/${edit}`,
          edits: [{ oldText: `edit-${i}`, newText: `edit-${i + 1}` }],
        });
      },
    },
  },
  {
    label: `${PEERS.desktopCommander.package}@${PEERS.desktopCommander.version}`,
    start: peer(PEERS.desktopCommander),
    load: (_, file) => ({ name: "read_file", arguments: { path: file } }),
    ops: {
      "read a file": async (c, ws) =>
        expect(await text(c, "read_file", { path: `${ws}/notes.txt`, length: FILE_LINES }), "line 399", "read"),
      "list a directory": async (c, ws) =>
        expect(await text(c, "list_directory", { path: `${ws}/src`, depth: 1 }), NEEDLE_FILE, "list"),
      "search file contents": (c, ws) =>
        desktopSearch(c, { path: `${ws}/src`, pattern: NEEDLE, searchType: "content" }, NEEDLE_FILE),
      "find files by name": (c, ws) =>
        desktopSearch(c, { path: `${ws}/src`, pattern: "f17", searchType: "files" }, NEEDLE_FILE),
      "edit a line": async (c, ws, i, edit) => {
        await text(c, "edit_block", {
          file_path: `${ws}/${edit}`,
          old_string: `edit-${i}`,
          new_string: `edit-${i + 1}`,
        });
      },
    },
  },
  {
    label: `${PEERS.git.package}@${PEERS.git.version}`,
    start: peer(PEERS.git),
    load: (workspace) => ({ name: "git_status", arguments: { path: workspace } }),
    ops: {},
  },
];

async function spawnMs(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  const out = await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output();
  if (!out.success) throw new Error(`${command} ${args.join(" ")} failed`);
  return performance.now() - started;
}

/**
 * Median ms of each operation, per candidate (null where it has none), with all servers started at once
 * and the runs interleaved across them, so the machine's load hits them alike. Each server edits its own file.
 */
async function measureOps(candidates: Candidate[], workspace: string): Promise<Partial<Record<Operation, number>>[]> {
  const clients: Client[] = [];
  try {
    for (const [k, candidate] of candidates.entries()) {
      await Deno.writeTextFile(`${workspace}/edit-${k}.txt`, "first line\nedit-0\nlast line\n");
      clients.push((await candidate.start(workspace)).client);
    }
    const medians: Partial<Record<Operation, number>>[] = candidates.map(() => ({}));
    for (const operation of OPERATIONS) {
      const samples: number[][] = candidates.map(() => []);
      for (let run = -OP_WARMUP; run < OP_RUNS; run++) {
        for (const [k, candidate] of candidates.entries()) {
          const op = candidate.ops[operation];
          if (!op) continue;
          const started = performance.now();
          await op(clients[k], workspace, run + OP_WARMUP, `edit-${k}.txt`);
          if (run >= 0) samples[k].push(performance.now() - started);
        }
      }
      candidates.forEach((_, k) => samples[k].length > 0 && (medians[k][operation] = median(samples[k])));
    }
    return medians;
  } finally {
    for (const client of clients) await client.close();
  }
}

interface Measured {
  label: string;
  startMs: number;
  catalogBytes: number;
  tools: number;
  idleMiB: number;
  loadPeakMiB: number | null;
  loadMs: number | null;
}

async function measure(candidate: Candidate, workspace: string, file: string): Promise<Measured> {
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const { client } = await candidate.start(workspace);
    starts.push(performance.now() - started);
    await client.close();
  }
  const { client, pid } = await candidate.start(workspace);
  try {
    const { tools } = await client.listTools();
    const catalogBytes = new TextEncoder().encode(JSON.stringify({ tools })).length;
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idleMiB = treeRssMiB(pid);
    if (!candidate.load) {
      return {
        label: candidate.label,
        startMs: median(starts),
        catalogBytes,
        tools: tools.length,
        idleMiB,
        loadPeakMiB: null,
        loadMs: null,
      };
    }
    const call = candidate.load(workspace, file);
    for (let i = 0; i < WARMUP_CALLS; i++) {
      const warm = await client.callTool(call);
      if (warm.isError) throw new Error(`${call.name}: ${JSON.stringify(warm.content).slice(0, 300)}`);
    }
    let peak = treeRssMiB(pid);
    const sampler = setInterval(() => peak = Math.max(peak, treeRssMiB(pid)), RSS_SAMPLE_MS);
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, async () => {
      while (next++ < LOAD_CALLS) {
        const result = await client.callTool(call);
        if (result.isError) throw new Error(`${call.name}: ${JSON.stringify(result.content).slice(0, 300)}`);
      }
    }));
    const loadMs = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, treeRssMiB(pid));
    return {
      label: candidate.label,
      startMs: median(starts),
      catalogBytes,
      tools: tools.length,
      idleMiB,
      loadPeakMiB: peak,
      loadMs,
    };
  } finally {
    await client.close();
  }
}

const workspace = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-peers-bench-" }));
const file = `${workspace}/notes.txt`;
await Deno.writeTextFile(
  file,
  Array.from({ length: FILE_LINES }, (_, i) => `line ${i}: the quick brown fox\n`).join(""),
);
const empty = `${workspace}/empty.js`;
await Deno.writeTextFile(empty, "");
await Deno.mkdir(`${workspace}/src`);
for (let i = 0; i < SOURCE_FILES; i++) {
  const lines = Array.from({ length: 40 }, (_, line) => `export const v${line} = ${line}; // file ${i}\n`);
  if (`f${i}.txt` === NEEDLE_FILE) lines[20] = `// ${NEEDLE}\n`;
  await Deno.writeTextFile(`${workspace}/src/f${i}.txt`, lines.join(""));
}
for (
  const args of [["init", "-q"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"]]
) {
  await new Deno.Command("git", { args, cwd: workspace, stdout: "null", stderr: "null" }).output();
}

const denoEmpty: number[] = [];
const nodeEmpty: number[] = [];
for (let i = 0; i < STARTS; i++) {
  denoEmpty.push(await spawnMs(Deno.execPath(), ["run", empty]));
  nodeEmpty.push(await spawnMs("node", [empty]));
}

const results: (Measured | { label: string; failure: string })[] = [];
for (const candidate of CANDIDATES) {
  log(candidate.label);
  try {
    results.push(await measure(candidate, workspace, file));
  } catch (error) {
    log(`${candidate.label} failed: ${(error as Error).stack}`);
    results.push({ label: candidate.label, failure: (error as Error).message.split("\n")[0].slice(0, 200) });
  }
}

const ours = results[0];
if ("failure" in ours) throw new Error(`workcell itself failed: ${ours.failure}`);
const ratio = (value: number | null, base: number | null) =>
  value === null || base === null ? "–" : `${(value / base).toFixed(2)}×`;
const f0 = (value: number | null) => value === null ? "–" : value.toFixed(0);
const rows = results.map((r) => {
  if ("failure" in r) return `| ${r.label} | failed: ${r.failure} | | | | | | | | |`;
  const perCall = r.loadMs === null ? null : r.loadMs / LOAD_CALLS;
  return `| ${r.label} | ${f0(r.startMs)} | ${ratio(r.startMs, ours.startMs)} | ${r.tools} | ${r.catalogBytes} | ${
    ratio(r.catalogBytes, ours.catalogBytes)
  } | ${f0(r.idleMiB)} | ${f0(r.loadPeakMiB)} | ${perCall === null ? "–" : perCall.toFixed(2)} | ${
    ratio(perCall, ours.loadMs === null ? null : ours.loadMs / LOAD_CALLS)
  } |`;
});
const fileServers = CANDIDATES.filter((candidate) => Object.keys(candidate.ops).length > 0);
let opsTable: string;
try {
  const medians = await measureOps(fileServers, workspace);
  const opRows = OPERATIONS.map((operation) => {
    const cells = medians.map((byOp, k) => {
      const ms = byOp[operation];
      if (ms === undefined) return "–";
      return k === 0 ? ms.toFixed(2) : `${ms.toFixed(2)} (${ratio(ms, medians[0][operation] ?? null)})`;
    });
    return `| ${operation} | ${cells.join(" | ")} |`;
  });
  const header = `| operation, median of ${OP_RUNS} calls (ms) | ${fileServers.map((c) => c.label).join(" | ")} |`;
  opsTable = `${header}\n| --- |${fileServers.map(() => " ---: |").join("")}\n${opRows.join("\n")}`;
} catch (error) {
  log(`operations failed: ${(error as Error).stack}`);
  opsTable = `FAILED: ${(error as Error).message.split("\n")[0].slice(0, 300)}`;
}
await Deno.remove(workspace, { recursive: true });

console.log(`## Peers: start-up, catalog size, memory (stdio, same SDK client, same workspace)

| server | start-up to initialize response, median of ${STARTS} (ms) | vs workcell | tools | tools/list bytes | vs workcell | RSS idle (MiB) | peak RSS during load (MiB) | load: ms per call | vs workcell |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}
| baseline: \`deno run\` of an empty script | ${f0(median(denoEmpty))} | ${
  ratio(median(denoEmpty), ours.startMs)
} | | | | | | | |
| baseline: \`node\` of an empty script | ${f0(median(nodeEmpty))} | ${
  ratio(median(nodeEmpty), ours.startMs)
} | | | | | | | |

Load is ${LOAD_CALLS} calls, ${LOAD_CONCURRENCY} in flight (after ${WARMUP_CALLS} untimed warm-up calls), of each server's file-read tool on the same
${FILE_LINES}-line file (workcell \`read_file\`, server-filesystem \`read_text_file\`, desktop-commander \`read_file\`);
git-mcp-server has no read tool, so its load is \`git_status\` on the workspace repository. The Codex CLI
${CODEX.version} has no MCP server mode; it is compared as \`apply_patch\` in the apply_patch section. RSS is VmRSS
summed over the server's process tree, sampled every ${RSS_SAMPLE_MS} ms during the load;
idle is read ${IDLE_SETTLE_MS} ms after tools/list. tools/list bytes is the JSON of the result's \`tools\` array.

Common operations on the same inputs, all servers running at once and the calls interleaved across them
(a peer's time is followed by its ratio to workcell's; – where the server has no such tool):

${opsTable}

Read: the ${FILE_LINES}-line file (workcell \`read_file\`, server-filesystem \`read_text_file\`, desktop-commander
\`read_file\` with \`length\` ${FILE_LINES}). List: a directory of ${SOURCE_FILES} files (\`list_dir\`, \`list_directory\`,
\`list_directory\` depth 1). Search contents: one needle in those files (\`search_text\`; desktop-commander
\`start_search\` then \`get_more_search_results\` until the match is reported; server-filesystem has no content
search). Find by name (\`list_files\` glob, \`search_files\`, \`start_search\` of type files). Edit: one line
replaced in a 3-line file (\`apply_patch\`, \`edit_file\`, \`edit_block\`). Every answer is checked.`);
