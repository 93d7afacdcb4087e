import { z } from "../zod.ts";
import { ToolError } from "../errors.ts";
import { toRelative } from "../workspace/confine.ts";
import type { GitService } from "./service.ts";
import { gitFailure, gitMessage } from "./runner.ts";
import { firstInvalidUtf8, isContinuation, utf8CutIndex } from "../text/utf8.ts";
import { checkRevision, type GitRepo, openRepoAt } from "./repo.ts";
import { type Commit, COMMIT_FORMAT, CommitParser } from "./log.ts";
import { CURSOR_RESERVE_CHARS, type KeptDiff, keptDiffPage, type PagedDiff, readDiff } from "./diff.ts";
import type { DiffPosition } from "./diff_page.ts";
import { fitLines, jsonChars } from "../paging/budget.ts";
import type { Paged, PageRequest } from "../paging/cursor.ts";
import { joinBytes } from "../text/join_bytes.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";

/** Where a file's content resumes: at this byte offset (a line start, or inside a line longer than a page). */
export type ContentPosition = { o: number };

/** The shape of a content resume position. */
export const CONTENT_POSITION = z.strictObject({ o: z.int().min(0) });

/** Options of {@linkcode gitShow}. */
export interface ShowOptions {
  rev: string;
  path?: string;
  maxBytes: number;
  /** Positions are DiffPosition without `path`, ContentPosition with it. */
  page: PageRequest<DiffPosition> | PageRequest<ContentPosition>;
  keep?: SnapshotSlot<KeptShow>;
  signal?: AbortSignal;
}

/** A page of the answer, for either kind: a commit's patch pages as git_diff's does. */
export type GitShow = Omit<PagedDiff["data"], "diff" | "shown_bytes"> & {
  rev: string;
  sha: string;
  kind: "commit" | "file";
  commit: Omit<Commit, "sha"> | null;
  patch: string | null;
  path: string | null;
  content: string | null;
  size: number | null;
};

/** A page of a commit (with its patch lines for the text) or of a file's content (`start` is its byte offset). */
export type ShownPage = { kind: "commit"; page: Paged<GitShow>; diff: PagedDiff } | {
  kind: "file";
  page: Paged<GitShow>;
};

/** A commit a page showed, with what its patch run read past the page, kept for the pages after it. */
export interface KeptShow {
  sha: string;
  commit: Omit<Commit, "sha">;
  diff: KeptDiff;
}

/** Context lines of a shown commit's patch. */
export const SHOW_CONTEXT = 3;

const decoder = new TextDecoder();

async function resolveCommit(repo: GitRepo, rev: string, signal?: AbortSignal): Promise<string> {
  const run = await repo.run(["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`], { signal });
  if (run.code !== 0) {
    const message = `rev: ${JSON.stringify(rev)} does not name a commit (${gitMessage(run.stderr)})`;
    throw new ToolError("INVALID_ARGUMENT", message, {
      hint: "Check the revision with git_log; a sha, branch, tag or HEAD~N works.",
      details: { field: "rev", stderr: run.stderr },
    });
  }
  return decoder.decode(run.stdout).trim();
}

/**
 * The offset of the first byte that keeps `bytes` from being UTF-8 text (a NUL counts as binary), or -1.
 * @example
 * ```ts
 * firstNonText(new Uint8Array([0x61, 0xff])); // 1
 * ```
 */
export function firstNonText(bytes: Uint8Array): number {
  // A NUL is valid UTF-8 but ends the text; no sequence spans one, so validate only what precedes it.
  const nul = bytes.indexOf(0);
  const invalid = firstInvalidUtf8(nul === -1 ? bytes : bytes.subarray(0, nul));
  return invalid !== -1 ? invalid : nul;
}

/** The blob `target` names at `sha`, by ls-tree (which runs no filter), and its size; a refusal otherwise. */
async function blobAt(
  repo: GitRepo,
  options: ShowOptions,
  sha: string,
  target: string,
  rel: string,
): Promise<{ object: string; size: number | null }> {
  const tree = await repo.run(["ls-tree", "-z", "--long", "--end-of-options", sha, "--", repo.toGit(target)], {
    signal: options.signal,
  });
  if (tree.code !== 0) throw gitFailure(tree, "ls-tree");
  const entry = decoder.decode(tree.stdout).split("\0").find((line) => line.length > 0);
  const match = entry ? /^(\d+) (\w+) ([0-9a-f]+) +(\S+)\t(.*)$/s.exec(entry) : null;
  if (!match || repo.fromCwd(match[5]) !== rel) {
    throw new ToolError("NOT_FOUND", `${rel} does not exist at ${options.rev}`, {
      hint: "List the revision's files with git_show without path, or check the path with git_log.",
      details: { path: rel, rev: options.rev },
    });
  }
  const [, , type, object, sizeText] = match;
  if (type !== "blob") {
    throw new ToolError("NOT_A_FILE", `${rel} is a ${type === "tree" ? "directory" : "submodule"} at ${options.rev}`, {
      details: { path: rel, rev: options.rev, type },
    });
  }
  // ls-tree prints "-" for trees and "BAD" for an object it cannot read.
  return { object, size: /^\d+$/.test(sizeText) ? Number(sizeText) : null };
}

// The stored bytes of `object` from `offset`, at most `limit` + 1 (to tell more follow), by cat-file: no filters.
async function blobBytes(
  repo: GitRepo,
  object: string,
  offset: number,
  limit: number,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let seen = 0;
  let kept = 0;
  const run = await repo.run(["cat-file", "blob", object], {
    signal,
    onStdout: (chunk) => {
      const from = Math.max(0, offset - seen);
      seen += chunk.length;
      const part = chunk.subarray(from, from + limit + 1 - kept);
      parts.push(part);
      kept += part.length;
      return kept <= limit;
    },
  });
  if (!run.stopped && run.code !== 0) throw gitFailure(run, "cat-file");
  return joinBytes(parts);
}

async function showFile(
  repo: GitRepo,
  options: ShowOptions,
  page: PageRequest<ContentPosition>,
  sha: string,
  target: string,
): Promise<ShownPage> {
  const rel = toRelative(repo.ws, target);
  const { object, size } = await blobAt(repo, options, sha, target, rel);
  const offset = page.after?.o ?? 0;
  if (size !== null && offset > size) {
    throw new ToolError("INVALID_ARGUMENT", `cursor: offset ${offset} is past the end of ${rel} (${size} bytes)`, {
      details: { field: "cursor" },
    });
  }
  // A UTF-8 byte is at least a third of a JSON character: more bytes than that could never fit the page.
  const limit = Math.min(options.maxBytes, 3 * page.maxChars);
  const all = await blobBytes(repo, object, offset, limit, options.signal);
  if (offset > 0 && all.length > 0 && isContinuation(all[0])) {
    throw new ToolError("INVALID_ARGUMENT", `cursor: offset ${offset} falls inside a UTF-8 character of ${rel}`, {
      details: { field: "cursor" },
    });
  }
  // Whole lines within the bound; a first line longer than it is cut on a character boundary.
  const lineEnd = all.lastIndexOf(0x0a, limit - 1) + 1;
  const bytes = all.subarray(0, all.length > limit ? (lineEnd > 0 ? lineEnd : utf8CutIndex(all, limit)) : all.length);
  const bad = firstNonText(bytes);
  if (bad !== -1) {
    throw new ToolError("NOT_UTF8", `${rel} at ${options.rev} is not UTF-8 text (byte ${offset + bad})`, {
      details: { path: rel, rev: options.rev, byte_offset: offset + bad, size },
    });
  }
  const base: GitShow = {
    rev: options.rev,
    sha,
    kind: "file",
    commit: null,
    files: [],
    total_files: 0,
    patch: null,
    repeated_lines: 0,
    cut_files: [],
    path: rel,
    content: "",
    size,
    truncated: false,
    next_cursor: null,
  };
  const text = decoder.decode(bytes);
  const content = fitLines(text, page.maxChars - jsonChars(base) - CURSOR_RESERVE_CHARS).text;
  const end = offset + new TextEncoder().encode(content).length;
  const more = end < offset + all.length;
  const cursorAt = (position: number) => position < end || more ? page.encode({ o: position }) : null;
  const data = { ...base, content, truncated: more, next_cursor: cursorAt(end) };
  // For the content, "shown" counts bytes from the page start (the text cuts where it likes).
  return { kind: "file", page: { data, start: offset, cursorAfter: (shown) => cursorAt(offset + shown) } };
}

/**
 * git_show: a commit's metadata, diffstat and patch (a merge against its first parent), or with a path that file's
 * UTF-8 content at the revision; the patch pages as git_diff's does (./diff_page.ts), the content by whole lines.
 * @example
 * ```ts
 * declare const git: import("./service.ts").GitService;
 * await gitShow(git, { rev: "HEAD", maxBytes: 4096, page: { after: null, encode: JSON.stringify, maxChars: 48_000 } });
 * ```
 */
export async function gitShow(git: GitService, options: ShowOptions): Promise<ShownPage> {
  checkRevision(options.rev, "rev");
  const page = options.page as PageRequest<DiffPosition>;
  // A page an earlier one read past reads no git, rev included (the cursor binds it to this query).
  const kept = options.path === undefined && page.after !== null ? options.keep?.get() : undefined;
  if (kept !== undefined) {
    const wrapper = commitWrapper(options.rev, kept.sha, kept.commit);
    const diff = keptDiffPage(kept.diff, { maxBytes: options.maxBytes, page, fixedChars: jsonChars(wrapper) });
    if (diff !== null) return commitPage(wrapper, diff);
  }
  // The confirming rev-parse names the commit; rev-parse --verify runs only if it named not exactly one (its error).
  const { repo, target, tips } = await openRepoAt(git, options.path, {
    allowMissing: true,
    readsWorkTree: false,
    signal: options.signal,
    pin: `${options.rev}^{commit}`,
  });
  const sha = tips.length === 1 && !tips[0].startsWith("^")
    ? tips[0]
    : await resolveCommit(repo, options.rev, options.signal);
  if (target !== null) return await showFile(repo, options, options.page as PageRequest<ContentPosition>, sha, target);

  const parser = new CommitParser();
  const meta = await repo.run(["show", "-s", "-z", `--format=tformat:${COMMIT_FORMAT}`, sha], {
    onStdout: (chunk) => parser.push(chunk),
    signal: options.signal,
  });
  if (meta.code !== 0) throw gitFailure(meta, "show");
  const [{ sha: _sha, ...commit }] = parser.end();
  const wrapper = commitWrapper(options.rev, sha, commit);
  const diff = await readDiff(repo, ["show", "--format=", "--diff-merges=first-parent"], [sha, "--", ...repo.scope()], {
    context: SHOW_CONTEXT,
    maxBytes: options.maxBytes,
    page,
    fixedChars: jsonChars(wrapper),
    keep: options.keep && ((diff) => options.keep!.put({ sha, commit, diff })),
    signal: options.signal,
  });
  return commitPage(wrapper, diff);
}

function commitWrapper(rev: string, sha: string, commit: Omit<Commit, "sha">) {
  return { rev, sha, kind: "commit", commit, path: null, content: null, size: null } as const;
}

function commitPage(wrapper: ReturnType<typeof commitWrapper>, diff: PagedDiff): ShownPage {
  const { diff: patch, shown_bytes: _bytes, ...rest } = diff.data;
  const data: GitShow = { ...wrapper, ...rest, patch };
  return { kind: "commit", page: { ...diff, data }, diff };
}
