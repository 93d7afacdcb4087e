/**
 * Finds the repository a git tool works on and translates paths between
 * git and the workspace.
 *
 * The repository is discovered from a confined path (or the workspace
 * root). Its work tree must be the workspace, lie inside it, or contain
 * it. In the last case (a workspace inside a parent repository) git runs in
 * the workspace with the pathspec `.`, so nothing outside the workspace is
 * reported, and every path is reported relative to the workspace.
 *
 * @example
 * const repo = await openRepo(ws, "src/a.ts");
 * repo.toGit(abs);          // "src/a.ts" relative to repo.cwd
 * repo.fromTop("src/a.ts"); // workspace-relative, or null when outside
 */
import * as path from "node:path";
import { ToolError } from "../errors.ts";
import { confine, inPinnedDirectory, isInside, toRelative, type Workspace } from "../workspace/confine.ts";
import { gitFailure, type GitRequest, type GitRun, runGit } from "./runner.ts";
import { driverOverrides } from "./safety.ts";

/** A repository opened for one tool call. */
export interface GitRepo {
  ws: Workspace;
  /** Where git runs: the top level when it is inside the workspace, else the workspace root. */
  cwd: string;
  /** True when the workspace lies inside the repository (git output is then limited to it). */
  parent: boolean;
  /** Environment blanking the repository's program-valued drivers (./safety.ts), when the call reads the work tree. */
  env: Record<string, string>;
  /** Path for git, relative to `cwd`, of an absolute path inside the workspace. */
  toGit(abs: string): string;
  /** Workspace-relative form of a path git printed relative to the top level; null when outside the workspace. */
  fromTop(gitPath: string): string | null;
  /** Workspace-relative form of a path git printed relative to `cwd`; null when outside the workspace. */
  fromCwd(gitPath: string): string | null;
  /** The default pathspec: `.` limiting output to the workspace in a parent repository, else none. */
  scope(): string[];
  /** Runs git in `cwd` with the driver overrides. */
  run(args: string[], options?: Pick<GitRequest, "onStdout" | "signal" | "input">): Promise<GitRun>;
}

const decoder = new TextDecoder();

/** The nearest existing directory at or above `abs`. */
async function nearestDirectory(abs: string): Promise<string> {
  let dir = abs;
  while (true) {
    try {
      const info = await Deno.stat(dir);
      return info.isDirectory ? dir : path.dirname(dir);
    } catch {
      const up = path.dirname(dir);
      if (up === dir) return dir;
      dir = up;
    }
  }
}

/** Options of {@linkcode openRepo}. */
export interface OpenOptions {
  /**
   * The call reads work-tree file contents (status, a diff against the work
   * tree, blame without a revision), where git would run filter drivers:
   * list the config to blank them. Reads of stored objects run no filter,
   * and textconv and external diff are off by flag, so they skip the listing.
   */
  readsWorkTree: boolean;
  signal?: AbortSignal;
}

/**
 * Opens the repository containing `target` (a confined workspace path) or
 * the workspace root.
 *
 * @example
 * const repo = await openRepo(ws, null, { readsWorkTree: true });
 */
export async function openRepo(ws: Workspace, target: string | null, options: OpenOptions): Promise<GitRepo> {
  const { signal } = options;
  const start = target === null ? ws.root : await nearestDirectory(target);
  const [top, config] = await inPinnedDirectory(ws, start, (cwd) =>
    Promise.all([
      runGit({ cwd, args: ["rev-parse", "--show-toplevel"], signal }),
      options.readsWorkTree ? runGit({ cwd, args: ["config", "-z", "--list", "--name-only"], signal }) : null,
    ]));
  if (top.code !== 0) {
    if (/must be run in a work tree|not a git repository/i.test(top.stderr)) {
      throw new ToolError("NOT_A_GIT_REPO", `${toRelative(ws, start)} is not inside a git work tree`, {
        details: { path: toRelative(ws, start), stderr: top.stderr },
      });
    }
    throw gitFailure(top, "rev-parse");
  }
  const topText = decoder.decode(top.stdout).replace(/\n$/, "");
  let topReal = topText;
  try {
    topReal = Deno.realPathSync(topText); // sync: microseconds, where the async op costs a thread-pool hop
  } catch { /* keep git's spelling */ }
  const parent = !isInside(ws.root, topReal);
  if (parent && !isInside(topReal, ws.root)) {
    throw new ToolError("NOT_A_GIT_REPO", `the repository's work tree ${topReal} is outside the workspace`, {
      hint: "Git tools only work on a repository whose work tree is the workspace, inside it, or contains it.",
      details: { work_tree: topReal },
    });
  }
  let env: Record<string, string> = {};
  if (config) {
    // Fail closed: a listing that failed or was cut could hide a driver.
    if (config.code !== 0 || config.stopped) throw gitFailure(config, "config");
    env = driverOverrides(decoder.decode(config.stdout).split("\0").filter((key) => key.length > 0));
  }
  return repoAt(ws, topReal, parent, env);
}

/** The repository whose work tree's top level is `topReal` (`parent`: it contains the workspace). */
function repoAt(ws: Workspace, topReal: string, parent: boolean, env: Record<string, string>): GitRepo {
  const cwd = parent ? ws.root : topReal;
  // git marks a directory (an untracked one, say) with a trailing "/": keep it.
  const from = (base: string, gitPath: string) => {
    const abs = path.join(base, gitPath);
    if (!isInside(ws.root, abs.replace(/\/$/, ""))) return null;
    return toRelative(ws, abs) + (gitPath.endsWith("/") ? "/" : "");
  };
  return {
    ws,
    cwd,
    parent,
    env,
    toGit: (abs) => path.relative(cwd, abs) || ".",
    fromTop: (gitPath) => from(topReal, gitPath),
    fromCwd: (gitPath) => from(cwd, gitPath),
    scope: () => parent ? ["."] : [],
    // The top level is pinned for each run: a nested repository swapped for a symlink never moves git outside.
    run: (args, options = {}) => inPinnedDirectory(ws, cwd, (pinned) => runGit({ cwd: pinned, args, env, ...options })),
  };
}

/**
 * Confines a user path and opens its repository in one step.
 *
 * @example
 * const { repo, target } = await openRepoAt(ws, "src/a.ts", { allowMissing: true, readsWorkTree: false });
 */
export async function openRepoAt(
  ws: Workspace,
  input: string | undefined,
  options: OpenOptions & { allowMissing: boolean },
): Promise<{ repo: GitRepo; target: string | null }> {
  if (input === undefined) return { repo: await openRepo(ws, null, options), target: null };
  const confined = await confine(ws, input, { allowMissing: options.allowMissing });
  return { repo: await openRepo(ws, confined.abs, options), target: confined.abs };
}

/** One read planned for a repository: git's arguments, and a fresh consumer of its stdout. */
export interface PlannedRead<C> {
  args: string[];
  consumer: C;
  onStdout(chunk: Uint8Array): boolean | void;
}

/**
 * Confines `input`, opens its repository for a read of stored objects only
 * (no work-tree config listing, so no extra environment) and runs the read
 * `plan` makes for it.
 *
 * Discovery (`git rev-parse`) costs a whole git start, so the read does not
 * wait for it: it starts at once, alongside discovery, on the guess that git
 * runs in the workspace root with no scope (the repository is the
 * workspace). Its result is kept only when discovery then plans the very
 * same invocation (same directory, same arguments, same environment), which
 * gives the very same output; otherwise (a parent or nested repository, a
 * refused work tree, no repository) it is killed, its output dropped, and
 * discovery's answer decides as before. The early run uses the same safety
 * options as every read (./runner.ts), so it can do nothing the kept run
 * could not. Errors keep their order: `plan`'s refusals come after
 * discovery's (an early plan that throws just skips the early run).
 *
 * @example
 * const { run, consumer } = await readRepoAt(ws, "src", { allowMissing: true }, (repo, target) => {
 *   const parser = new CommitParser();
 *   return { args: ["log", "--", repo.toGit(target!)], consumer: parser, onStdout: (c) => parser.push(c) };
 * });
 */
export async function readRepoAt<C>(
  ws: Workspace,
  input: string | undefined,
  options: { allowMissing: boolean; signal?: AbortSignal },
  plan: (repo: GitRepo, target: string | null) => PlannedRead<C>,
): Promise<{ repo: GitRepo; target: string | null; run: GitRun; consumer: C }> {
  const { signal } = options;
  const target = input === undefined ? null : (await confine(ws, input, options)).abs;
  const guess = repoAt(ws, ws.root, false, {});
  let early: { read: PlannedRead<C>; run: Promise<GitRun>; stop: AbortController } | null = null;
  try {
    const read = plan(guess, target);
    const stop = new AbortController();
    const run = guess.run(read.args, {
      onStdout: read.onStdout,
      signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    });
    run.catch(() => {}); // awaited below, or dropped
    early = { read, run, stop };
  } catch {
    // plan refuses an argument: it will again, after discovery, as the call always did.
  }
  const drop = async () => {
    if (!early) return;
    early.stop.abort();
    await early.run.catch(() => {});
  };
  let repo: GitRepo;
  let read: PlannedRead<C>;
  try {
    repo = await openRepo(ws, target, { readsWorkTree: false, signal });
    read = plan(repo, target);
  } catch (error) {
    await drop();
    throw error;
  }
  if (early && repo.cwd === guess.cwd && sameArgs(read.args, early.read.args)) {
    return { repo, target, run: await early.run, consumer: early.read.consumer };
  }
  await drop();
  return { repo, target, run: await repo.run(read.args, { onStdout: read.onStdout, signal }), consumer: read.consumer };
}

function sameArgs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((arg, i) => arg === b[i]);
}

/**
 * Refuses a revision git could read as an option (or that cannot be an argument at all).
 *
 * @example
 * checkRevision("--output=/etc/x", "rev"); // throws INVALID_ARGUMENT
 */
export function checkRevision(rev: string, field: string): string {
  if (rev.length === 0 || rev.startsWith("-") || /[\0\n\r]/.test(rev)) {
    throw new ToolError("INVALID_ARGUMENT", `${field}: ${JSON.stringify(rev)} is not a revision`, {
      hint: 'Give a revision such as "HEAD~2", a sha, a branch, or a range "A..B"; it may not start with "-".',
      details: { field },
    });
  }
  return rev;
}
