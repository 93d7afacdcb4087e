import * as path from "node:path";

/** The names rg looks for in each ancestor (never resolving a worktree's `.git` file; no global excludes file). */
export const ANCESTOR_IGNORE_NAMES: readonly string[] = [".gitignore", ".ignore", ".rgignore", ".git/info/exclude"];

/**
 * The ignore files rg (the `ignore` crate, run with `--no-require-git`) reads above its search root `root` (absolute,
 * real): those that exist now, as regular files, in its strict ancestors. Its read-only sandbox must let it read them.
 * A symlink is left out: a rule on it would grant its target, which may be any file.
 * @example
 * ```ts
 * ancestorIgnoreFiles("/home/u/repo/pkg"); // ["/home/u/repo/.gitignore", "/home/u/repo/.git/info/exclude"]
 * ```
 */
export function ancestorIgnoreFiles(root: string): string[] {
  const found: string[] = [];
  for (let dir = path.dirname(root);; dir = path.dirname(dir)) {
    for (const name of ANCESTOR_IGNORE_NAMES) {
      const file = path.join(dir, name);
      try {
        if (Deno.lstatSync(file).isFile) found.push(file);
      } catch {
        // absent or unreadable: rg finds nothing there either
      }
    }
    if (dir === path.dirname(dir)) return found;
  }
}
