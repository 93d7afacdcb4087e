/**
 * The automatic project context server_info reports: git state, manifests,
 * and bounded excerpts of agent instruction files.
 *
 * @example
 * const context = await projectContext(ws);
 */
import * as path from "node:path";
import { confine, isInside, toRelative, type Workspace } from "../workspace/confine.ts";
import { ToolError } from "../errors.ts";
import { utf8CutIndex } from "../text/utf8.ts";

/** Manifest files looked for at the workspace root. */
export const MANIFEST_NAMES = [
  "deno.json",
  "deno.jsonc",
  "package.json",
  "Cargo.toml",
  "go.mod",
  "pyproject.toml",
  "requirements.txt",
  "pom.xml",
  "build.gradle",
  "Gemfile",
  "composer.json",
  "Makefile",
  "CMakeLists.txt",
] as const;

/** Instruction files excerpted, in order of preference. */
export const INSTRUCTION_NAMES = ["AGENTS.md", "CLAUDE.md", "README.md", "README"] as const;

/** Bytes kept of each instruction file. */
export const EXCERPT_BYTES = 4096;

/** Git facts about the workspace. */
export interface GitContext {
  /** Where the repository root is relative to the workspace. */
  relation: "workspace" | "inside" | "parent";
  /** The repository root: workspace-relative when inside, absolute when it is a parent. */
  root: string;
  branch: string | null;
  head: string | null;
  dirty: boolean;
}

/** The whole context. */
export interface ProjectContext {
  git: GitContext | null;
  manifests: string[];
  instructions: { path: string; excerpt: string; truncated: boolean; bytes: number }[];
}

const decoder = new TextDecoder();

async function git(root: string, args: string[]): Promise<string | null> {
  try {
    const out = await new Deno.Command("git", {
      args: ["-c", "core.pager=cat", "--no-optional-locks", ...args],
      cwd: root,
      env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
      stdin: "null",
      stderr: "null",
    }).output();
    return out.success ? decoder.decode(out.stdout) : null;
  } catch {
    return null;
  }
}

async function gitContext(ws: Workspace): Promise<GitContext | null> {
  const top = await git(ws.root, ["rev-parse", "--show-toplevel"]);
  if (top === null) return null;
  const rootReal = await Deno.realPath(top.trim()).catch(() => top.trim());
  const [branch, head, status] = await Promise.all([
    git(ws.root, ["symbolic-ref", "--quiet", "--short", "HEAD"]),
    git(ws.root, ["rev-parse", "--verify", "--quiet", "HEAD"]),
    git(ws.root, ["status", "--porcelain", "-z", "--untracked-files=normal", "--", "."]),
  ]);
  const relation = rootReal === ws.root ? "workspace" : isInside(ws.root, rootReal) ? "inside" : "parent";
  return {
    relation,
    root: relation === "parent" ? rootReal : toRelative(ws, rootReal),
    branch: branch?.trim() || null,
    head: head?.trim() || null,
    dirty: (status ?? "").length > 0,
  };
}

async function exists(ws: Workspace, name: string): Promise<boolean> {
  try {
    const target = await confine(ws, name);
    return (await Deno.stat(target.abs)).isFile;
  } catch {
    return false;
  }
}

async function excerpt(ws: Workspace, name: string) {
  let target;
  try {
    target = await confine(ws, name);
  } catch (error) {
    if (error instanceof ToolError) return null; // missing, or a symlink leaving the workspace
    throw error;
  }
  let file: Deno.FsFile | null = null;
  try {
    file = await Deno.open(target.abs, { read: true });
    const info = await file.stat();
    if (!info.isFile) return null;
    // One byte beyond the excerpt tells whether a character continues across the cut.
    const buffer = new Uint8Array(Math.min(EXCERPT_BYTES + 1, info.size));
    let filled = 0;
    while (filled < buffer.length) {
      const n = await file.read(buffer.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    const end = utf8CutIndex(buffer.subarray(0, filled), EXCERPT_BYTES);
    return {
      path: target.rel,
      excerpt: decoder.decode(buffer.subarray(0, end)),
      truncated: end < info.size,
      bytes: info.size,
    };
  } catch {
    return null;
  } finally {
    file?.close();
  }
}

/** Gathers the project context of the workspace. */
export async function projectContext(ws: Workspace): Promise<ProjectContext> {
  const [gitInfo, manifestFlags, excerpts] = await Promise.all([
    gitContext(ws),
    Promise.all(MANIFEST_NAMES.map((name) => exists(ws, name))),
    Promise.all(INSTRUCTION_NAMES.map((name) => excerpt(ws, path.join(name)))),
  ]);
  return {
    git: gitInfo,
    manifests: MANIFEST_NAMES.filter((_, i) => manifestFlags[i]),
    instructions: excerpts.filter((e) => e !== null),
  };
}
