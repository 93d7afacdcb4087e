/**
 * Where the workspace comes from, in this order: `--workspace`, else
 * `CLAUDE_PROJECT_DIR`, else the client's MCP roots (asked after
 * initialize), else the server's working directory. Only the flag may name
 * `/` or the home directory: from any other source they are refused rather
 * than served, since a client that starts servers in `/` or `$HOME` did not
 * ask for the whole disk. Pure rules: the callers do the I/O.
 *
 * @example
 * ```ts
 * const launch = launchWorkspace({ flag: null, projectDir: "/home/u/app", cwd: "/" });
 * // { kind: "fixed", choice: { dir: "/home/u/app", source: "env" } }
 * ```
 */
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
 * The launch-time part of the order: the flag, then the variable; without
 * either the roots (if the client has any) or the working directory decide.
 *
 * @example
 * ```ts
 * launchWorkspace({ flag: null, projectDir: undefined, cwd: "/srv" }); // { kind: "pending", fallback: { dir: "/srv", source: "cwd" } }
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
  /** The first local `file://` root, or null when there is none. */
  choice: WorkspaceChoice | null;
  /** The paths of the other `file://` roots (not served; `--workspace` chooses one of them). */
  others: string[];
  /** Roots that cannot be a workspace, with why. */
  ignored: { uri: string; reason: string }[];
}

/**
 * The workspace the client's roots name: exactly one is served, the first
 * local `file://` one (the SDK refuses a roots/list answer with any other
 * scheme as a whole); the others are reported, and a root on another host
 * is ignored with the reason.
 *
 * @example
 * ```ts
 * pickRoot([{ uri: "file:///home/u/app" }, { uri: "file:///home/u/lib" }]);
 * // { choice: { dir: "/home/u/app", source: "roots" }, others: ["/home/u/lib"], ignored: [] }
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
 * Why `real` (a real path) may not be served when it came from `source`, or
 * null: `/` and the home directory are served only when `--workspace` names them.
 *
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
