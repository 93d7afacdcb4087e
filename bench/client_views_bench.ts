/**
 * Client views: what each tool sends at default arguments, before and after
 * the result budget (issue 16), and what paging a whole listing or history
 * costs against one raw `rg --files` / `git log` of all of it.
 *
 * "Before" is the server at BEFORE_COMMIT, extracted with `git archive` into
 * a temporary directory and run from source; "after" is this tree. Both run
 * in the same process on the same generated repository (tests/
 * client_views_repo.ts: 1,500 source files, a 5,000-line file, 1,200
 * commits, a 300-file unstaged diff). Sizes are `JSON.stringify(
 * structuredContent).length` (what Claude Code and VS Code hand the model)
 * and the text's UTF-8 bytes (what content-only clients show).
 */
import { exportCommit } from "./baseline_tree.ts";
import * as path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { createClientViewsRepo } from "../tests/client_views_repo.ts";
import { commitAll, git, importHistory, initRepo, writeFiles } from "../testing/git_fixtures.ts";
import { RG_BASE_ARGS } from "../src/search/ripgrep.ts";
import { listFilesArgs } from "../src/files/list_files.ts";
import { searchArgs } from "../src/search/search_text.ts";
import { COMMIT_FORMAT } from "../src/git/log.ts";
import { DEFAULT_MAX_RESULT_CHARS } from "../src/paging/budget.ts";
import { timeRuns } from "./timing.ts";

/** The commit before the result budget. */
const BEFORE_COMMIT = "6e0851b8362b8d10f097e316f363004bab50fcd8";
const RUNS = Number(Deno.env.get("WORKCELL_BENCH_RUNS") ?? 5);
const encoder = new TextEncoder();

function log(message: string): void {
  console.error(`client_views: ${message}`);
}

interface Server {
  call(name: string, args: Record<string, unknown>): Promise<{ structured: Record<string, unknown>; text: string }>;
  close(): Promise<void>;
}

async function connect(command: string, args: string[]): Promise<Server> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root", NO_COLOR: "1" },
    stderr: "ignore",
  });
  const client = new Client({ name: "client-views-bench", version: "1.0.0" });
  await client.connect(transport);
  return {
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as { type: string; text?: string }[];
      const text = content.filter((block) => block.type === "text").map((block) => block.text).join("\n");
      return { structured: result.structuredContent as Record<string, unknown>, text };
    },
    close: () => client.close(),
  };
}

/** This tree's server, with the permission list `deno task start` uses. */
function after(workspace: string): Promise<Server> {
  return connect(Deno.execPath(), [...sourceRunArgs({ http: null }), "--workspace", workspace]);
}

/** The server at BEFORE_COMMIT, extracted into `dir`. */
async function before(dir: string, workspace: string): Promise<Server> {
  await exportCommit(BEFORE_COMMIT, dir);
  const main = path.join(dir, "main.ts");
  return connect(Deno.execPath(), [
    "run",
    "-A",
    "--config",
    path.join(dir, "deno.json"),
    main,
    "--workspace",
    workspace,
  ]);
}

/** The calls of the size table: default arguments, and the rows. */
const CALLS: [string, Record<string, unknown>][] = [
  ["read_file", { path: "big.ts" }],
  ["read_file", { path: "src/area_00/module_001.ts" }],
  ["list_files", {}],
  ["list_dir", {}],
  ["list_dir", { depth: 3 }],
  ["search_text", { pattern: "helper" }],
  ["git_status", {}],
  ["git_diff", {}],
  ["git_log", {}],
  ["git_log", { max_count: 200 }],
  ["git_show", { rev: "HEAD" }],
  ["git_show", { rev: "HEAD~1199" }],
  ["git_blame", { path: "big.ts" }],
  ["server_info", {}],
  ["check_exec_environment", {}],
  ["exec_command", { cmd: "seq 1 100000" }],
];

async function sizes(server: Server): Promise<{ chars: number; bytes: number; next: boolean }[]> {
  const rows = [];
  for (const [tool, args] of CALLS) {
    const { structured, text } = await server.call(tool, args);
    const next = /\nnext: \w+ \{.*\}$/.test(text);
    rows.push({ chars: JSON.stringify(structured).length, bytes: encoder.encode(text).length, next });
  }
  return rows;
}

/** Pages `tool` to the end by next_cursor; the number of pages and of items. */
async function pageAll(server: Server, tool: string, args: Record<string, unknown>, items: string) {
  // Cold every time: a tool that may write drops what the session kept from the last run (src/paging/snapshots.ts).
  // This call's round trip counts against workcell.
  await server.call("kill_command", { command_id: "none" });
  let cursor: unknown = null;
  let pages = 0;
  let count = 0;
  do {
    const { structured } = await server.call(tool, cursor === null ? args : { ...args, cursor });
    pages++;
    count += (structured[items] as unknown[]).length;
    cursor = structured.next_cursor;
  } while (cursor !== null);
  return { pages, count };
}

/** A repository whose last commit changes every tenth line of 600 files of 80 lines: a 0.8 MB patch of 43,800 lines. */
async function createWideCommit(dir: string): Promise<void> {
  const files = (changed: boolean) => {
    const out: Record<string, string> = {};
    for (let f = 0; f < 600; f++) {
      const lines = Array.from(
        { length: 80 },
        (_, i) => `${changed && i % 10 === 0 ? "changed " : ""}line ${i} of ${f}`,
      );
      out[`d${Math.floor(f / 50)}/f${f}.txt`] = lines.join("\n") + "\n";
    }
    return out;
  };
  await initRepo(dir);
  await writeFiles(dir, files(false));
  await commitAll(dir, "base");
  await writeFiles(dir, files(true));
  await commitAll(dir, "wide");
}

async function raw(command: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "null" }).output();
  if (!out.success) throw new Error(`${command} ${args.join(" ")} failed`);
}

const scratch = await Deno.makeTempDir({ prefix: "workcell-client-views-" });
try {
  log("generating the repository");
  const repo = await createClientViewsRepo(path.join(scratch, "repo"));
  const old = path.join(scratch, "before");
  await Deno.mkdir(old);
  log(`starting the server at ${BEFORE_COMMIT.slice(0, 12)} and this tree's`);
  const [was, now] = await Promise.all([before(old, repo.dir), after(repo.dir)]);
  const [wasSizes, nowSizes] = [await sizes(was), await sizes(now)];
  await was.close();

  log("a 20,000-file tree and a 10,000-commit history for the paging rows");
  const tree = path.join(scratch, "tree");
  for (let d = 0; d < 100; d++) {
    const dir = path.join(tree, `pkg_${String(d).padStart(3, "0")}`, "src");
    await Deno.mkdir(dir, { recursive: true });
    for (let f = 0; f < 200; f++) await Deno.writeTextFile(path.join(dir, `file_${f}.ts`), `export const x = ${f};\n`);
  }
  const history = path.join(scratch, "history");
  await importHistory(history, 10_000);
  const big = await after(scratch);
  const wideRepo = path.join(scratch, "wide");
  await createWideCommit(wideRepo);
  const wide = await after(wideRepo);

  const rgArgs = [
    ...RG_BASE_ARGS,
    ...listFilesArgs({ respectGitignore: true, includeHidden: false, sort: "path" }, []),
  ];
  const logArgs = ["log", "-z", `--format=tformat:${COMMIT_FORMAT}`];
  const paging: string[] = [];
  // workcell's no-op round trip: a call refused at validation, the least a page can cost through the MCP client.
  // Many runs: one slow call among five moved this median from 1.2 to 7.4 ms between two runs of the bench.
  const noop = (server: Server) => timeRuns(() => server.call("list_files", { limit: 0 }).then(() => {}), 41);
  const noopMs = { now: await noop(now), big: await noop(big), wide: await noop(wide) };
  const row = async (
    what: string,
    ours: () => Promise<{ pages: number; count: number }>,
    baseline: string,
    base: () => Promise<void>,
    roundTrip: number,
  ) => {
    const { pages, count } = await ours();
    const [ms, baseMs] = [await timeRuns(ours, RUNS), await timeRuns(base, RUNS)];
    const floor = baseMs + pages * roundTrip;
    paging.push(
      `| ${what} | ${count} | ${pages} | ${ms.toFixed(1)} ms | ${baseline} ${baseMs.toFixed(1)} ms | ${
        (ms / baseMs).toFixed(2)
      }× | ${floor.toFixed(1)} ms | ${(ms / floor).toFixed(2)}× |`,
    );
  };
  const treeRel = path.relative(scratch, tree);
  const historyRel = path.relative(scratch, history);
  log("timing the paging rows");
  await row(
    "list_files, the repository (limit 250)",
    () => pageAll(now, "list_files", {}, "files"),
    "one `rg --files`",
    () => raw(rgPath, rgArgs, repo.dir),
    noopMs.now,
  );
  await row(
    "list_files, 20,000 files (limit 250)",
    () => pageAll(big, "list_files", { path: treeRel }, "files"),
    "one `rg --files`",
    () => raw(rgPath, rgArgs, tree),
    noopMs.big,
  );
  await row(
    "list_files, 20,000 files (limit 100000)",
    () => pageAll(big, "list_files", { path: treeRel, limit: 100000 }, "files"),
    "one `rg --files`",
    () => raw(rgPath, rgArgs, tree),
    noopMs.big,
  );
  await row(
    "list_dir depth 10, 20,000 files in 200 directories (limit 200)",
    () => pageAll(big, "list_dir", { path: treeRel, depth: 10 }, "entries"),
    "one `find`",
    () => raw("find", ["."], tree),
    noopMs.big,
  );
  const search = { pattern: "export", regex: false, case: "smart", includeHidden: false, context: 0 } as const;
  await row(
    "search_text, 20,000 matches in 20,000 files (max_results 2000)",
    () => pageAll(big, "search_text", { pattern: "export", path: treeRel, max_results: 2000 }, "matches"),
    "one `rg --json --sort=path`",
    () => raw(rgPath, [...RG_BASE_ARGS, ...searchArgs(search, ".", [])], tree),
    noopMs.big,
  );
  await row(
    "git_log, the repository's 1,200 commits (max_count 20)",
    () => pageAll(now, "git_log", {}, "commits"),
    "one `git log` of all",
    () => raw("git", logArgs, repo.dir),
    noopMs.now,
  );
  await row(
    "git_log, 1,200 commits (max_count 500)",
    () => pageAll(now, "git_log", { max_count: 500 }, "commits"),
    "one `git log` of all",
    () => raw("git", logArgs, repo.dir),
    noopMs.now,
  );
  await row(
    "git_log, 10,000 commits (max_count 500)",
    () => pageAll(big, "git_log", { path: historyRel, max_count: 500 }, "commits"),
    "one `git log` of all",
    () => raw("git", logArgs, history),
    noopMs.big,
  );
  // git_diff and git_show run git twice (stats and patch, side by side); the baseline is one run of both.
  const showArgs = ["show", "-M", "--format=", "--raw", "--numstat", "-p", "HEAD"];
  await row(
    "git_show, a commit changing 600 files (0.8 MB patch)",
    () => pageAll(wide, "git_show", { rev: "HEAD" }, "files"),
    "one `git show --numstat -p`",
    () => raw("git", showArgs, wideRepo),
    noopMs.wide,
  );
  await row(
    "git_diff, the same change as a range",
    () => pageAll(wide, "git_diff", { rev: "HEAD~1..HEAD" }, "files"),
    "one `git show --numstat -p`",
    () => raw("git", showArgs, wideRepo),
    noopMs.wide,
  );
  await Promise.all([now.close(), big.close(), wide.close()]);
  await git(repo.dir, "status", "--short"); // the repository is still readable (nothing was written to it)

  const lines = [
    "## Client views: result sizes at default arguments, and the cost of paging",
    "",
    `Generated repository (tests/client_views_repo.ts): ${repo.sourceFiles.length} source files, a ${repo.bigLines}-line \`big.ts\`, ` +
    `${repo.commits} commits, ${repo.modified.length} files changed in the work tree. "structured" is ` +
    "`JSON.stringify(structuredContent).length` (what Claude Code and VS Code give the model; Claude Code moves a " +
    `result over 50,000 characters to a file), "text" the content's UTF-8 bytes (bound: 16,384). Before: the server at ` +
    `${BEFORE_COMMIT.slice(0, 12)}; after: this tree, ceiling ${DEFAULT_MAX_RESULT_CHARS} (\`--max-result-chars\`). ` +
    '"next" says whether the text ends with the call that continues.',
    "",
    "| call | structured before | structured after | text before | text after | next after |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    ...CALLS.map(([tool, args], i) =>
      `| \`${tool} ${JSON.stringify(args)}\` | ${wasSizes[i].chars} | ${nowSizes[i].chars} | ${wasSizes[i].bytes} | ` +
      `${nowSizes[i].bytes} | ${nowSizes[i].next ? "yes" : "no (whole)"} |`
    ),
    "",
    `Paging a whole listing or history by next_cursor, through the MCP client over stdio, against one raw run of the ` +
    `same walk or log in the same process (median of ${RUNS} after a warm-up, each started cold: a kill_command first ` +
    "drops what the session kept). list_files sorted by path, mtime or size keeps its first page's listing, list_dir " +
    "its first page's walk, git_diff, git_show and search_text (from its second page) what each run read past its page (reads grow eightfold), git_log " +
    'what each git run read past its page (reads grow fourfold); the other pages read from there. "floor" is the ' +
    `baseline plus one no-op round trip per page (a call refused at validation: ${noopMs.big.toFixed(1)} ms), issue ` +
    "31's measure.",
    "",
    "| paging | items | pages | workcell | baseline | ratio | floor | vs floor |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...paging,
  ];
  console.log(lines.join("\n"));
} finally {
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
}
