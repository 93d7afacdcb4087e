/**
 * The one list of Deno flags the server runs with: its permissions and its
 * V8 heap setting. `deno task start`, the end-to-end tests and `build.ts`
 * all take it from here.
 *
 * No write is granted at all: everything the server writes — the workspace
 * through the file backend's fd-relative calls beneath the pinned root
 * (src/workspace/, src/patch/), the children's private temp dir and the
 * audit log (src/policy/private_tmp.ts, src/audit/file.ts) — goes through
 * libc over FFI, which Deno's grant does not see. Without the grant, a Deno
 * file API cannot write anywhere, so a slip that reached for one instead of
 * a handle fails with NotCapable instead of writing past confine(). Network
 * is granted only for the HTTP listener. Children (commands, git, rg) are not
 * bound by Deno permissions; Landlock confines them (src/policy/).
 *
 * @example
 * ```ts
 * serverFlags({ http: null });
 * ```
 */
import * as path from "node:path";

/** What the flag list depends on. */
export interface PermissionInputs {
  /**
   * The HTTP listen address when serving HTTP; "any" for the compiled binary,
   * whose address is only known at run time (it drops net again in stdio mode).
   */
  http: { host: string; port: number } | "any" | null;
}

/**
 * V8's young generation capped at 2 MiB a semi-space (V8 grows it to 16 MiB under allocation, and RSS keeps what it
 * grew to): idle RSS 108 -> 96 MiB, after 600 small calls 150 -> 107 MiB, with a 20,000-file listing and a
 * 2,000-match search unchanged within noise and a deep read_file page faster (docs/performance.md, "Memory").
 */
const V8_FLAGS = "--v8-flags=--max-semi-space-size=2";

/** The Deno flags for a server with these inputs: its permissions, then its V8 setting. */
export function serverFlags(inputs: PermissionInputs): string[] {
  const flags = [
    "--no-prompt",
    "--allow-read",
    "--allow-run",
    "--allow-env",
    "--allow-sys",
    "--allow-ffi",
  ];
  if (inputs.http === "any") flags.push("--allow-net");
  else if (inputs.http) {
    const host = inputs.http.host.includes(":") ? `[${inputs.http.host}]` : inputs.http.host;
    flags.push(`--allow-net=${host}:${inputs.http.port}`);
  }
  flags.push(V8_FLAGS);
  return flags;
}

/** The repository's own files, for running the server from source. */
const CONFIG_PATH = new URL("../deno.json", import.meta.url).pathname;
const MAIN_PATH = new URL("../main.ts", import.meta.url).pathname;

/**
 * `deno run` arguments that start the server from source with exactly the
 * flag list build.ts bakes in (used by `deno task start` and the tests).
 *
 * @example
 * ```ts
 * const inputs: PermissionInputs = { http: null };
 * new Deno.Command(Deno.execPath(), { args: [...sourceRunArgs(inputs), "--workspace", "/home/u/app"] });
 * ```
 */
export function sourceRunArgs(inputs: PermissionInputs): string[] {
  return ["run", ...serverFlags(inputs), "--config", CONFIG_PATH, MAIN_PATH];
}

/**
 * What this process's Deno write grant covers of `root` (a real path):
 * exactly it, more than it (its parent is granted too), or none of it.
 * server_info reports it so the list's promise ("none") can be checked at
 * run time.
 *
 * @example
 * ```ts
 * await writeGrant("/home/u/app"); // "none" under serverFlags()
 * ```
 */
export async function writeGrant(root: string): Promise<"workspace" | "wider" | "none"> {
  const granted = async (dir: string) =>
    (await Deno.permissions.query({ name: "write", path: dir })).state === "granted";
  if (!(await granted(root))) return "none";
  const parent = path.dirname(root);
  return parent !== root && await granted(parent) ? "wider" : "workspace";
}
