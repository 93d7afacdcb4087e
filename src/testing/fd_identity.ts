/**
 * What an fd is open on, so that a test can tell its own pipes and
 * terminals apart from the fds of other test files: `deno test --parallel`
 * runs them in one process, so counting /proc/self/fd compares fds that come
 * and go under other tests. A pipe is `pipe:[inode]`; a PTY's master (whose
 * link is only `/dev/ptmx`) is named by its slave, `/dev/pts/N`, like the
 * slave itself; a pidfd by its process, `pidfd:PID` (`pidfd:-1` once that
 * process is reaped).
 *
 * @example
 * ```ts
 * const child = Deno.pid; // a running child's pid in a real test
 * const ids = fdIdentities(child, [0, 1, 2]);
 * heldFds(ids); // fds of this process on the same pipes or terminal
 * ```
 */

/** The identity of `fd` in process `pid`, or null when it is not open. */
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

/** The fds of this process open on any of `identities`. */
export function heldFds(identities: ReadonlySet<string>): number[] {
  const held: number[] = [];
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    const id = fdIdentity(Number(entry.name));
    if (id !== null && identities.has(id)) held.push(Number(entry.name));
  }
  return held;
}

/**
 * This process's fds that point below `dir`, by number, sorted: other test files run in the same process under
 * --parallel, so a count of all fds moves on its own.
 *
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
