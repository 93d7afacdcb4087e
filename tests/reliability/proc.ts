/**
 * What /proc says about a server process, for the reliability suite: its
 * resident memory, its open fds and its child processes.
 *
 * @example
 * const before = fdTargets(pid);
 * // ... run commands ...
 * assertEquals(children(pid).filter((child) => child.state === "Z"), []);
 */

/** The process's resident set (VmRSS) in MiB. */
export function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** What each open fd of `pid` points at (`pipe:[123]`, `anon_inode:[pidfd]`, a path...). */
export function fdTargets(pid: number): string[] {
  return [...Deno.readDirSync(`/proc/${pid}/fd`)].map((entry) => {
    try {
      return Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
    } catch {
      return "closed";
    }
  });
}

/** A process whose parent is the one asked about. */
export interface Child {
  pid: number;
  /** The state letter from /proc/<pid>/stat: R, S, Z... */
  state: string;
  command: string;
}

/** The direct children of `pid`, zombies included. */
export function children(pid: number): Child[] {
  const found: Child[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(")");
    const [state, parent] = stat.slice(close + 2).split(" ");
    if (Number(parent) === pid) {
      found.push({ pid: Number(entry.name), state, command: stat.slice(stat.indexOf("(") + 1, close) });
    }
  }
  return found;
}

/** Polls `condition` every 50 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
