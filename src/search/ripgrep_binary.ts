/**
 * Where the bundled ripgrep lives and which version it is.
 *
 * From source (`deno run`), rg is the binary of the `@vscode/ripgrep`
 * platform package in node_modules. In a compiled binary, build.ts embeds
 * the target's rg at {@linkcode EMBEDDED_RIPGREP_DIR} and this module makes
 * it executable once at start-up (src/os/executable.ts: a memfd on Linux,
 * else a private hash-checked cache directory); `path` is then what to
 * execute, e.g. `/proc/self/fd/7`, and `fd` the memfd behind it.
 *
 * @example
 * ```ts
 * const rg = await locateRipgrep();
 * await new Deno.Command(rg.path, { args: ["--version"] }).output();
 * ```
 */
import { materializeExecutable } from "../os/executable.ts";

/** The ripgrep binary the server runs. */
export interface RipgrepBinary {
  /** The path to execute. */
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

/** Finds (or, in a compiled binary, materialises) rg and asks it for its version, once at start-up. */
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
