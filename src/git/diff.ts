/**
 * git_diff: the work tree against the index (default), the index against
 * HEAD (`staged`), or against a revision or range (`rev`), as per-file
 * stats plus unified text bounded by `max_bytes`.
 *
 * @example
 * const diff = await gitDiff(git, { staged: false, context: 3, maxBytes: 65536 });
 * diff.files; // [{ path: "src/a.ts", status: "modified", added: 2, removed: 1, binary: false, old_path: null }]
 */
import { ToolError } from "../errors.ts";
import { confine } from "../workspace/confine.ts";
import type { GitService } from "./service.ts";
import { gitFailure } from "./runner.ts";
import { checkRevision, type GitRepo, openRepo } from "./repo.ts";
import { type DiffStats, DiffStatsParser, PatchCollector, type PatchText } from "./diff_stream.ts";

/** Options of {@linkcode gitDiff}. */
export interface DiffOptions {
  staged: boolean;
  paths?: string[];
  context: number;
  maxBytes: number;
  rev?: string;
  signal?: AbortSignal;
}

/** A diff's stats and bounded patch. */
export type DiffResult = DiffStats & PatchText;

/** Options shared by both streams: renames, no external diff or textconv, submodules by commit. */
const COMMON_ARGS = ["-M", "--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=dirty"];

/** Options that make the paths of both streams workspace-relative. */
function pathArgs(repo: GitRepo): string[] {
  if (repo.parent) return ["--relative"];
  // A repository inside the workspace: prefix the text's a/ b/ paths so they read workspace-relative.
  const prefix = repo.fromCwd(".");
  return prefix !== null && prefix !== "." ? [`--src-prefix=a/${prefix}/`, `--dst-prefix=b/${prefix}/`] : [];
}

/**
 * Runs a diff-producing git command twice in parallel, once for the stats
 * and once for the bounded patch; `head` is the command and its own
 * options, `tail` the revisions and pathspec.
 *
 * @example
 * await readDiff(repo, ["diff", "--cached"], ["--end-of-options", "--", "."], { context: 3, maxBytes: 65536 });
 */
export async function readDiff(
  repo: GitRepo,
  head: string[],
  tail: string[],
  options: { context: number; maxBytes: number; signal?: AbortSignal },
): Promise<DiffResult> {
  const stats = new DiffStatsParser(repo.fromCwd);
  const patch = new PatchCollector(options.maxBytes);
  const common = [...head, ...COMMON_ARGS, ...pathArgs(repo)];
  const [statsRun, patchRun] = await Promise.all([
    repo.run([...common, "--raw", "--numstat", "-z", ...tail], {
      onStdout: (chunk) => stats.push(chunk),
      signal: options.signal,
    }),
    repo.run([...common, "-p", `-U${options.context}`, "--submodule=short", ...tail], {
      onStdout: (chunk) => patch.push(chunk),
      signal: options.signal,
    }),
  ]);
  if (statsRun.code !== 0) throw gitFailure(statsRun, head[0]);
  if (!patchRun.stopped && patchRun.code !== 0) throw gitFailure(patchRun, head[0]);
  const { files, total_files } = stats.result();
  return { files, total_files, ...patch.result(files) };
}

/**
 * Runs git diff with the options of the tool.
 *
 * @example
 * await gitDiff(git, { staged: true, paths: ["src"], context: 0, maxBytes: 4096 });
 */
export async function gitDiff(git: GitService, options: DiffOptions): Promise<DiffResult> {
  const targets = await Promise.all(
    (options.paths ?? []).map((input) => confine(git.ws, input, { allowMissing: true })),
  );
  // Every form of diff may read the work tree (`rev` ":/.." compares one commit with it): drivers are blanked.
  const repo = await openRepo(git, targets[0]?.abs ?? null, { readsWorkTree: true, signal: options.signal });
  const pathspec = targets.map((target) => repo.toGit(target.abs));
  const outside = pathspec.find((spec) => spec === ".." || spec.startsWith("../"));
  if (outside !== undefined) {
    throw new ToolError("INVALID_ARGUMENT", `paths: ${outside} is not in the repository at ${repo.fromCwd(".")}`, {
      hint: "Give paths of one repository per call.",
      details: { field: "paths" },
    });
  }
  const tail = ["--end-of-options"];
  if (options.rev !== undefined) tail.push(checkRevision(options.rev, "rev"));
  tail.push("--", ...(pathspec.length > 0 ? pathspec : repo.scope()));
  return await readDiff(repo, options.staged ? ["diff", "--cached"] : ["diff"], tail, options);
}
