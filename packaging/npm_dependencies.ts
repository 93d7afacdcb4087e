/**
 * The server's npm dependencies, fetched at pack time from deno.lock into a
 * Deno npm cache inside the npm package (`app/deno_npm/npm/`), so that the
 * installed package runs offline, as any user, and never writes into its own
 * directory.
 *
 * What Deno 2.9.6 allows, measured:
 * - Its default layout (`nodeModulesDir: "auto"`) links `node_modules/.deno/`
 *   together with symlinks, which npm drops when it packs and installs a
 *   tarball, and a run writes its set-up state there.
 * - An npm-style tree (`deno install --node-modules-linker=hoisted`, run with
 *   `nodeModulesDir: "manual"`) needs no writes, but then Deno takes every
 *   file below a `node_modules` directory for npm code and refuses to strip
 *   the types of the server's own .ts files (installed, they always sit below
 *   one): `ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING`.
 * - Deno's global npm cache (`nodeModulesDir: "none"`) is plain directories,
 *   `DENO_DIR/npm/registry.npmjs.org/NAME/VERSION/`, filled by `deno install
 *   --frozen` from the lock, each tarball checked against its integrity hash.
 *   With it read-only and no network, as another user, a run starts and
 *   answers tool calls, writing nothing. This is what the package carries;
 *   the launcher points DENO_DIR at it (packaging/npm/workcell.mjs).
 *
 * Deno installs only the running platform's optional packages (ripgrep's
 * binary); {@linkcode addPlatformPackages} adds the other Linux one from its
 * npm tarball, checked against the same lock hash.
 *
 * @example
 * ```ts
 * await installDependencies("/tmp/stage/app"); // app/deno_npm/npm/ from app/deno.lock
 * ```
 */
import * as path from "node:path";
import { createHash } from "node:crypto";
import { npm } from "../tasks/npm_tools.ts";

/** The npm `os`/`cpu` pairs the package serves; the npm package.json declares the same. */
export const TARGETS: readonly { os: string; cpu: string }[] = [
  { os: "linux", cpu: "x64" },
  { os: "linux", cpu: "arm64" },
];

/** Where, in the packaged app, the Deno npm cache goes: a DENO_DIR holding only `npm/`. */
export const NPM_CACHE_DIR = "deno_npm";
/** The registry's folder in it, as Deno names it. */
const REGISTRY_DIR = "npm/registry.npmjs.org";

/**
 * The deno.json the package runs with: the repository's, with npm packages
 * taken from the npm cache in DENO_DIR (`none`: no node_modules directory)
 * and the lock frozen, so that a run can never rewrite the packaged deno.lock.
 *
 * @example
 * ```ts
 * packagedDenoConfig({ nodeModulesDir: "auto" }); // { nodeModulesDir: "none", lock: { frozen: true } }
 * ```
 */
export function packagedDenoConfig(config: Record<string, unknown>): Record<string, unknown> {
  const { tasks: _tasks, ...rest } = config; // the package runs main.js directly; its tasks need files it leaves out
  return { ...rest, nodeModulesDir: "none", lock: { frozen: true } };
}

/** One npm package of a deno.lock (version 5): its key is `name@version`, then `_peer@version` suffixes. */
export interface LockedPackage {
  name: string;
  version: string;
  integrity: string;
  os?: string[];
  cpu?: string[];
}

/**
 * The npm packages deno.lock pins, by `name@version`.
 *
 * @example
 * ```ts
 * lockedPackages({ npm: { "zod@4.3.6": { integrity: "sha512-x" } } }); // [{ name: "zod", version: "4.3.6", … }]
 * ```
 */
export function lockedPackages(lock: { npm?: Record<string, Record<string, unknown>> }): LockedPackage[] {
  return Object.entries(lock.npm ?? {}).map(([key, entry]) => {
    const at = key.indexOf("@", 1);
    return {
      name: key.slice(0, at),
      version: key.slice(at + 1).split("_")[0],
      integrity: String(entry.integrity),
      os: entry.os as string[] | undefined,
      cpu: entry.cpu as string[] | undefined,
    };
  });
}

/**
 * The platform-specific packages of the lock that serve one of `targets`
 * (a package with neither `os` nor `cpu` is for every platform, so not one
 * of these).
 *
 * @example
 * ```ts
 * platformPackages([{ name: "rg-linux-arm64", version: "1", integrity: "", os: ["linux"], cpu: ["arm64"] }], TARGETS);
 * ```
 */
export function platformPackages(packages: LockedPackage[], targets: readonly { os: string; cpu: string }[]) {
  return packages.filter((pkg) =>
    (pkg.os !== undefined || pkg.cpu !== undefined) &&
    targets.some((target) =>
      (pkg.os ?? [target.os]).includes(target.os) && (pkg.cpu ?? [target.cpu]).includes(target.cpu)
    )
  );
}

async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<void> {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")} failed (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`);
  }
}

/**
 * Whether a file of an npm package is one Deno never reads when it runs the server: source maps, type declarations
 * and TypeScript sources (a run resolves the `import` and `default` conditions, never `types` or `source`, and does
 * not type-check), READMEs and changelogs, CI configs. Licence texts stay. npm's install time follows the file count:
 * with the 4,006 files of the tarball `npm install` took 21 s, with the 1,988 left 14 s.
 *
 * @example
 * ```ts
 * [unusedAtRunTime("index.d.ts"), unusedAtRunTime("index.js"), unusedAtRunTime("LICENSE.md")]; // [true, false, false]
 * ```
 */
export function unusedAtRunTime(name: string): boolean {
  if (/^(licen[cs]e|copying|notice)/i.test(name)) return false;
  return /\.(map|ts|mts|cts|md|markdown|ya?ml)$/i.test(name);
}

/** Removes every file below `dir` that {@linkcode unusedAtRunTime} names. */
async function removeUnused(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const child = path.join(dir, entry.name);
    if (entry.isDirectory) await removeUnused(child);
    else if (entry.isFile && unusedAtRunTime(entry.name)) await Deno.remove(child);
  }
}

/** Every symlink below `dir`, relative to it. */
async function symlinks(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(path.join(dir, rel))) {
    const child = path.join(rel, entry.name);
    if (entry.isSymlink) found.push(child);
    else if (entry.isDirectory) found.push(...await symlinks(dir, child));
  }
  return found;
}

/**
 * Adds each package of `packages` that is not in the npm cache `registry`
 * yet (as `NAME/VERSION/`) from its npm tarball, after checking the tarball
 * against the lock's integrity hash; returns the `name@version`s added.
 */
export async function addPlatformPackages(registry: string, packages: LockedPackage[]): Promise<string[]> {
  const added: string[] = [];
  for (const pkg of packages) {
    const dir = path.join(registry, pkg.name, pkg.version);
    if (await Deno.stat(dir).then(() => true, () => false)) continue;
    const scratch = await Deno.makeTempDir({ prefix: "workcell-pack-" });
    try {
      const [packed] = JSON.parse(
        await npm(["pack", "--json", "--pack-destination", scratch, `${pkg.name}@${pkg.version}`], { cwd: scratch }),
      );
      const tarball = path.join(scratch, packed.filename);
      const [algorithm] = pkg.integrity.split("-");
      const digest = createHash(algorithm).update(await Deno.readFile(tarball)).digest("base64");
      const integrity = `${algorithm}-${digest}`;
      if (integrity !== pkg.integrity) {
        throw new Error(`${pkg.name}@${pkg.version}: tarball ${integrity} is not deno.lock's ${pkg.integrity}`);
      }
      await Deno.mkdir(dir, { recursive: true });
      await run("tar", ["-xzf", tarball, "-C", dir, "--strip-components=1", "--no-same-owner"], scratch);
      added.push(`${pkg.name}@${pkg.version}`);
    } finally {
      await Deno.remove(scratch, { recursive: true });
    }
  }
  return added;
}

/**
 * Fills `appDir/deno_npm/npm/` with every npm package of `appDir/deno.lock`,
 * for every target the package serves, using the Deno that runs this (the
 * package's pinned one) with a DENO_DIR of its own, of which only the npm
 * cache is kept; fails if the cache holds a symlink, which npm would not
 * carry. `appDir/deno.json` must already be {@linkcode packagedDenoConfig}'s.
 */
export async function installDependencies(appDir: string): Promise<void> {
  const denoDir = await Deno.makeTempDir({ prefix: "workcell-pack-deno-dir-" });
  const cache = path.join(appDir, NPM_CACHE_DIR);
  try {
    const config = path.join(appDir, "deno.json");
    await run(Deno.execPath(), ["install", "--frozen", "--config", config], appDir, { DENO_DIR: denoDir });
    await Deno.mkdir(cache, { recursive: true });
    await Deno.rename(path.join(denoDir, "npm"), path.join(cache, "npm"));
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
  const lock = JSON.parse(await Deno.readTextFile(path.join(appDir, "deno.lock")));
  await addPlatformPackages(path.join(cache, REGISTRY_DIR), platformPackages(lockedPackages(lock), TARGETS));
  await removeUnused(cache);
  const links = await symlinks(cache);
  if (links.length > 0) throw new Error(`the npm cache holds symlinks npm would drop: ${links.join(", ")}`);
}
