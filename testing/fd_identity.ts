/**
 * What `fd` of process `pid` is open on, or null: `pipe:[inode]`, a PTY master (link `/dev/ptmx`) by its slave
 * `/dev/pts/N`, a pidfd as `pidfd:PID` (`-1` once reaped). Tests compare these, not counts (--parallel shares fds).
 */
export function fdIdentity(fd: number, pid: number | "self" = "self"): string | null {
  try {
    const link = Deno.readLinkSync(`/proc/${pid}/fd/${fd}`);
    if (link === "anon_inode:[pidfd]") {
      const process = /^Pid:\s*(-?\d+)$/m.exec(Deno.readTextFileSync(`/proc/${pid}/fdinfo/${fd}`));
      return process ? `pidfd:${process[1]}` : link;
    }
    if (link !== "/dev/ptmx" && link !== "/dev/pts/ptmx") return link;
    const index = /^tty-index:\s*(\d+)$/m.exec(Deno.readTextFileSync(`/proc/${pid}/fdinfo/${fd}`));
    return index ? `/dev/pts/${index[1]}` : link;
  } catch {
    return null;
  }
}

/** The identities of `fds` in process `pid` (those open). */
export function fdIdentities(pid: number | "self", fds: readonly number[]): Set<string> {
  return new Set(fds.map((fd) => fdIdentity(fd, pid)).filter((id): id is string => id !== null));
}

/**
 * The fds of this process open on any of `identities`.
 * @example
 * ```ts
 * heldFds(fdIdentities(Deno.pid, [0, 1, 2]));
 * ```
 */
export function heldFds(identities: ReadonlySet<string>): number[] {
  const held: number[] = [];
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    const id = fdIdentity(Number(entry.name));
    if (id !== null && identities.has(id)) held.push(Number(entry.name));
  }
  return held;
}

/**
 * This process's fds that point below `dir`, by number, sorted (under --parallel a count of all fds moves on its own).
 * @example
 * ```ts
 * openFds(Deno.cwd()); // [] unless something holds a file there open
 * ```
 */
export function openFds(dir: string): string[] {
  const below = `${dir.replace(/\/$/, "")}/`;
  return [...Deno.readDirSync("/proc/self/fd")].filter((entry) => {
    try {
      const target = Deno.readLinkSync(`/proc/self/fd/${entry.name}`);
      return target === dir || target.startsWith(below);
    } catch {
      return false; // closed meanwhile
    }
  }).map((entry) => entry.name).sort();
}
