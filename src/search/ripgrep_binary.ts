/**
 * Where the bundled ripgrep lives and which version it is.
 *
 * @example
 * const rg = await locateRipgrep();
 * console.error(rg.path, rg.version);
 */
import { rgPath } from "@vscode/ripgrep";

/** The ripgrep binary the server runs. */
export interface RipgrepBinary {
  path: string;
  /** First line of `rg --version`, or null when it could not run. */
  version: string | null;
  /** Where it comes from. */
  origin: "npm:@vscode/ripgrep";
}

/** Finds the bundled rg and asks it for its version (once, at start-up). */
export async function locateRipgrep(): Promise<RipgrepBinary> {
  let version: string | null = null;
  try {
    const out = await new Deno.Command(rgPath, { args: ["--version"], stdin: "null", stderr: "null" }).output();
    if (out.success) version = new TextDecoder().decode(out.stdout).split("\n")[0].trim();
  } catch {
    version = null;
  }
  return { path: rgPath, version, origin: "npm:@vscode/ripgrep" };
}
