/** The file-system questions the gate asks, answered from the disk or (for examples and tests) a described tree. */
import * as path from "node:path";
import { isInside } from "../workspace/confine.ts";
import { lstatPath } from "../os/fs_stat.ts";

/** What the gate needs to know about the file system; every path is absolute and normalised. */
export interface PathQuestions {
  /** Whether a command may name `abs`: beneath the workspace or the private TMPDIR, or a harmless device. */
  inside(abs: string): boolean;
  /**
   * The real path of `abs` through its nearest existing ancestor (the rest appended), or null when unresolvable.
   * With `followLast` false the last component is not resolved: rm removes a symlink, not its target.
   */
  realParent(abs: string, followLast: boolean): string | null;
  /** Whether anything, a dangling symlink included, is at `abs`. */
  exists(abs: string): boolean;
}

/** Devices and pseudo-files any command may name. */
const ALLOWED_DEVICES = new Set(
  "null zero full random urandom tty stdin stdout stderr".split(" ").map((name) => `/dev/${name}`),
);

function insideOf(workspace: string, tmpdir: string): (abs: string) => boolean {
  return (abs) =>
    isInside(workspace, abs) || isInside(tmpdir, abs) || ALLOWED_DEVICES.has(abs) || /^\/dev\/fd\/\d+$/.test(abs);
}

/**
 * The disk's answers, for the server: `workspace` and `tmpdir` are real paths.
 * @example
 * ```ts
 * diskPaths(Deno.cwd(), "/tmp").exists("/"); // true
 * ```
 */
export function diskPaths(workspace: string, tmpdir: string): PathQuestions {
  return {
    inside: insideOf(workspace, tmpdir),
    realParent(abs, followLast) {
      let probe = followLast ? abs : path.dirname(abs);
      const tail: string[] = followLast ? [] : [path.basename(abs)];
      while (true) {
        try {
          return path.join(Deno.realPathSync(probe), ...tail);
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.NotADirectory)) return null;
          if (probe === "/") return null;
          tail.unshift(path.basename(probe));
          probe = path.dirname(probe);
        }
      }
    },
    // A NUL names nothing on disk (cString would throw on it).
    exists: (abs) => !abs.includes("\0") && lstatPath(abs) !== null,
  };
}

/** A tree described instead of read: the workspace, the private TMPDIR and the symlinks in it. */
export interface DescribedTree {
  workspace: string;
  tmpdir: string;
  /** Absolute link path → absolute target (an existing one: a dangling link is not described). */
  symlinks?: Record<string, string>;
}

/** The top-level directories of a Linux root, which is all `exists` is asked about outside the workspace. */
const LINUX_ROOT = "bin boot dev etc home lib lib64 media mnt opt proc root run sbin srv sys tmp usr var"
  .split(" ").map((name) => `/${name}`);

/**
 * The answers of a described tree on a Linux root, for the rules' examples and the gate's tests: no I/O, no temp
 * dirs. gate_paths_test.ts checks that it answers as the disk does for the corpus's tree.
 * @example
 * ```ts
 * describedPaths({ workspace: "/w", tmpdir: "/t", symlinks: { "/w/o": "/etc" } }).realParent("/w/o/x", true); // /etc/x
 * ```
 */
export function describedPaths(tree: DescribedTree): PathQuestions {
  const links = Object.entries(tree.symlinks ?? {});
  const existing = new Set([...LINUX_ROOT, ...links.map(([link]) => link)]);
  for (const root of [tree.workspace, tree.tmpdir]) {
    for (let dir = root; dir !== "/"; dir = path.dirname(dir)) existing.add(dir);
  }
  const resolve = (abs: string): string => {
    // Each hop replaces a link prefix by its target; a loop of links is cut off as the kernel would (ELOOP).
    for (let hops = 0; hops < 40; hops++) {
      const link = links.find(([from]) => isInside(from, abs));
      if (link === undefined) return abs;
      abs = link[1] + abs.slice(link[0].length);
    }
    return abs;
  };
  return {
    inside: insideOf(tree.workspace, tree.tmpdir),
    realParent: (abs, followLast) =>
      followLast ? resolve(abs) : path.join(resolve(path.dirname(abs)), path.basename(abs)),
    exists: (abs) => existing.has(abs),
  };
}

/** Where the words of one command point: resolved against its cwd, answered by the questions. */
export class Places {
  constructor(readonly workspace: string, readonly cwd: string, readonly questions: PathQuestions) {}

  resolve(word: string): string {
    return path.resolve(this.cwd, word);
  }

  /** Whether a path-like word names something outside; absolute words count only if their top directory exists. */
  outside(candidate: string): boolean {
    if (candidate.startsWith("~")) return true;
    const abs = this.resolve(candidate);
    if (!this.questions.inside(abs)) {
      if (!candidate.startsWith("/")) return true;
      const top = abs.split("/").slice(0, 2).join("/") || "/";
      return top === "/" || this.questions.exists(top);
    }
    const real = this.questions.realParent(abs, true);
    return real !== null && !this.questions.inside(real);
  }
}

/**
 * The part of a word that would be a path (the word, or the value of `--opt=value`, `-Ivalue`, `key=value`), or null.
 * @example
 * ```ts
 * pathCandidate("--out=/etc/x"); // "/etc/x"
 * ```
 */
export function pathCandidate(arg: string): string | null {
  if (arg.startsWith("--")) {
    const eq = arg.indexOf("=");
    return eq === -1 ? null : arg.slice(eq + 1);
  }
  if (arg.startsWith("-")) return /^-[A-Za-z][/~]/.test(arg) ? arg.slice(2) : null;
  const assignment = /^[A-Za-z_][A-Za-z0-9_.-]*=(.*)$/.exec(arg);
  if (assignment) return /^[/~.]/.test(assignment[1]) ? assignment[1] : null;
  return arg === "" ? null : arg;
}
