#!/usr/bin/env node
// @ts-check
/**
 * The `workcell` bin of the npm package: starts the server with the Deno of
 * the pinned `deno` npm package, running the `start` task's own command from
 * the packaged deno.json (so the permission list is the one of
 * src/permissions.ts, exactly as with `deno task start`).
 *
 * No shell: Deno is spawned directly with an argument list. stdin and stdout
 * are inherited untouched (they carry the MCP stream); this file writes only
 * to stderr. SIGINT, SIGTERM and SIGHUP are passed on, and the child's exit
 * code, or the signal that ended it, becomes this process's own.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const app = join(dirname(fileURLToPath(import.meta.url)), "..", "app");
const config = join(app, "deno.json");

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  process.stderr.write(`workcell: ${message}\n`);
  process.exit(1);
}

/**
 * The `start` task, `deno run <flags> <script>`, as an argument list for the
 * Deno binary; `--config` keeps Deno from adopting a deno.json or package.json
 * of the directory the client started us in.
 * @returns {string[]}
 */
function startArgs() {
  /** @type {string[]} */
  const words = JSON.parse(readFileSync(config, "utf8")).tasks.start.trim().split(/\s+/);
  const script = words[words.length - 1];
  const flags = words.slice(2, -1);
  if (words[0] !== "deno" || words[1] !== "run" || !flags.every((flag) => flag.startsWith("--"))) {
    fail(`unexpected start task in ${config}: ${words.join(" ")}`);
  }
  return ["run", ...flags, "--config", config, join(app, script)];
}

/** @returns {string} */
function denoBinary() {
  try {
    // The deno package's own resolver: picks @deno/<platform> (and copes with installs that skipped its script).
    return createRequire(import.meta.url)("deno/install_api.cjs").runInstall();
  } catch (error) {
    return fail(`cannot find the Deno runtime of the "deno" npm package: ${/** @type {Error} */ (error).message}`);
  }
}

const deno = denoBinary();
/** @type {Record<string, string | undefined>} */
const env = { ...process.env, DENO_NO_UPDATE_CHECK: "1" };
// start.ts resolves relative paths against INIT_CWD when set; ours is the directory we were started in.
delete env.INIT_CWD;
const child = spawn(deno, [...startArgs(), ...process.argv.slice(2)], { stdio: "inherit", env });

/** @type {NodeJS.Signals[]} */
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of FORWARDED) process.on(signal, () => child.kill(signal));
child.on("error", (error) => fail(`cannot start ${deno}: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Die of the same signal, so whoever started us sees what really happened.
  for (const forwarded of FORWARDED) process.removeAllListeners(forwarded);
  process.kill(process.pid, signal);
});
