/**
 * `deno task start [flags]`: runs the server from source with the one
 * permission list (src/permissions.ts), from the directory the task was
 * started in, with a relative --workspace made absolute. The script then
 * becomes the server (execve), so nothing of it stays running.
 */
import * as path from "node:path";
import { parseArgs, UsageError } from "../src/config.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { execProgram } from "../src/os/spawn.ts";

// deno task runs in the config's directory; INIT_CWD is where the user stood.
const cwd = Deno.env.get("INIT_CWD") ?? Deno.cwd();
let args = [...Deno.args];
let inputs = { http: null as { host: string; port: number } | null };
try {
  const parsed = parseArgs(args, Deno.env.toObject());
  if (parsed.kind === "run") {
    inputs = { http: parsed.config.http };
    if (parsed.config.workspace !== null) {
      const workspace = path.resolve(cwd, parsed.config.workspace);
      args = ["--workspace", workspace, ...args.filter((_, i) => !isWorkspaceArg(args, i))];
    }
  }
} catch (error) {
  if (!(error instanceof UsageError)) throw error; // the server itself reports usage errors
}

function isWorkspaceArg(all: string[], i: number): boolean {
  return all[i] === "--workspace" || all[i].startsWith("--workspace=") || all[i - 1] === "--workspace";
}

// The server replaces this script (execve): `deno task start` leaves one process of ours, the server itself, with
// the terminal's signals and the server's exit status its own (issue 31).
Deno.chdir(cwd);
execProgram(Deno.execPath(), [Deno.execPath(), ...sourceRunArgs(inputs), ...args], Deno.env.toObject());
