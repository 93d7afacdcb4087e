import type { Workspace } from "../workspace/workspace.ts";
import type { Handle } from "../workspace/handle.ts";
import { isInside, toRelative } from "../workspace/confine.ts";
import { ToolError } from "../errors.ts";
import type { GitService } from "../git/service.ts";
import { readHead } from "../git/head.ts";
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
}

/** The whole context. */
export interface ProjectContext {
  git: GitContext | null;
  manifests: string[];
  instructions: { path: string; excerpt: string; truncated: boolean; bytes: number }[];
}

const decoder = new TextDecoder();

/** Via src/git, which runs git with a clean env and neutralises what a repo config could run (fsmonitor, filters). */
async function gitContext(git: GitService): Promise<GitContext | null> {
  const ws = git.ws;
  let head;
  try {
    head = await readHead(git);
  } catch (error) {
    if (error instanceof ToolError) return null; // no repository, or a work tree outside the workspace
    throw error;
  }
  const rootReal = git.locate(ws.root).top;
  const relation = rootReal === ws.root ? "workspace" : isInside(ws.root, rootReal) ? "inside" : "parent";
  return {
    relation,
    root: relation === "parent" ? rootReal : toRelative(ws, rootReal),
    ...head,
  };
}

function exists(ws: Workspace, name: string): boolean {
  try {
    using target = ws.open(name, { expect: "any" });
    return target.stat.kind === "file";
  } catch {
    return false;
  }
}

function openInstructions(ws: Workspace, name: string): Handle | null {
  try {
    return ws.open(name, { expect: "file" });
  } catch (error) {
    if (error instanceof ToolError) return null; // missing, not a file, or a symlink leaving the workspace
    throw error;
  }
}

async function excerpt(ws: Workspace, name: string) {
  using file = openInstructions(ws, name);
  if (file === null) return null;
  try {
    // One byte beyond the excerpt tells whether a character continues across the cut.
    const bytes = await file.readPrefix(Math.min(EXCERPT_BYTES + 1, file.stat.size));
    const end = utf8CutIndex(bytes, EXCERPT_BYTES);
    return {
      path: file.rel,
      excerpt: decoder.decode(bytes.subarray(0, end)),
      truncated: end < file.stat.size,
      bytes: file.stat.size,
    };
  } catch {
    return null;
  }
}

/**
 * The project context server_info reports: git state, manifests, bounded excerpts of instruction files.
 * @example
 * ```ts
 * import type { GitService } from "../git/service.ts";
 * declare const git: GitService;
 * await projectContext(git);
 * ```
 */
export async function projectContext(git: GitService): Promise<ProjectContext> {
  const ws = git.ws;
  const [gitInfo, manifests, excerpts] = await Promise.all([
    gitContext(git),
    MANIFEST_NAMES.filter((name) => exists(ws, name)),
    Promise.all(INSTRUCTION_NAMES.map((name) => excerpt(ws, name))),
  ]);
  return {
    git: gitInfo,
    manifests,
    instructions: excerpts.filter((e) => e !== null),
  };
}
