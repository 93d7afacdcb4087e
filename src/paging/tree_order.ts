/**
 * Tree order: the order of a depth-first walk that visits each directory's
 * entries sorted by name, a directory right before what it contains. It is
 * list_dir's order and `rg --sort path`'s, and what their cursors compare.
 *
 * @example
 * ```ts
 * ["a.txt", "a/b"].sort(treeOrder); // ["a/b", "a.txt"]: "a" sorts before "a.txt"
 * ```
 */

/**
 * Compares two `/`-separated paths component by component (code units), a prefix first.
 *
 * @example
 * ```ts
 * treeOrder("src/b.ts", "src/a/z.ts"); // > 0
 * ```
 */
export function treeOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}
