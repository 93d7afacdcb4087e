/** Where the workspace comes from: `--workspace`, `CLAUDE_PROJECT_DIR`, the MCP roots, the cwd. Pure rules, no I/O. */
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The variable Claude Code sets for the stdio servers it starts. */
export const PROJECT_DIR_ENV = "CLAUDE_PROJECT_DIR";

/** Where a workspace was taken from. */
export type WorkspaceSource = "flag" | "env" | "roots" | "cwd";

/** A directory and where it came from. */
export interface WorkspaceChoice {
  /** Absolute (not yet resolved through symlinks). */
  dir: string;
  source: WorkspaceSource;
}

/** What is known at launch: the workspace, or that the client's roots may still decide it. */
export type LaunchWorkspace =
  | { kind: "fixed"; choice: WorkspaceChoice }
  | { kind: "pending"; fallback: WorkspaceChoice };

/** How each source reads in reports. */
export const SOURCE_LABELS: Readonly<Record<WorkspaceSource, string>> = {
  flag: "--workspace",
  env: PROJECT_DIR_ENV,
  roots: "the client's MCP roots",
  cwd: "the server's working directory",
};

/**
 * The launch-time part of the order: the flag, then the variable; without either, roots or the cwd decide later.
 * @example
 * ```ts
 * launchWorkspace({ flag: null, projectDir: "/home/u/app", cwd: "/" }).kind; // "fixed", from source "env"
 * ```
 */
export function launchWorkspace(
  options: { flag: string | null; projectDir: string | undefined; cwd: string },
): LaunchWorkspace {
  if (options.flag !== null) {
    return { kind: "fixed", choice: { dir: path.resolve(options.cwd, options.flag), source: "flag" } };
  }
  if (options.projectDir) {
    return { kind: "fixed", choice: { dir: path.resolve(options.cwd, options.projectDir), source: "env" } };
  }
  return { kind: "pending", fallback: { dir: path.resolve(options.cwd), source: "cwd" } };
}

/** A root as `roots/list` returns it. */
export interface ClientRoot {
  uri: string;
  name?: string;
}

/** What the client's roots decide. */
export interface RootsPick {
  choice: WorkspaceChoice | null;
  /** The paths of the other `file://` roots (not served; `--workspace` chooses one of them). */
  others: string[];
  ignored: { uri: string; reason: string }[];
}

/**
 * The first local `file://` root (the SDK refuses roots/list answers with other schemes); others reported or ignored.
 * @example
 * ```ts
 * pickRoot([{ uri: "file:///home/u/app" }, { uri: "file:///home/u/lib" }]).others; // ["/home/u/lib"]
 * ```
 */
export function pickRoot(roots: readonly ClientRoot[]): RootsPick {
  const dirs: string[] = [];
  const ignored: RootsPick["ignored"] = [];
  for (const root of roots) {
    let dir: string;
    try {
      dir = path.resolve(fileURLToPath(root.uri));
    } catch (error) {
      ignored.push({ uri: root.uri, reason: (error as Error).message });
      continue;
    }
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  const [first, ...others] = dirs;
  return { choice: first === undefined ? null : { dir: first, source: "roots" }, others, ignored };
}

/**
 * Why `real` from `source` is refused, or null: only `--workspace` may name `/` or home (a client starting a server
 * there did not ask for the whole disk).
 * @example
 * ```ts
 * implicitRefusal({ real: "/", source: "cwd", home: "/home/u" }); // "… is / (the whole file system) …"
 * ```
 */
export function implicitRefusal(
  options: { real: string; source: WorkspaceSource; home: string | null },
): string | null {
  if (options.source === "flag") return null;
  const from = SOURCE_LABELS[options.source];
  if (options.real === "/") {
    return `the workspace from ${from} is / (the whole file system), which is never served implicitly`;
  }
  if (options.home !== null && options.real === options.home) {
    return `the workspace from ${from} is the home directory ${options.home}, which is never served implicitly`;
  }
  return null;
}
