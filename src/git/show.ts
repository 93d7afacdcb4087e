/**
 * git_show: a commit's metadata, diffstat and bounded patch (a merge is
 * shown against its first parent), or, with a path, that file's content
 * at the revision, bounded and required to be UTF-8 text.
 *
 * @example
 * await gitShow(git, { rev: "HEAD~1", maxBytes: 65536 });
 * await gitShow(git, { rev: "v1.0", path: "src/a.ts", maxBytes: 65536 }); // kind "file"
 */
import { ToolError } from "../errors.ts";
import { toRelative } from "../workspace/confine.ts";
import type { GitService } from "./service.ts";
import { gitFailure, gitMessage } from "./runner.ts";
import { utf8CutIndex } from "../text/utf8.ts";
import { checkRevision, type GitRepo, openRepoAt } from "./repo.ts";
import { type Commit, COMMIT_FORMAT, CommitParser } from "./log.ts";
import { readDiff } from "./diff.ts";
import type { DiffFile } from "./diff_stream.ts";

/** Options of {@linkcode gitShow}. */
export interface ShowOptions {
  rev: string;
  path?: string;
  maxBytes: number;
  signal?: AbortSignal;
}

/** The answer for either kind. */
export interface GitShow {
  rev: string;
  sha: string;
  kind: "commit" | "file";
  commit: Omit<Commit, "sha"> | null;
  files: DiffFile[];
  patch: string | null;
  cut_files: string[];
  path: string | null;
  content: string | null;
  size: number | null;
  truncated: boolean;
}

/** Context lines of a shown commit's patch. */
export const SHOW_CONTEXT = 3;

const decoder = new TextDecoder();

async function resolveCommit(repo: GitRepo, rev: string, signal?: AbortSignal): Promise<string> {
  const run = await repo.run(["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`], { signal });
  if (run.code !== 0) {
    throw new ToolError(
      "INVALID_ARGUMENT",
      `rev: ${JSON.stringify(rev)} does not name a commit (${gitMessage(run.stderr)})`,
      {
        hint: "Check the revision with git_log; a sha, branch, tag or HEAD~N works.",
        details: { field: "rev", stderr: run.stderr },
      },
    );
  }
  return decoder.decode(run.stdout).trim();
}

/**
 * The offset of the first byte that keeps `bytes` from being UTF-8 text
 * (a NUL counts as binary), or -1.
 *
 * @example
 * firstNonText(new Uint8Array([0x61, 0xff])); // 1
 */
export function firstNonText(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b === 0) return i;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Lead byte: sequence length and the allowed range of the second byte (no overlongs, no surrogates).
    const [length, low, high] = b >= 0xc2 && b <= 0xdf
      ? [2, 0x80, 0xbf]
      : b === 0xe0
      ? [3, 0xa0, 0xbf]
      : b === 0xed
      ? [3, 0x80, 0x9f]
      : b >= 0xe1 && b <= 0xef
      ? [3, 0x80, 0xbf]
      : b === 0xf0
      ? [4, 0x90, 0xbf]
      : b >= 0xf1 && b <= 0xf3
      ? [4, 0x80, 0xbf]
      : b === 0xf4
      ? [4, 0x80, 0x8f]
      : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return i;
      const next = bytes[i + k];
      if (k === 1 ? next < low || next > high : (next & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return -1;
}

async function showFile(repo: GitRepo, options: ShowOptions, sha: string, target: string): Promise<GitShow> {
  const rel = toRelative(repo.ws, target);
  // ls-tree names the object and its type without running any filter; paths are relative to cwd.
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
  // ls-tree prints "-" for trees and "BAD" for an object it cannot read.
  const size = /^\d+$/.test(sizeText) ? Number(sizeText) : null;
  if (type !== "blob") {
    throw new ToolError("NOT_A_FILE", `${rel} is a ${type === "tree" ? "directory" : "submodule"} at ${options.rev}`, {
      details: { path: rel, rev: options.rev, type },
    });
  }
  // cat-file prints the stored bytes: no textconv, no smudge filter.
  const parts: Uint8Array[] = [];
  let kept = 0;
  const run = await repo.run(["cat-file", "blob", object], {
    signal: options.signal,
    onStdout: (chunk) => {
      const part = chunk.subarray(0, options.maxBytes + 1 - kept);
      parts.push(part);
      kept += part.length;
      return kept <= options.maxBytes;
    },
  });
  if (!run.stopped && run.code !== 0) throw gitFailure(run, "cat-file");
  const all = new Uint8Array(kept);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  const truncated = kept > options.maxBytes;
  const bytes = all.subarray(0, utf8CutIndex(all, options.maxBytes));
  const bad = firstNonText(bytes);
  if (bad !== -1) {
    throw new ToolError("NOT_UTF8", `${rel} at ${options.rev} is not UTF-8 text (byte ${bad})`, {
      details: { path: rel, rev: options.rev, byte_offset: bad, size },
    });
  }
  return {
    rev: options.rev,
    sha,
    kind: "file",
    commit: null,
    files: [],
    patch: null,
    cut_files: [],
    path: rel,
    content: decoder.decode(bytes),
    size,
    truncated,
  };
}

/**
 * Shows a commit, or a file at a commit.
 *
 * @example
 * const shown = await gitShow(git, { rev: "HEAD", maxBytes: 4096 });
 */
export async function gitShow(git: GitService, options: ShowOptions): Promise<GitShow> {
  checkRevision(options.rev, "rev");
  const { repo, target } = await openRepoAt(git, options.path, {
    allowMissing: true,
    readsWorkTree: false,
    signal: options.signal,
  });
  const sha = await resolveCommit(repo, options.rev, options.signal);
  if (target !== null) return await showFile(repo, options, sha, target);

  const parser = new CommitParser();
  const meta = await repo.run(["show", "-s", "-z", `--format=tformat:${COMMIT_FORMAT}`, sha], {
    onStdout: (chunk) => parser.push(chunk),
    signal: options.signal,
  });
  if (meta.code !== 0) throw gitFailure(meta, "show");
  const [commit] = parser.end();
  const diff = await readDiff(repo, ["show", "--format=", "--diff-merges=first-parent"], [sha, "--", ...repo.scope()], {
    context: SHOW_CONTEXT,
    maxBytes: options.maxBytes,
    signal: options.signal,
  });
  const { sha: _sha, ...metadata } = commit;
  return {
    rev: options.rev,
    sha,
    kind: "commit",
    commit: metadata,
    files: diff.files,
    patch: diff.diff,
    cut_files: diff.cut_files,
    path: null,
    content: null,
    size: null,
    truncated: diff.truncated,
  };
}
