import * as path from "node:path";
import { ToolError } from "../errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { isInside, toRelative } from "../workspace/confine.ts";
import { gitFailure, type GitRequest, type GitRun } from "./runner.ts";
import { driverOverrides } from "./safety.ts";
import type { GitService } from "./service.ts";
import { realPathOrNull, type RepositoryLocation } from "./location.ts";
import { statPath } from "../os/fs_stat.ts";

/**
 * A repository opened for one tool call, found from a confined path on disk (location.ts), confirmed by git. Its work
 * tree is the workspace, lies inside it, or contains it; then git runs in the workspace with the pathspec `.`.
 */
export interface GitRepo {
  ws: Workspace;
  /** Where git runs: the top level when it is inside the workspace, else the workspace root. */
  cwd: string;
  /** True when the workspace lies inside the repository (git output is then limited to it). */
  parent: boolean;
  /** Environment blanking the repository's program-valued drivers (./safety.ts), when git's execution is unconfined. */
  env: Record<string, string>;
  toGit(abs: string): string;
  /** Workspace-relative form of a path git printed relative to the top level; null when outside the workspace. */
  fromTop(gitPath: string): string | null;
  /** Workspace-relative form of a path git printed relative to `cwd`; null when outside the workspace. */
  fromCwd(gitPath: string): string | null;
  /** The default pathspec: `.` limiting output to the workspace in a parent repository, else none. */
  scope(): string[];
  run(args: string[], options?: Pick<GitRequest, "onStdout" | "signal" | "stdin">): Promise<GitRun>;
}

const decoder = new TextDecoder();

function nearestDirectory(abs: string): string {
  for (let dir = abs;; dir = path.dirname(dir)) {
    const info = statPath(dir);
    if (info !== null) return info.kind === "dir" ? dir : path.dirname(dir);
    if (dir === path.dirname(dir)) return dir;
  }
}

/**
 * The real path `input` names in the workspace (which need not exist with `allowMissing`).
 * @example
 * ```ts
 * declare const ws: import("../workspace/workspace.ts").Workspace;
 * confinedPath(ws, "src/new.ts", true);
 * ```
 */
export function confinedPath(ws: Workspace, input: string, allowMissing: boolean): string {
  using target = ws.open(input, { expect: "any", allowMissing });
  return target.abs;
}

// Runs `fn` with git's cwd naming `abs` by the handle's pin, so a directory swapped for a symlink can't move git out.
async function inDirectory<T>(ws: Workspace, abs: string, fn: (cwd: string) => Promise<T>): Promise<T> {
  using dir = ws.open(abs, { expect: "dir" });
  return await fn(dir.childCwd());
}

/** Options of {@linkcode openRepo}. */
export interface OpenOptions {
  /**
   * The command reads work-tree files (status, diff or blame of the work tree), where git runs filter drivers: list the
   * config to blank them. A property of the command, not of its revision's spelling (`git diff :/..` reads the work
   * tree); reads of stored objects (log, show) run no filter. git's sandbox lets it execute only itself anyway: this is
   * defence in depth where the kernel has no Landlock.
   */
  readsWorkTree: boolean;
  signal?: AbortSignal;
}

// The repository of `target` (a confined path, or the root) as found on disk and checked (location.ts); runs no git.
function locate(git: GitService, target: string | null) {
  const start = target === null ? git.ws.root : nearestDirectory(target);
  const location = git.locate(start);
  const parent = !isInside(git.ws.root, location.top);
  return { location, repo: repoAt(git, location, parent, {}), start };
}

// git's top level (plus config keys with `listConfig`) must match the disk's; a `core.worktree` elsewhere is refused.
async function confirm(
  git: GitService,
  found: ReturnType<typeof locate>,
  listConfig: boolean,
  signal?: AbortSignal,
  pin?: string,
): Promise<{ env: Record<string, string>; tips: string[] }> {
  const { location, start } = found;
  // `pin`: the same rev-parse also names the commits the revision points at now (one git start, not two).
  const revParse = [
    "rev-parse",
    "--show-toplevel",
    ...(pin === undefined ? [] : ["--revs-only", "--end-of-options", pin]),
  ];
  const [top, config] = await inDirectory(git.ws, start, (cwd) =>
    Promise.all([
      git.run(location, { cwd, args: revParse, signal }),
      listConfig ? git.run(location, { cwd, args: ["config", "-z", "--list", "--name-only"], signal }) : null,
    ]));
  if (top.code !== 0) {
    if (/must be run in a work tree|not a git repository/i.test(top.stderr)) {
      const rel = toRelative(git.ws, start);
      throw new ToolError("NOT_A_GIT_REPO", `${rel} is not inside a git work tree`, {
        details: { path: rel, stderr: top.stderr },
      });
    }
    throw gitFailure(top, "rev-parse");
  }
  const { topText, tips } = splitTopLevel(decoder.decode(top.stdout), pin !== undefined);
  const topReal = realPathOrNull(topText) ?? topText; // else git's spelling
  if (topReal !== location.top) {
    throw new ToolError("NOT_A_GIT_REPO", `the repository's work tree ${topReal} is outside the workspace`, {
      hint: "Git tools only work on a repository whose work tree is the workspace, inside it, or contains it.",
      details: { work_tree: topReal, expected: location.top },
    });
  }
  if (!config) return { env: {}, tips };
  // Fail closed: a listing that failed or was cut could hide a driver.
  if (config.code !== 0 || config.stopped) throw gitFailure(config, "config");
  return { env: driverOverrides(decoder.decode(config.stdout).split("\0").filter((key) => key.length > 0)), tips };
}

/** A commit rev-parse prints for a revision: a sha, `^sha` for the excluded end of a range. */
export const TIP = /^\^?[0-9a-f]{40,64}$/;

// The top level and, `withTips`, the commit lines rev-parse printed after it, taken from the end: a top level with a
// newline in its name stays whole unless its last line looks like a commit, and then it fails the on-disk check.
function splitTopLevel(output: string, withTips: boolean): { topText: string; tips: string[] } {
  const lines = output.replace(/\n$/, "").split("\n");
  const tips: string[] = [];
  while (withTips && lines.length > 1 && TIP.test(lines[lines.length - 1])) tips.unshift(lines.pop()!);
  return { topText: lines.join("\n"), tips };
}

/**
 * Opens the repository containing `target` (a confined workspace path) or the workspace root, with the commits
 * `options.pin` names as the confirmation saw them.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * const { repo } = await openRepo(git, null, { readsWorkTree: true });
 * ```
 */
export async function openRepo(
  git: GitService,
  target: string | null,
  options: OpenOptions & { pin?: string },
): Promise<{ repo: GitRepo; tips: string[] }> {
  const found = locate(git, target);
  const { env, tips } = await confirm(git, found, options.readsWorkTree, options.signal, options.pin);
  return { repo: repoAt(git, found.location, found.repo.parent, env), tips };
}

function repoAt(git: GitService, location: RepositoryLocation, parent: boolean, env: Record<string, string>): GitRepo {
  const ws = git.ws;
  const topReal = location.top;
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
    run: (args, options = {}) =>
      inDirectory(ws, cwd, (pinned) => git.run(location, { cwd: pinned, args, env, ...options })),
  };
}

/**
 * Confines a user path and opens its repository; with `pin` (a revision), the confirming rev-parse also names its
 * commits (`tips`, as `rev-parse --revs-only` prints them).
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * const { repo, target } = await openRepoAt(git, "src/a.ts", { allowMissing: true, readsWorkTree: false });
 * ```
 */
export async function openRepoAt(
  git: GitService,
  input: string | undefined,
  options: OpenOptions & { allowMissing: boolean; pin?: string },
): Promise<{ repo: GitRepo; target: string | null; tips: string[] }> {
  const target = input === undefined ? null : confinedPath(git.ws, input, options.allowMissing);
  return { ...(await openRepo(git, target, options)), target };
}

/** One read planned for a repository: git's arguments, and a fresh consumer of its stdout (collected without one). */
export interface PlannedRead<C> {
  args: string[];
  consumer: C;
  onStdout?(chunk: Uint8Array): boolean | void;
}

/**
 * Confines `input` and runs `plan`'s read of stored objects (no config listing) alongside the repository's confirmation
 * (`rev-parse`, a whole git start), keeping the read only if that agrees; `pin` works as in {@linkcode openRepoAt}.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * declare const plan: (repo: GitRepo, target: string | null) => PlannedRead<string[]>;
 * const { run, consumer } = await readRepoAt(git, "src", { allowMissing: true }, plan);
 * ```
 */
export async function readRepoAt<C>(
  git: GitService,
  input: string | undefined,
  options: { allowMissing: boolean; signal?: AbortSignal; pin?: string },
  plan: (repo: GitRepo, target: string | null) => PlannedRead<C>,
): Promise<{ repo: GitRepo; target: string | null; run: GitRun; consumer: C; tips: string[] }> {
  const { signal } = options;
  const target = input === undefined ? null : confinedPath(git.ws, input, options.allowMissing);
  const found = locate(git, target);
  const read = plan(found.repo, target);
  const stop = new AbortController();
  const run = found.repo.run(read.args, {
    onStdout: read.onStdout,
    signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
  });
  run.catch(() => {}); // awaited below, or dropped
  let tips: string[];
  try {
    ({ tips } = await confirm(git, found, false, signal, options.pin));
  } catch (error) {
    stop.abort();
    await run.catch(() => {});
    throw error;
  }
  return { repo: found.repo, target, run: await run, consumer: read.consumer, tips };
}

/**
 * Refuses a revision git could read as an option (or that cannot be an argument at all).
 * @example
 * ```ts
 * checkRevision("--output=/etc/x", "rev"); // throws INVALID_ARGUMENT
 * ```
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
