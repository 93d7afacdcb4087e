/**
 * `deno task bench patch`: apply_patch against the Codex CLI's own
 * apply_patch (npm:@openai/codex, run through its `apply_patch` argv[0]
 * mode) on identical inputs:
 * - a 1,000-file patch with 3 hunks per file;
 * - a one-hunk update in a 50 MB file;
 * - every scenario of tests/patch_scenarios/, comparing outcomes.
 * Time is the median of RUNS runs; peak RSS is GNU time's max resident set.
 * Ours is measured three ways: through a warm MCP server (tools/call round
 * trip), as a cold process (`deno run`, like the Codex binary), and the
 * in-process apply inside that process. Needs `npm install @openai/codex`
 * in bench/.data/peers (bench/peers.ts installs it if missing) and /usr/bin/time.
 * The cold process is bench/patch_apply_once.ts.
 */
import * as path from "node:path";
import { applyPatch } from "../src/patch/apply.ts";
import { openWorkspace } from "../src/workspace/workspace.ts";
import { startServer } from "../tests/harness.ts";
import { loadScenarios, prepare, setImmutable } from "../testing/patch_scenarios.ts";
import { type Entry, snapshot, treeDifferences } from "../testing/tree_snapshot.ts";
import { ToolError } from "../src/errors.ts";
import { CODEX, CODEX_BINARY, ensurePeer, peerDir, PEERS_DIR } from "./peers.ts";
import { COMMIT_CONCURRENCY } from "../src/patch/commit.ts";
import { eachLimited } from "../src/async/each_limited.ts";
import { SYNCFS_MIN_FILES } from "../src/patch/durability.ts";
import { openDirectory, reopenFd } from "../src/os/fs_at.ts";
import { O } from "../src/os/libc.ts";
import { syncFs } from "../src/os/fs_change.ts";
import { closeFd } from "../src/os/fd.ts";
import { portablePaths } from "../src/docs/machine_paths.ts";

const RUNS = 5;
const MANY_FILES = 1000;
const LINES_PER_FILE = 60;
const BIG_FILE_BYTES = 50 * 1024 * 1024;

const here = new URL(".", import.meta.url).pathname;
const data = path.join(here, ".data", "patch");
const config = path.join(here, "..", "deno.json");

const log = (message: string) => console.error(`patch_bench: ${message}`);

async function run(cmd: string, args: string[], options: { cwd?: string; stdin?: string } = {}) {
  const child = new Deno.Command(cmd, {
    args,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** The Codex binary behind `npm:@openai/codex`, reached through an `apply_patch` argv[0] link. */
async function codexApplyPatch(): Promise<string> {
  await ensurePeer(CODEX);
  const link = path.join(PEERS_DIR, "apply_patch");
  await Deno.remove(link).catch(() => {});
  await Deno.symlink(CODEX_BINARY, link);
  return link;
}

function fileBody(i: number): string[] {
  return Array.from({ length: LINES_PER_FILE }, (_, k) => `export const v${i}_${k} = ${k}; // line ${k}`);
}

/** Writes pristine trees and patches for the two timed cases (once; reused while present). */
async function generate(): Promise<{ name: string; tree: string; patch: string }[]> {
  const many = path.join(data, "many");
  const big = path.join(data, "big");
  const manyPatch = path.join(data, "many.patch");
  const bigPatch = path.join(data, "big.patch");
  const ready = await Deno.stat(bigPatch).then(() => true, () => false);
  if (!ready) {
    log("generating inputs");
    await Deno.remove(data, { recursive: true }).catch(() => {});
    await Deno.mkdir(path.join(many, "src"), { recursive: true });
    const hunks: string[] = ["*** Begin Patch"];
    for (let i = 0; i < MANY_FILES; i++) {
      const rel = `src/mod_${String(i).padStart(4, "0")}.ts`;
      const lines = fileBody(i);
      await Deno.writeTextFile(path.join(many, rel), lines.join("\n") + "\n");
      hunks.push(`*** Update File: ${rel}`);
      for (const at of [10, 30, 50]) {
        hunks.push("@@", ...lines.slice(at - 3, at).map((l) => ` ${l}`), `-${lines[at]}`, `+${lines[at]} // patched`);
        hunks.push(...lines.slice(at + 1, at + 4).map((l) => ` ${l}`));
      }
    }
    hunks.push("*** End Patch");
    await Deno.writeTextFile(manyPatch, hunks.join("\n") + "\n");
    await Deno.mkdir(big, { recursive: true });
    const line = (k: number) => `line ${String(k).padStart(8, "0")} lorem ipsum dolor sit amet`;
    const count = Math.ceil(BIG_FILE_BYTES / (line(0).length + 1));
    const file = await Deno.open(path.join(big, "big.txt"), { write: true, create: true, truncate: true });
    const chunk: string[] = [];
    for (let k = 0; k < count; k++) {
      chunk.push(line(k));
      if (chunk.length === 50000 || k === count - 1) {
        await file.write(new TextEncoder().encode(chunk.join("\n") + "\n"));
        chunk.length = 0;
      }
    }
    file.close();
    const mid = Math.floor(count / 2);
    await Deno.writeTextFile(
      bigPatch,
      [
        "*** Begin Patch",
        "*** Update File: big.txt",
        "@@",
        ` ${line(mid - 1)}`,
        `-${line(mid)}`,
        `+${line(mid)} PATCHED`,
        ` ${line(mid + 1)}`,
        "*** End Patch",
        "",
      ]
        .join("\n"),
    );
  }
  return [
    { name: `${MANY_FILES} files × 3 hunks`, tree: many, patch: manyPatch },
    { name: "1 hunk in a 50 MB file", tree: big, patch: bigPatch },
  ];
}

async function reset(tree: string, ws: string): Promise<void> {
  // Emptied, not replaced: a running server holds the workspace root by fd, and would keep the old directory.
  await Deno.mkdir(ws, { recursive: true });
  for await (const entry of Deno.readDir(ws)) await Deno.remove(path.join(ws, entry.name), { recursive: true });
  const out = await run("cp", ["-a", `${tree}/.`, ws]);
  if (out.code !== 0) throw new Error(`cp failed: ${out.stderr}`);
  await run("sync", []); // neither tool should pay for flushing the copy
}

/** Runs a command under GNU time; returns wall ms and max RSS in KiB. */
async function timed(args: string[], options: { cwd?: string; stdin?: string }) {
  const out = await run("/usr/bin/time", ["-f", "WORKCELL_TIME %e %M", ...args], options);
  const match = /WORKCELL_TIME ([\d.]+) (\d+)/.exec(out.stderr);
  if (!match) throw new Error(`no timing from ${args[0]}: ${out.stderr}`);
  return { ms: parseFloat(match[1]) * 1000, rssKb: parseInt(match[2]), ...out };
}

/**
 * The cost of the atomic-install contract alone on this disk: for each file,
 * read it, write a temp file, fsync, hard-link the old one aside, rename,
 * fsync the directory, unlink the backup; same concurrency as the commit.
 * `batch`: the temp files are all written first and made durable by one
 * syncfs, then linked aside and renamed (what the commit does for a large
 * patch, src/patch/durability.ts).
 */
async function installFloor(ws: string, files: string[], batch = false): Promise<number> {
  const t0 = performance.now();
  const stage = async (rel: string) => {
    const target = path.join(ws, rel);
    const bytes = await Deno.readFile(target);
    const temp = `${target}.floor-tmp`;
    const handle = await Deno.open(temp, { write: true, createNew: true });
    await handle.write(bytes);
    if (!batch) await handle.sync();
    handle.close();
  };
  const install = async (rel: string) => {
    const target = path.join(ws, rel);
    await Deno.link(target, `${target}.floor-bak`);
    await Deno.rename(`${target}.floor-tmp`, target);
  };
  const pool = (fn: (rel: string) => Promise<void>) => eachLimited(files, COMMIT_CONCURRENCY, fn);
  if (batch) {
    await pool(stage);
    // syncfs refuses an O_PATH fd (EBADF): the directory is reopened for reading, as the fd backend's handles do.
    const pathFd = openDirectory(path.join(ws, path.dirname(files[0])));
    const dirFd = reopenFd(pathFd, O.RDONLY | O.DIRECTORY);
    try {
      await syncFs(dirFd);
    } finally {
      closeFd(dirFd);
      closeFd(pathFd);
    }
    await pool(install);
  } else await pool(async (rel) => (await stage(rel), await install(rel)));
  const dir = await Deno.open(path.join(ws, path.dirname(files[0])), { read: true });
  await dir.sync();
  dir.close();
  await pool((rel) => Deno.remove(path.join(ws, `${rel}.floor-bak`)));
  return performance.now() - t0;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n: number) => n >= 100 ? n.toFixed(0) : n.toFixed(1);

function sameTrees(a: Map<string, Entry>, b: Map<string, Entry>): string[] {
  return treeDifferences(a, b);
}

const codex = await codexApplyPatch();
const cases = await generate();
const rows: string[] = [];
const parity: string[] = [];
for (const c of cases) {
  const patchText = await Deno.readTextFile(c.patch);
  const wsCodex = path.join(data, "run-codex");
  const wsOurs = path.join(data, "run-ours");
  const codexMs: number[] = [];
  const codexRss: number[] = [];
  const coldMs: number[] = [];
  const innerMs: number[] = [];
  const coldRss: number[] = [];
  const mcpMs: number[] = [];
  const floorMs: number[] = [];
  const floorBatchMs: number[] = [];
  const wsMcp = path.join(data, "run-mcp");
  await reset(c.tree, wsMcp);
  await using server = await startServer({ workspace: await Deno.realPath(wsMcp) });
  const files = patchText.split("\n").filter((line) => line.startsWith("*** Update File: ")).map((line) =>
    line.slice(17)
  );
  // The row is a warm server's: one untimed call first, so its median is not a first call's compilation.
  if ((await server.call("apply_patch", { patch: patchText })).isError) throw new Error(`warm-up failed on ${c.name}`);
  for (let i = 0; i < RUNS; i++) {
    // One run of each, interleaved, so that load from elsewhere on the machine hits all of them alike.
    log(`${c.name}: run ${i + 1}/${RUNS}`);
    await reset(c.tree, wsCodex);
    const cx = await timed([codex], { cwd: wsCodex, stdin: patchText });
    if (cx.code !== 0) throw new Error(`codex failed on ${c.name}: ${cx.stderr.slice(0, 500)}`);
    codexMs.push(cx.ms);
    codexRss.push(cx.rssKb);
    await reset(c.tree, wsOurs);
    const cold = await timed([
      Deno.execPath(),
      "run",
      "-A",
      "--config",
      config,
      path.join(here, "patch_apply_once.ts"),
      wsOurs,
      c.patch,
    ], {});
    if (cold.code !== 0) throw new Error(`ours failed on ${c.name}: ${cold.stderr.slice(0, 500)}`);
    coldMs.push(cold.ms);
    coldRss.push(cold.rssKb);
    innerMs.push(JSON.parse(cold.stdout).ms);
    await reset(c.tree, wsMcp);
    const t0 = performance.now();
    const result = await server.call("apply_patch", { patch: patchText });
    mcpMs.push(performance.now() - t0);
    if (result.isError) throw new Error(`ours (MCP) failed on ${c.name}: ${result.text.slice(0, 500)}`);
    await reset(c.tree, wsOurs);
    floorMs.push(await installFloor(wsOurs, files));
    if (files.length >= SYNCFS_MIN_FILES) {
      await reset(c.tree, wsOurs);
      floorBatchMs.push(await installFloor(wsOurs, files, true));
    }
  }
  const differences = sameTrees(await snapshot(wsMcp), await snapshot(wsCodex));
  parity.push(
    `- ${c.name}: ${
      differences.length === 0 ? "identical trees" : `trees differ: ${differences.slice(0, 3).join("; ")}`
    }`,
  );
  const base = median(codexMs);
  rows.push(`| ${c.name} | Codex CLI apply_patch (process) | ${fmt(base)} | ${fmt(median(codexRss) / 1024)} | 1.00 |`);
  rows.push(
    `| ${c.name} | workcell, cold process (\`deno run\`) | ${fmt(median(coldMs))} | ${fmt(median(coldRss) / 1024)} | ${
      (median(coldMs) / base).toFixed(2)
    } |`,
  );
  rows.push(
    `| ${c.name} | workcell, apply inside that process | ${fmt(median(innerMs))} | – | ${
      (median(innerMs) / base).toFixed(2)
    } |`,
  );
  rows.push(
    `| ${c.name} | workcell, MCP tools/call (warm server) | ${fmt(median(mcpMs))} | – | ${
      (median(mcpMs) / base).toFixed(2)
    } |`,
  );
  rows.push(
    `| ${c.name} | floor: read, temp + fsync + rename + unlink of the old inode, nothing else | ${
      fmt(median(floorMs))
    } | – | ${(median(floorMs) / base).toFixed(2)} |`,
  );
  if (floorBatchMs.length > 0) {
    rows.push(
      `| ${c.name} | floor with one syncfs (as the commit does from ${SYNCFS_MIN_FILES} files): read, temp, syncfs, rename, unlink | ${
        fmt(median(floorBatchMs))
      } | – | ${(median(floorBatchMs) / base).toFixed(2)} |`,
    );
  }
  for (const dir of [wsCodex, wsOurs, wsMcp]) await Deno.remove(dir, { recursive: true });
}

/** Why each known disagreement with Codex is intended (see docs/apply-patch.md). */
const OUTSIDE =
  "confinement: a patch never writes outside the workspace, whatever `..`, absolute paths or symlinks say";
const GIT = "writes under .git/ are refused: a planted hook or config would later run outside any sandbox";
const UNIQUE = "context must match exactly once; Codex silently takes the first of several matches";
const OVERWRITE = "Add File and Move to never overwrite an existing file (ALREADY_EXISTS); Codex replaces it silently";
const FINAL_NEWLINE =
  "the final newline is an ordinary line (SPEC); Codex forces exactly one newline at the end of every file it writes";
const WHY: Record<string, string> = {
  absolute_path_outside_refused: OUTSIDE,
  dotdot_escape_refused: OUTSIDE,
  dotdot_in_the_middle_refused: OUTSIDE,
  symlinked_file_to_outside_not_written: OUTSIDE,
  symlinked_dir_to_outside_add_refused: OUTSIDE,
  delete_through_symlink_to_outside_refused: OUTSIDE,
  move_through_symlink_to_outside_refused: OUTSIDE,
  dangling_symlink_to_outside_refused: OUTSIDE,
  git_hook_write_refused: GIT,
  git_config_update_refused: GIT,
  git_dir_uppercase_refused: GIT,
  git_dir_through_symlink_refused: GIT,
  move_into_git_dir_refused: GIT,
  midway_protected_path_leaves_tree_identical: GIT + "; and nothing else of the patch is written",
  ambiguous_context_is_refused: UNIQUE,
  ambiguous_after_trimming: UNIQUE,
  anchor_ambiguous: UNIQUE + " (here the @@ anchor)",
  add_existing_file: OVERWRITE,
  move_onto_existing_file: OVERWRITE,
  midway_add_existing_leaves_tree_identical: OVERWRITE + "; and nothing else of the patch is written",
  add_final_newline: FINAL_NEWLINE + " (here it adds a second one)",
  remove_final_newline: FINAL_NEWLINE,
  missing_final_newline_is_preserved: FINAL_NEWLINE,
  anchor_pure_addition_inserts_after_anchor:
    "an @@-anchored pure addition goes right after its anchor; Codex appends it at the end of the file",
  anchor_repeated_as_first_context_line:
    "the hunk is searched from the anchor line itself, so context that repeats the anchor matches; Codex looks only after it",
  stacked_anchors_narrow_step_by_step: "stacked @@ lines narrow step by step; Codex's parser rejects a second @@ line",
  hunks_out_of_order_still_unique:
    "a hunk found exactly once before the previous one (no overlap) is still placed; Codex searches forward only",
  bom_is_preserved: "the BOM is set aside for matching and put back; Codex compares it as part of the first line",
  lone_cr_is_an_ordinary_character: "lines split on \\n only, a lone CR is kept; Codex rewrites it",
  move_inherits_source_mode:
    "a move keeps the source's mode (SPEC); Codex creates the destination with the default mode",
  move_after_hunks_as_in_the_seed:
    "the seed's own example puts *** Move to after the hunk; Codex accepts it only right after the Update line",
  blank_lines_between_operations: "blank lines between operations are separators agents leave; Codex rejects the patch",
  directory_path_is_invalid_argument: "`newdir/` names a directory; Codex creates a regular file called newdir",
  move_only_without_hunks: "an Update with only *** Move to is a rename; Codex requires a hunk",
  move_only_binary_file_keeps_bytes: "a pure rename copies any bytes verbatim; Codex requires a hunk",
  heredoc_wrapper:
    "the heredoc wrapper agents send is unwrapped; Codex's binary rejects it (its CLI strips it before calling)",
  heredoc_unquoted_delimiter:
    "the heredoc wrapper agents send is unwrapped; Codex's binary rejects it (its CLI strips it before calling)",
  fault_immutable_directory_for_second_file:
    "an atomic replacement needs a sibling temp file, which an immutable directory refuses, so nothing is written; Codex truncates and rewrites in place (a crash mid-write leaves a torn file)",
  fault_immutable_file_after_first_install:
    "all or nothing: the files already installed are rolled back; Codex keeps them",
  fault_immutable_parent_for_new_directory:
    "all or nothing: the files already installed are rolled back; Codex keeps them",
  midway_context_miss_leaves_tree_identical:
    "all or nothing: every hunk is matched before any write; Codex keeps the files written before the failure",
  midway_hunk_miss_leaves_tree_identical:
    "all or nothing: every hunk is matched before any write; Codex keeps the files written before the failure",
};

log("scenarios");
const scenarioRows: string[] = [];
let bothAccept = 0;
let identical = 0;
let agreeRefuse = 0;
const scenarios = await loadScenarios();
const sandbox = path.join(data, "scenarios");
for (const scenario of scenarios) {
  const outcome = async (tool: "ours" | "codex") => {
    await Deno.remove(sandbox, { recursive: true }).catch(() => {});
    const ws = path.join(sandbox, "ws");
    const outside = path.join(sandbox, "outside");
    await Deno.mkdir(ws, { recursive: true });
    await Deno.mkdir(outside, { recursive: true });
    await prepare(scenario, ws, outside);
    await setImmutable(scenario, ws, true);
    let result: string;
    if (tool === "ours") {
      result = await applyPatch(openWorkspace(ws), scenario.patch).then(
        () => "ok",
        (error) => error instanceof ToolError ? error.code : `crash: ${error}`,
      );
    } else {
      const out = await run(codex, [], { cwd: ws, stdin: scenario.patch });
      // Codex names files by absolute path; the report names them as the scenario does (ws/f.py).
      const message = portablePaths((out.stderr || out.stdout).trim().split("\n")[0], [{ dir: sandbox, as: "" }]);
      result = out.code === 0 ? "ok" : `error: ${message.slice(0, 80)}`;
    }
    await setImmutable(scenario, ws, false);
    const tree = await snapshot(ws);
    const outsideTree = await snapshot(outside);
    const escaped = (await snapshot(sandbox)).size - tree.size - outsideTree.size - 2;
    await Deno.remove("/tmp/workcell-escaped.txt").catch(() => {});
    return { result, tree, outsideTree, escaped };
  };
  const ours = await outcome("ours");
  const theirs = await outcome("codex");
  const oursOk = ours.result === "ok";
  const theirsOk = theirs.result === "ok";
  let disagreement: string | null = null;
  if (oursOk && theirsOk) {
    bothAccept++;
    const diff = sameTrees(ours.tree, theirs.tree);
    if (diff.length === 0) identical++;
    else disagreement = `both accept, trees differ: ${diff[0].slice(0, 120)}`;
  } else if (oursOk !== theirsOk) {
    disagreement = oursOk ? `we apply; Codex refuses (${theirs.result})` : `we refuse (${ours.result}); Codex applies`;
    const touchedOutside = sameTrees(theirs.outsideTree, ours.outsideTree).length > 0 || theirs.escaped > 0;
    if (touchedOutside) disagreement += ", writing outside the workspace";
  } else {
    agreeRefuse++;
    const partial = sameTrees(theirs.tree, ours.tree);
    if (partial.length > 0) disagreement = `both refuse; Codex leaves a partial write: ${partial[0].slice(0, 100)}`;
  }
  if (disagreement) {
    scenarioRows.push(`| ${scenario.name} | ${disagreement.replaceAll("|", "\\|")} | ${WHY[scenario.name] ?? "?"} |`);
  }
}
await Deno.remove(sandbox, { recursive: true }).catch(() => {});

const version = JSON.parse(await Deno.readTextFile(path.join(peerDir(CODEX), "package.json"))).version;
console.log(`## apply_patch vs the Codex CLI's apply_patch

Codex CLI ${version} (\`npm:@openai/codex\`, its binary run as \`apply_patch\` with the patch on stdin) against
workcell on identical inputs; median of ${RUNS} runs, fresh copy of the tree each run, peak RSS from GNU time.
Ratio = time / Codex time (lower is better).

| case | tool | time (ms) | peak RSS (MiB) | ratio |
| --- | --- | ---: | ---: | ---: |
${rows.join("\n")}

Same results on the timed cases:
${parity.join("\n")}

Scenarios (tests/patch_scenarios/, ${scenarios.length}): both accept ${bothAccept}, identical trees ${identical} of those;
both refuse ${agreeRefuse}; disagreements ${scenarioRows.length}:

| scenario | difference | why ours is right |
| --- | --- | --- |
${scenarioRows.join("\n")}`);
