/**
 * Resident memory of a process tree, as the benchmarks report it: the sum of
 * VmRSS over `pid` and all its descendants (shared pages counted in each).
 *
 * @example
 * ```ts
 * treeRssMiB(Deno.pid); // e.g. 61.2
 * ```
 */

/** `pid` and all its descendants, from the parent ids in /proc/<pid>/stat. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry.name)]);
    } catch { /* exited meanwhile */ }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** Resident memory of the whole process tree under `pid`, in MiB. */
export function treeRssMiB(pid: number): number {
  let kb = 0;
  for (const member of processTree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+) kB/.exec(Deno.readTextFileSync(`/proc/${member}/status`))?.[1] ?? 0);
    } catch { /* exited meanwhile */ }
  }
  return kb / 1024;
}
