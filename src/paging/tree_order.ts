/**
 * Tree order, list_dir's and `rg --sort path`'s (their cursors compare it): `/`-separated paths compared component by
 * component (code units), a prefix first, so a directory comes right before what it contains.
 * @example
 * ```ts
 * ["a.txt", "a/b"].sort(treeOrder); // ["a/b", "a.txt"]: "a" sorts before "a.txt"
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
