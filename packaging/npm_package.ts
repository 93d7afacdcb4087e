/**
 * The npm package `workcell`: a small Node launcher (packaging/npm/workcell.mjs)
 * as its bin, the server's sources with deno.json and deno.lock, their npm
 * dependencies laid out beside them (packaging/npm_dependencies.ts), and the
 * pinned `deno` npm package as its one npm dependency, for the runtime.
 *
 * package.json is written here, into a staging directory, and never lives in
 * the repository: a package.json beside deno.json makes Deno treat it as the
 * project's npm manifest (measured: it adds `npm:deno` to deno.lock and
 * installs the deno package into node_modules on every `deno run`). For the
 * same reason the sources sit in the package's `app/` directory, away from
 * its package.json, as JavaScript (packaging/transpile.ts: nothing to
 * transpile on a first start). The launcher runs main.js itself (one Deno process, no
 * `deno task`) with the flags of src/permissions.ts written beside it
 * ({@linkcode SERVER_FLAGS_FILE}) and `--config app/deno.json`,
 * whose npm imports resolve from app/node_modules, laid out at pack time from
 * app/deno.lock: an installed package needs no network, and never writes
 * into its own directory.
 *
 * @example
 * const tarball = await packNpmPackage("/tmp/out"); // "/tmp/out/workcell-0.1.0.tgz"
 */
import * as path from "node:path";
import { NPM_PACKAGE, REGISTRY_NAME, REPOSITORY_URL, SERVER_DESCRIPTION, WEBSITE_URL } from "../src/metadata.ts";
import { SERVER_VERSION } from "../src/version.ts";
import { npm } from "../tasks/npm_tools.ts";
import { installDependencies, packagedDenoConfig, TARGETS } from "./npm_dependencies.ts";
import { serverFlags } from "../src/permissions.ts";
import { transpileSources } from "./transpile.ts";

/** The Deno the package runs on: the one the project is built and tested with (`npx -y deno@2.9.6`). */
export const DENO_VERSION = "2.9.6";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
/** The launcher, and where the package's bin points. */
const LAUNCHER = path.join(ROOT, "packaging", "npm", "workcell.mjs");
export const BIN_PATH = "bin/workcell.mjs";
/** Where the sources go inside the package. */
export const APP_DIR = "app";
/**
 * The server's Deno flags (src/permissions.ts), written into the package for the launcher, which is plain Node and
 * cannot import them: net as for the compiled binary, whose listen address is only known at run time (main.ts drops
 * net again in stdio mode).
 */
export const SERVER_FLAGS_FILE = "server-flags.json";

/** The files below the repository's `dir`, relative to the repository, without test files. */
export async function filesBelow(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(path.join(ROOT, dir))) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      files.push(...await filesBelow(rel));
    } else if (entry.isFile && !entry.name.endsWith("_test.ts")) files.push(rel);
  }
  return files;
}

/** The files the server needs at run time, relative to the repository: tests and their helpers stay out. */
export async function appFiles(): Promise<string[]> {
  // schemas/tools.json: the stored tools/list the server answers with (src/catalog_listing.ts).
  const files = ["deno.json", "deno.lock", "main.ts", "schemas/tools.json"];
  return [...files, ...await filesBelow("src")].sort();
}

/** The package's package.json. */
export function packageJson(): Record<string, unknown> {
  return {
    name: NPM_PACKAGE,
    version: SERVER_VERSION,
    description: SERVER_DESCRIPTION,
    keywords: ["mcp", "mcp-server", "model-context-protocol", "coding-agent", "sandbox", "deno"],
    homepage: WEBSITE_URL,
    bugs: `${REPOSITORY_URL}/issues`,
    repository: { type: "git", url: `git+${REPOSITORY_URL}.git` },
    license: "MIT",
    // The MCP registry checks that the npm package names the server it is published for.
    mcpName: REGISTRY_NAME,
    type: "module",
    bin: { [NPM_PACKAGE]: BIN_PATH },
    files: ["bin/", `${APP_DIR}/`],
    // Linux only: every file access is pinned through Linux libc calls (docs/confinement.md).
    os: [...new Set(TARGETS.map((target) => target.os))],
    cpu: TARGETS.map((target) => target.cpu),
    engines: { node: ">=18" },
    dependencies: { deno: DENO_VERSION },
  };
}

async function copy(from: string, to: string): Promise<void> {
  await Deno.mkdir(path.dirname(to), { recursive: true });
  await Deno.copyFile(from, to);
}

/**
 * Writes the package's tree into `dir` (which must not exist yet or be empty): the sources (transpiled), their
 * deno.json made the packaged one, the npm cache filled from deno.lock, then package.json (last, so that no Deno run during
 * staging can see it).
 */
export async function stageNpmPackage(dir: string): Promise<void> {
  if (Deno.version.deno !== DENO_VERSION) {
    throw new Error(`the package pins deno ${DENO_VERSION}; run this with it (npx -y deno@${DENO_VERSION})`);
  }
  await Deno.mkdir(dir, { recursive: true });
  const app = path.join(dir, APP_DIR);
  const files = await appFiles();
  for (const file of files) await copy(path.join(ROOT, file), path.join(app, file));
  const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
  await Deno.writeTextFile(path.join(app, "deno.json"), JSON.stringify(packagedDenoConfig(config), null, 2) + "\n");
  await transpileSources(app, files);
  await Deno.writeTextFile(path.join(app, SERVER_FLAGS_FILE), JSON.stringify(serverFlags({ http: "any" })) + "\n");
  await installDependencies(app);
  for (const file of ["README.md", "LICENSE"]) await copy(path.join(ROOT, file), path.join(dir, file));
  await copy(LAUNCHER, path.join(dir, BIN_PATH));
  await Deno.chmod(path.join(dir, BIN_PATH), 0o755);
  await Deno.writeTextFile(path.join(dir, "package.json"), JSON.stringify(packageJson(), null, 2) + "\n");
}

/**
 * Stages the package in `outDir/npm` and packs it with `npm pack` into
 * `outDir`; returns the tarball's path.
 */
export async function packNpmPackage(outDir: string): Promise<string> {
  const staging = path.join(outDir, "npm");
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  await stageNpmPackage(staging);
  const [packed] = JSON.parse(await npm(["pack", "--json", "--pack-destination", outDir], { cwd: staging }));
  return path.join(outDir, packed.filename);
}
