#!/usr/bin/env node
// @ts-check
/**
 * The `workcell` bin of the npm package: runs the server (app/main.js) with
 * the Deno of the pinned `deno` npm package, as that Deno's own process (no
 * `deno task`, no second Deno in between), with the flag list of
 * src/permissions.ts that packaging wrote to app/server-flags.json.
 *
 * The server's npm packages come from the Deno npm cache packed beside the
 * sources (app/deno_npm/npm/, filled from deno.lock when the package was
 * built: packaging/npm_dependencies.ts), so nothing is downloaded and nothing
 * is written into the package's own directory. Deno has one DENO_DIR for its
 * npm cache and its other caches (transpiled sources, V8 code), so the server
 * gets a DENO_DIR of the user's own beneath ~/.cache/workcell/ whose npm/
 * links to the packaged one (see `denoDir`); where none can be
 * made (no writable home), the packaged cache itself, which Deno then only
 * reads.
 *
 * No shell: Deno runs directly with an argument list. On Node 22.15 and later
 * this process becomes it (`process.execve`); on older Node it is a child,
 * SIGINT, SIGTERM and SIGHUP are passed on, and its exit code, or the signal
 * that ended it, becomes this process's own. stdin and stdout are left
 * untouched (they carry the MCP stream); this file writes only to stderr.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const app = join(dirname(fileURLToPath(import.meta.url)), "..", "app");
const config = join(app, "deno.json");
/** The packaged npm cache: a DENO_DIR that holds only npm/. */
const packagedCache = join(app, "deno_npm");
/** The npm registry's folder in a DENO_DIR. */
const REGISTRY = join("npm", "registry.npmjs.org");

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  process.stderr.write(`workcell: ${message}\n`);
  process.exit(1);
}

/**
 * `deno run <flags> --config app/deno.json app/main.js`: `--config` keeps Deno from adopting a deno.json or
 * package.json of the directory the client started us in.
 * @returns {string[]}
 */
function startArgs() {
  const file = join(app, "server-flags.json");
  /** @type {unknown} */
  const flags = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(flags) || !flags.every((flag) => typeof flag === "string" && flag.startsWith("--"))) {
    return fail(`unexpected flag list in ${file}`);
  }
  return ["run", ...flags, "--config", config, join(app, "main.js")];
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

/**
 * The DENO_DIR the server runs with: `$XDG_CACHE_HOME/workcell/deno-VERSION-KEY` (or beneath `~/.cache`), KEY
 * naming this installed package, whose `npm` is a symlink to the packaged npm cache (made once, in a temporary
 * directory renamed into place); else, when it cannot be made, the packaged cache itself. Deno takes the npm cache
 * by its real path (measured: a symlink per package version instead makes every npm module "unprepared"), so it must
 * be linked whole; children get the client's own DENO_DIR back (src/policy/env_filter.ts).
 * @returns {string}
 */
function denoDir() {
  const base = process.env.XDG_CACHE_HOME || (process.env.HOME ? join(process.env.HOME, ".cache") : "");
  if (!base.startsWith("/")) return packagedCache;
  const key = createHash("sha256").update(packagedCache).digest("hex").slice(0, 12);
  const version = JSON.parse(readFileSync(join(app, "..", "package.json"), "utf8")).version;
  const dir = join(base, "workcell", `deno-${version}-${key}`);
  try {
    readdirSync(join(dir, REGISTRY));
    return dir;
  } catch {
    // not made yet
  }
  const making = `${dir}.${process.pid}.tmp`;
  try {
    mkdirSync(making, { recursive: true });
    symlinkSync(join(packagedCache, "npm"), join(making, "npm"));
    renameSync(making, dir);
    return dir;
  } catch {
    try {
      rmSync(making, { recursive: true, force: true });
    } catch {
      // nothing was made
    }
    try {
      readdirSync(join(dir, REGISTRY)); // another start made it first
      return dir;
    } catch {
      return packagedCache;
    }
  }
}

const deno = denoBinary();
/** @type {Record<string, string | undefined>} */
const env = {
  ...process.env,
  DENO_NO_UPDATE_CHECK: "1",
  DENO_DIR: denoDir(),
  // what the server's children get back as DENO_DIR (src/policy/env_filter.ts CLIENT_DENO_DIR_ENV)
  WORKCELL_CLIENT_DENO_DIR: process.env.DENO_DIR ?? "",
};
// npx sets INIT_CWD; `deno task` and npm scripts the agent runs take an inherited one for where they were started.
delete env.INIT_CWD;
const args = [...startArgs(), ...process.argv.slice(2)];
if (typeof process.execve === "function") becomeServer();
relayToServer();

/**
 * Node 22.15 and later: this process becomes the server (execve), so the client's process is the server itself and
 * nothing stands between them (issue 31: one process of ours, its memory the server's alone).
 */
function becomeServer() {
  /** @type {Record<string, string>} */
  const defined = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) defined[name] = value;
  try {
    /** @type {(file: string, args: string[], env: Record<string, string>) => never} */ (process.execve)(
      deno,
      [deno, ...args],
      defined,
    );
  } catch (error) {
    fail(`cannot start ${deno}: ${/** @type {Error} */ (error).message}`);
  }
}

/** Older Node: the server runs as a child; signals go to it, and its exit code or signal becomes ours. */
function relayToServer() {
  const child = spawn(deno, args, { stdio: "inherit", env });
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
}
