/** The programs check_exec_environment reports, looked up once at start-up on the PATH that children inherit. */
import { findOnPath, isExecutableFile } from "../os/spawn.ts";

/** Each reported program: where it is looked for, and what needs it. */
export const PROGRAMS = {
  sh: { lookup: "/bin/sh", neededBy: "exec_command in trusted and dangerous mode (and with a shell grant)" },
  git: {
    lookup: "PATH",
    neededBy: "git_status, git_diff, git_log, git_show, git_blame, and server_info's git context",
  },
  perl: { lookup: "PATH", neededBy: "commands that run Perl" },
  python3: { lookup: "PATH", neededBy: "commands that run Python" },
} as const;

/** A reported program. */
export type ProgramName = keyof typeof PROGRAMS;

/** Where each program was found, or null. */
export type ProgramFacts = Record<ProgramName, string | null>;

/**
 * Looks every reported program up on `searchPath`.
 * @example
 * ```ts
 * probePrograms("/usr/bin").python3; // "/usr/bin/python3", or null
 * ```
 */
export function probePrograms(searchPath: string): ProgramFacts {
  const found = Object.entries(PROGRAMS).map(([name, { lookup }]) =>
    [name, lookup === "PATH" ? findOnPath(name, searchPath) : isExecutableFile(lookup) ? lookup : null] as const
  );
  return Object.fromEntries(found) as ProgramFacts;
}
