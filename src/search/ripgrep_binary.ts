import { materializeExecutable } from "../os/executable.ts";

/** The ripgrep binary the server runs. */
export interface RipgrepBinary {
  path: string;
  /** The memfd behind `path` (`/proc/self/fd/N`) in a compiled binary, else null. */
  fd: number | null;
  /** First line of `rg --version`, or null when it could not run. */
  version: string | null;
  /** Where it comes from and how it runs, e.g. "npm:@vscode/ripgrep (embedded, memfd)". */
  origin: string;
}

/** The package the binary comes from. */
export const RIPGREP_PACKAGE = "npm:@vscode/ripgrep";
/** Where build.ts stages the target's rg for `deno compile --include` (repo-relative). */
export const EMBEDDED_RIPGREP_DIR = "dist/.embed";
/** The name of the rg executable in the npm package and in the binary. */
export const RIPGREP_FILE_NAME = "rg";

async function versionOf(exe: string): Promise<string | null> {
  try {
    const out = await new Deno.Command(exe, { args: ["--version"], stdin: "null", stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout).split("\n")[0].trim() : null;
  } catch {
    return null;
  }
}

/**
 * Finds rg (`@vscode/ripgrep`'s, or a compiled binary's embedded one, made executable) and its version, at start-up.
 * @example
 * ```ts
 * const rg = await locateRipgrep();
 * await new Deno.Command(rg.path, { args: ["--version"] }).output();
 * ```
 */
export async function locateRipgrep(): Promise<RipgrepBinary> {
  if (!Deno.build.standalone) {
    const { rgPath } = await import("@vscode/ripgrep");
    return { path: rgPath, fd: null, version: await versionOf(rgPath), origin: RIPGREP_PACKAGE };
  }
  const embedded = new URL(`../../${EMBEDDED_RIPGREP_DIR}/${RIPGREP_FILE_NAME}`, import.meta.url);
  try {
    const made = await materializeExecutable(RIPGREP_FILE_NAME, await Deno.readFile(embedded));
    return {
      path: made.path,
      fd: made.fd,
      version: await versionOf(made.path),
      origin: `${RIPGREP_PACKAGE} (embedded, ${made.via})`,
    };
  } catch (error) {
    console.error(`workcell: the embedded ripgrep cannot run: ${(error as Error).message}`);
    return {
      path: embedded.pathname,
      fd: null,
      version: null,
      origin: `${RIPGREP_PACKAGE} (embedded, not runnable: ${(error as Error).message})`,
    };
  }
}
