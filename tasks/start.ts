/**
 * `deno task start [flags]`: runs the server from source with the one
 * permission list (src/permissions.ts), from the directory the task was
 * started in, with a relative --workspace made absolute.
 */
import * as path from "node:path";
import { parseArgs, UsageError } from "../src/config.ts";
import { sourceRunArgs } from "../src/permissions.ts";

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

const child = new Deno.Command(Deno.execPath(), {
  args: [...sourceRunArgs(inputs), ...args],
  cwd,
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  Deno.addSignalListener(signal, () => child.kill(signal));
}
Deno.exit((await child.status).code);
