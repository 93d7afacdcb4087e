/**
 * The npm package and the staged MCP bundle, built once per state of what
 * goes into them. `deno task package`, the package test and the npm bench
 * all take them from `.tools/package/DIGEST/` (gitignored), where DIGEST is
 * the SHA-256 of the Deno version and of every input file's path and bytes
 * (of deno.json, what the package gets of it): the app's files
 * ({@linkcode appFiles}), README.md, LICENSE, packaging/ and the npm helper.
 * Staging, `npm pack` and the bundle's `npm install` cost half a minute to a
 * minute on 2 cores (npm is slow on many small files), and CI ran them
 * twice, once for `deno task package` and once in the test.
 *
 * A build happens in a scratch directory beside the others and is renamed
 * into place when whole, so a concurrent run (a second copy of the suite)
 * finds a whole build or none; the builds of other digests are removed.
 *
 * @example
 * const { tarball, bundle } = await builtPackage();
 * // ".tools/package/3f…/workcell-0.1.0.tgz", ".tools/package/3f…/mcpb"
 */
import * as path from "node:path";
import { createHash } from "node:crypto";
import { appFiles, filesBelow, packNpmPackage } from "./npm_package.ts";
import { stageBundle } from "./mcpb.ts";
import { packagedDenoConfig } from "./npm_dependencies.ts";

const ROOT = path.resolve(new URL("..", import.meta.url).pathname);
const BUILDS = path.join(ROOT, ".tools", "package");

/** Where a build's files are. */
export interface BuiltPackage {
  /** The npm package, as `npm pack` wrote it. */
  tarball: string;
  /** The bundle's staged tree (manifest.json, icon.png, server/), as `mcpb pack` takes it. */
  bundle: string;
}

/** Every file the build reads from the repository, relative to it, sorted. */
export async function packageInputs(): Promise<string[]> {
  const files = [...await appFiles(), "README.md", "LICENSE", "tasks/npm_tools.ts", ...await filesBelow("packaging")];
  return files.sort();
}

/**
 * The SHA-256 of the Deno version and of each input's path and bytes; for deno.json, of the config the package
 * gets ({@linkcode packagedDenoConfig}: no tasks), so a task edited in the repository does not make a new build.
 */
export async function inputDigest(files: string[]): Promise<string> {
  const hash = createHash("sha256").update(`deno ${Deno.version.deno}\0`);
  for (const file of files) {
    let bytes = await Deno.readFile(path.join(ROOT, file));
    if (file === "deno.json") {
      const packaged = packagedDenoConfig(JSON.parse(new TextDecoder().decode(bytes)));
      bytes = new TextEncoder().encode(JSON.stringify(packaged));
    }
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest("hex");
}

/** The file that names the tarball, written last: a directory with it is a whole build. */
const TARBALL_NAME_FILE = "tarball";

async function readBuild(dir: string): Promise<BuiltPackage | null> {
  const name = await Deno.readTextFile(path.join(dir, TARBALL_NAME_FILE)).catch(() => null);
  return name === null ? null : { tarball: path.join(dir, name), bundle: path.join(dir, "mcpb") };
}

/** The build for the tree as it is now: the one already made, or a new one. */
export async function builtPackage(): Promise<BuiltPackage> {
  const digest = await inputDigest(await packageInputs());
  const dir = path.join(BUILDS, digest);
  const existing = await readBuild(dir);
  if (existing) return existing;
  await Deno.mkdir(BUILDS, { recursive: true });
  const scratch = await Deno.makeTempDir({ dir: BUILDS, prefix: ".building-" });
  await Deno.chmod(scratch, 0o755); // a build directory like any other, not mkdtemp's 0700
  try {
    const tarball = await packNpmPackage(scratch);
    await stageBundle(path.join(scratch, "mcpb"), tarball);
    await Deno.remove(path.join(scratch, "npm"), { recursive: true });
    await Deno.writeTextFile(path.join(scratch, TARBALL_NAME_FILE), path.basename(tarball));
    await Deno.rename(scratch, dir).catch(async (error) => {
      // Another run renamed its build of the same inputs first: theirs is as good.
      if (await readBuild(dir) === null) throw error;
      await Deno.remove(scratch, { recursive: true });
    });
  } catch (error) {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    throw error;
  }
  await removeOtherBuilds(digest);
  return (await readBuild(dir))!;
}

/** A scratch directory this old is left by a run that was killed: no build takes an hour. */
const ABANDONED_MS = 60 * 60 * 1000;

/** Removes the builds of other digests (each holds a Deno binary, about 100 MB) and abandoned scratch directories. */
async function removeOtherBuilds(digest: string): Promise<void> {
  for await (const entry of Deno.readDir(BUILDS)) {
    const entryPath = path.join(BUILDS, entry.name);
    if (entry.name === digest) continue;
    if (entry.name.startsWith(".building-")) {
      const modified = (await Deno.stat(entryPath).catch(() => null))?.mtime?.getTime() ?? Date.now();
      if (Date.now() - modified < ABANDONED_MS) continue;
    }
    await Deno.remove(entryPath, { recursive: true }).catch(() => {});
  }
}
