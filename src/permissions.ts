/**
 * The one list of Deno flags the server runs with (`deno task start`, the tests, build.ts). No write is granted: the
 * server writes through libc over FFI, which Deno's grant does not see, so a slip to a Deno file API fails NotCapable
 * instead of writing past confine(). Net only for the HTTP listener; Landlock, not Deno, confines children.
 */
import * as path from "node:path";

/** What the flag list depends on. */
export interface PermissionInputs {
  /** The HTTP listen address; "any" for the compiled binary, which learns it at run time (drops net in stdio mode). */
  http: { host: string; port: number } | "any" | null;
}

/** 2 MiB semi-spaces (V8 grows them to 16 MiB and RSS keeps that): idle RSS 108 -> 96 MiB, see docs/performance.md. */
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

const CONFIG_PATH = new URL("../deno.json", import.meta.url).pathname;
const MAIN_PATH = new URL("../main.ts", import.meta.url).pathname;

/**
 * `deno run` arguments that start the server from source with exactly the flags build.ts bakes in.
 * @example
 * ```ts
 * new Deno.Command(Deno.execPath(), { args: [...sourceRunArgs({ http: null }), "--workspace", "/home/u/app"] });
 * ```
 */
export function sourceRunArgs(inputs: PermissionInputs): string[] {
  return ["run", ...serverFlags(inputs), "--config", CONFIG_PATH, MAIN_PATH];
}

/**
 * What this process's Deno write grant covers of the real path `root`, reported by server_info to check "none" live.
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
