/**
 * `deno task bench git`: git_log on a 10,000-commit history, git_status and
 * server_info (whose git context reads HEAD) on a 100,000-file tree, against raw git with the same options in the
 * same run, and against `@cyanheads/git-mcp-server` (when installed under
 * bench/.data/peers) on the same operations over the same SDK client.
 *
 * Raw git runs the very format and count git_log asks for (one commit more
 * than the page, to tell whether the history goes on); paging is compared
 * with raw git paged the same way, and, as a reference of unequal work, with
 * one raw `git log` of the whole history.
 *
 * Prints one Markdown section to stdout; diagnostics go to stderr.
 * Data is generated once under bench/.data/ (history-10k, tree-100k).
 */
import * as path from "node:path";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { git, importHistory, initRepo } from "../testing/git_fixtures.ts";
import { COMMIT_FORMAT } from "../src/git/log.ts";
import { gitServiceFor } from "../testing/git_service.ts";
import { connectPeer, PEERS } from "./peers.ts";

const DATA = new URL("./.data/", import.meta.url).pathname;
const HISTORY = path.join(DATA, "history-10k");
const TREE = path.join(DATA, "tree-100k");
const COMMITS = 10_000;
const FILES = 100_000;
/** Timed rounds per case (after one warm-up). */
const RUNS = Number(Deno.env.get("GIT_BENCH_RUNS") ?? 11);
const PAGE = 500;

const log = (message: string) => console.error(`git_bench: ${message}`);

async function exists(dir: string): Promise<boolean> {
  return await Deno.stat(path.join(dir, ".git")).then(() => true, () => false);
}

async function ensureHistory(): Promise<void> {
  if (await exists(HISTORY)) return;
  log(`importing ${COMMITS} commits into ${HISTORY}`);
  await importHistory(HISTORY, COMMITS);
}

/** One commit holding FILES files (one shared blob) in 1,000 directories, checked out. */
async function ensureTree(): Promise<void> {
  if (await exists(TREE)) return;
  log(`building a ${FILES}-file tree in ${TREE}`);
  await initRepo(TREE);
  const lines = ["blob", "mark :1", "data 6", "hello", "", "commit refs/heads/main", "mark :2"];
  lines.push("committer Bench <bench@example.org> 1700000000 +0000", "data 5", "tree", "");
  for (let i = 0; i < FILES; i++) lines.push(`M 100644 :1 d${Math.floor(i / 100)}/f${i % 100}.txt`);
  lines.push("");
  const child = new Deno.Command("git", { args: ["fast-import", "--quiet"], cwd: TREE, stdin: "piped" }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("\n")));
  await writer.close();
  if (!(await child.status).success) throw new Error("fast-import failed");
  await git(TREE, "reset", "-q", "--hard", "main");
}

/** Median and minimum of each contender, timed in interleaved rounds so machine load hits all alike. */
async function timeRounds(contenders: (() => Promise<unknown>)[]): Promise<{ median: number; min: number }[]> {
  for (const fn of contenders) await fn(); // warm-up
  const times: number[][] = contenders.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (k + round) % contenders.length;
      const start = performance.now();
      await contenders[i]();
      times[i].push(performance.now() - start);
    }
  }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    return { median: list[Math.floor(list.length / 2)], min: list[0] };
  });
}

async function rawGit(cwd: string, args: string[]): Promise<Uint8Array> {
  const out = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return out.stdout;
}

/** Records per commit in COMMIT_FORMAT output with -z: ten fields, then the empty record -z adds. */
const RECORDS_PER_COMMIT = 11;

/**
 * Raw git paging through the whole history as git_log is paged below: each
 * page asks for PAGE + 1 commits from the first parent of the previous
 * page's last commit. Returns the number of commits seen (a sanity check).
 */
async function rawPages(cwd: string, format: string): Promise<number> {
  let rev = "HEAD";
  let seen = 0;
  for (let page = 0; page < COMMITS / PAGE; page++) {
    const records = new TextDecoder().decode(await rawGit(cwd, ["log", "-z", format, `--max-count=${PAGE + 1}`, rev]))
      .split("\0");
    const shown = Math.min(PAGE, Math.floor(records.length / RECORDS_PER_COMMIT));
    seen += shown;
    rev = records[(shown - 1) * RECORDS_PER_COMMIT + 1].split(" ")[0];
    if (rev === "") break;
  }
  return seen;
}

interface McpPeer {
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Wraps a connected client: each call throws on an error result and returns its structuredContent. */
function wrap(client: Client): McpPeer {
  return {
    async call(name, callArgs) {
      const result = await client.callTool({ name, arguments: callArgs });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
      return result.structuredContent as Record<string, unknown>;
    },
    close: () => client.close(),
  };
}

async function workcell(workspace: string): Promise<McpPeer> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [...sourceRunArgs({ http: null }), "--workspace", workspace],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root", NO_COLOR: "1" },
    stderr: "pipe",
  });
  const client = new Client({ name: "git-bench", version: "1.0.0" });
  await client.connect(transport);
  return wrap(client);
}

async function peer(): Promise<McpPeer | null> {
  try {
    return wrap((await connectPeer(PEERS.git, DATA)).client);
  } catch (error) {
    log(`peer not started: ${(error as Error).message}`);
    return null;
  }
}

interface Timing {
  median: number;
  min: number;
}

interface Row {
  operation: string;
  raw: Timing;
  ours: Timing;
  peer: Timing | null;
}

const rows: Row[] = [];

/** Times raw, ours and the peer (and `reference`, a second raw baseline reported as its own row) in the same rounds. */
async function measure(
  operation: string,
  raw: () => Promise<unknown>,
  ours: () => Promise<unknown>,
  other: (() => Promise<unknown>) | null,
  reference?: { operation: string; raw: () => Promise<unknown> },
) {
  log(operation);
  const contenders = [raw, ours, ...(reference ? [reference.raw] : []), ...(other ? [other] : [])];
  const [rawTime, oursTime, ...rest] = await timeRounds(contenders);
  const referenceTime = reference ? rest.shift()! : null;
  const peerTime = rest.shift() ?? null;
  rows.push({ operation, raw: rawTime, ours: oursTime, peer: peerTime });
  if (reference && referenceTime) {
    rows.push({ operation: reference.operation, raw: referenceTime, ours: oursTime, peer: peerTime });
  }
}

await Deno.mkdir(DATA, { recursive: true });
await ensureHistory();
await ensureTree();
const peerServer = await peer();

// git_log: one capped page, and the whole history paged through.
{
  const ours = await workcell(HISTORY);
  const format = `--format=tformat:${COMMIT_FORMAT}`;
  // The floor every git tool keeps: the same raw git started through git's sandbox (the launcher's namespace,
  // Landlock and seccomp steps), from this process as the server does, without MCP.
  const history = await Deno.realPath(HISTORY);
  using sandboxed = gitServiceFor(history);
  const location = sandboxed.locate(history);
  const launched = (args: string[]) => () => sandboxed.run(location, { cwd: history, args });
  const floorLabel = "vs the floor: the same raw git log started through the sandbox launcher (no MCP)";
  // The per-call floor: the same call with a one-commit result.
  await measure(
    `git_log, 1 of ${COMMITS} commits (per-call floor)`,
    () => rawGit(HISTORY, ["log", "-z", format, "--max-count=2"]),
    () => ours.call("git_log", { max_count: 1 }),
    peerServer && (() => peerServer.call("git_log", { path: HISTORY, maxCount: 1 })),
    {
      operation: `git_log, 1 of ${COMMITS} commits ${floorLabel}`,
      raw: launched(["log", "-z", format, "--max-count=2"]),
    },
  );
  await measure(
    `git_log, ${PAGE} of ${COMMITS} commits`,
    () => rawGit(HISTORY, ["log", "-z", format, `--max-count=${PAGE + 1}`]),
    () => ours.call("git_log", { max_count: PAGE }),
    peerServer && (() => peerServer.call("git_log", { path: HISTORY, maxCount: PAGE })),
    {
      operation: `git_log, ${PAGE} of ${COMMITS} commits ${floorLabel}`,
      raw: launched(["log", "-z", format, `--max-count=${PAGE + 1}`]),
    },
  );
  const seen = await rawPages(HISTORY, format);
  if (seen !== COMMITS) throw new Error(`raw paging saw ${seen} of ${COMMITS} commits`);
  await measure(
    `git_log, all ${COMMITS} commits (pages of ${PAGE}) vs raw git paged alike`,
    () => rawPages(HISTORY, format),
    async () => {
      let rev: string | undefined;
      for (let page = 0; page < COMMITS / PAGE; page++) {
        const result = await ours.call("git_log", { max_count: PAGE, ...(rev ? { rev } : {}) });
        const commits = result.commits as { parents: string[] }[];
        rev = commits.at(-1)?.parents[0];
      }
    },
    peerServer && (async () => {
      for (let skip = 0; skip < COMMITS; skip += PAGE) {
        await peerServer.call("git_log", { path: HISTORY, maxCount: PAGE, skip });
      }
    }),
    {
      operation: `git_log, all ${COMMITS} commits (pages of ${PAGE}) vs ONE raw git log of all (unequal work)`,
      raw: () => rawGit(HISTORY, ["log", "-z", format]),
    },
  );
  await ours.close();
}

// git_status on the big tree: clean, then with 100 modified and 100 untracked files.
{
  const ours = await workcell(TREE);
  const statusArgs = [
    "--no-optional-locks",
    "status",
    "--porcelain=v2",
    "-z",
    "--branch",
    "--untracked-files=normal",
    "--ignore-submodules=dirty",
  ];
  // server_info's git context names HEAD only: its floor is the two ref reads, raw; it used to run a full status.
  await measure(
    `server_info on the ${FILES}-file repository vs raw \`git symbolic-ref\` + \`git rev-parse\` (its git part)`,
    () =>
      Promise.all([
        rawGit(TREE, ["symbolic-ref", "-q", "--short", "HEAD"]),
        rawGit(TREE, ["rev-parse", "-q", "--verify", "HEAD^{commit}"]),
      ]),
    () => ours.call("server_info", {}),
    null,
    {
      operation: `server_info on the ${FILES}-file repository vs ONE raw git status (what it ran before)`,
      raw: () => rawGit(TREE, statusArgs),
    },
  );
  await measure(
    `git_status, ${FILES} files, clean`,
    () => rawGit(TREE, statusArgs),
    () => ours.call("git_status", {}),
    peerServer && (() => peerServer.call("git_status", { path: TREE })),
  );
  for (let i = 0; i < 100; i++) {
    await Deno.writeTextFile(path.join(TREE, `d${i}/f0.txt`), `changed ${i}\n`);
    await Deno.writeTextFile(path.join(TREE, `d${i}/new${i}.txt`), "new\n");
  }
  try {
    await measure(
      `git_status, ${FILES} files, 100 modified + 100 untracked`,
      () => rawGit(TREE, statusArgs),
      () => ours.call("git_status", {}),
      peerServer && (() => peerServer.call("git_status", { path: TREE })),
    );
  } finally {
    await git(TREE, "reset", "-q", "--hard", "main");
    await git(TREE, "clean", "-q", "-f");
  }
  await ours.close();
}
await peerServer?.close();

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const ratio = (a: Timing, b: Timing) => `${(a.median / b.median).toFixed(2)}× (${(a.min / b.min).toFixed(2)}×)`;
const lines = [
  "## git tools",
  "",
  `Median of ${RUNS} interleaved rounds after a warm-up; ratios are of medians, with the ratio of the best runs ` +
  `in parentheses (steadier on a loaded machine). "raw git" is the same git command spawned directly (no MCP); ` +
  `workcell and the peer are driven over stdio by the same SDK client. Load average at the end: ` +
  `${Deno.loadavg().map((n) => n.toFixed(1)).join(", ")} on ${navigator.hardwareConcurrency} cores. ` +
  `Goal: workcell ≤ 1.2× raw git.`,
  "",
  "| operation | raw git | workcell | workcell / raw | @cyanheads/git-mcp-server | peer / raw |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map((row) =>
    `| ${row.operation} | ${fmt(row.raw.median)} | ${fmt(row.ours.median)} | ${ratio(row.ours, row.raw)} | ` +
    `${row.peer === null ? "n/a" : fmt(row.peer.median)} | ${row.peer === null ? "n/a" : ratio(row.peer, row.raw)} |`
  ),
];
console.log(lines.join("\n"));
