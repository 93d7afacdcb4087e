/**
 * The ignore files rg reads ABOVE the directory it searches. rg (the
 * `ignore` crate) applies the ignore files of every ancestor of its search
 * root, so a workspace inside a larger repository honours that repository's
 * rules, as git would. With `--no-require-git` it looks, in each ancestor,
 * for `.gitignore`, `.ignore`, `.rgignore` and `.git/info/exclude` (never
 * resolving a `.git` file of a worktree, and with `--no-ignore-global` no
 * global excludes file). The read-only sandbox rg runs in must let it read
 * these, and nothing else outside the workspace.
 *
 * @example
 * ```ts
 * ancestorIgnoreFiles("/home/u/repo/pkg"); // ["/home/u/repo/.gitignore", "/home/u/repo/.git/info/exclude"]
 * ```
 */
import * as path from "node:path";

/** The names rg looks for in each ancestor directory. */
export const ANCESTOR_IGNORE_NAMES: readonly string[] = [".gitignore", ".ignore", ".rgignore", ".git/info/exclude"];

/**
 * The ignore files that exist now, as regular files, in the strict ancestors
 * of `root` (absolute and real). One that is a symlink is left out: a rule on
 * it would grant its target, which may be any file.
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
