/**
 * `deno task build [--target TARGET]`: compiles workcell into one file,
 * `dist/workcell` (or `dist/workcell-TARGET[.exe]` for another target), with
 * `deno compile`, the one permission list from src/permissions.ts, and the
 * target's ripgrep embedded.
 *
 * - Permissions: those of `deno task start`, except that what is only known
 *   at run time cannot be baked in: the write grant is `.` (the binary
 *   relaunches itself with the workspace as working directory, so `.` is the
 *   workspace: src/compiled/relaunch.ts) and net is granted for any address
 *   (the --http address is chosen at run time; stdio mode revokes net at
 *   start, and the server never connects out).
 * - ripgrep: the `@vscode/ripgrep-<os>-<arch>` package's `rg` is staged in
 *   dist/.embed/ and embedded with `--include`; at run time it is executed
 *   from a memfd, never written into the workspace (src/os/executable.ts).
 * - Workers: every `*_worker.ts` under src/ is passed with `--include`, since
 *   `deno compile` does not follow `new Worker(...)`; so is the icon that
 *   serverInfo carries inline (src/metadata.ts), and the server itself,
 *   which main.ts imports by a computed specifier (main.ts SERVER_MODULE).
 * - denort: `deno compile` needs Deno's `denort` runtime for the target. It
 *   is taken from DENORT_BIN, or from DENO_DIR's download cache; otherwise the
 *   build stops with one message saying how to supply it.
 *
 * @example
 * DENORT_BIN=/opt/denort deno task build
 */
import * as path from "node:path";
import { permissionFlags } from "./src/permissions.ts";
import { EMBEDDED_RIPGREP_DIR, RIPGREP_FILE_NAME } from "./src/search/ripgrep_binary.ts";
import { sha256Hex } from "./src/os/executable.ts";
import { ICON_FILE } from "./src/metadata.ts";
import manifest from "./deno.json" with { type: "json" };
import { SERVER_MODULE } from "./main.ts";

/** A `deno compile --target` and the ripgrep platform package for it. */
export interface BuildTarget {
  ripgrepPackage: string;
}

/**
 * The targets build.ts knows how to equip with ripgrep: Linux only, since the server pins every file access
 * through Linux libc calls (docs/confinement.md).
 */
export const TARGETS: Record<string, BuildTarget> = {
  "x86_64-unknown-linux-gnu": { ripgrepPackage: "@vscode/ripgrep-linux-x64" },
  "aarch64-unknown-linux-gnu": { ripgrepPackage: "@vscode/ripgrep-linux-arm64" },
};

/** The permission flags baked into the binary (see the module doc for the two run-time differences). */
export const COMPILED_PERMISSIONS: readonly string[] = permissionFlags({ writeRoot: ".", http: "any" });

const ROOT = path.dirname(new URL(import.meta.url).pathname);
const DIST = path.join(ROOT, "dist");

/** The Deno target triple of this machine. */
export function hostTarget(): string {
  return Deno.build.target;
}

/** Where the binary for `target` is written. */
export function outputPath(target: string): string {
  if (target === hostTarget()) return path.join(DIST, "workcell");
  return path.join(DIST, `workcell-${target}`);
}

/**
 * Worker entry points under src/ (files named `*_worker.ts`): `deno compile`
 * does not follow `new Worker(...)`, so each is passed with `--include`.
 */
export function workerModules(dir = path.join(ROOT, "src")): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory) found.push(...workerModules(full));
    else if (entry.isFile && entry.name.endsWith("_worker.ts")) found.push(full);
  }
  return found.sort();
}

/**
 * The full `deno compile` argument list for `target`.
 *
 * @example
 * compileArgs("x86_64-unknown-linux-gnu"); // ["compile", "--no-prompt", "--allow-read", ...]
 */
export function compileArgs(target: string): string[] {
  const spec = TARGETS[target];
  if (!spec) throw new Error(`unknown target ${target}; known: ${Object.keys(TARGETS).join(", ")}`);
  return [
    "compile",
    ...COMPILED_PERMISSIONS,
    "--config",
    path.join(ROOT, "deno.json"),
    "--include",
    path.join(ROOT, EMBEDDED_RIPGREP_DIR, RIPGREP_FILE_NAME),
    ...workerModules().flatMap((worker) => ["--include", worker]),
    "--include",
    ICON_FILE.pathname,
    "--include",
    SERVER_MODULE.pathname,
    "--target",
    target,
    "--output",
    outputPath(target),
    path.join(ROOT, "main.ts"),
  ];
}

/** Why the build cannot find denort, or null when it can. */
export async function denortProblem(
  target: string,
  env: { get(name: string): string | undefined } = Deno.env,
): Promise<string | null> {
  const how = `deno compile needs Deno's denort runtime for ${target} (Deno ${Deno.version.deno}); this build ` +
    `does not download it. Get denort-${target}.zip from the Deno v${Deno.version.deno} release assets, unzip it, ` +
    `and run again with DENORT_BIN=/path/to/denort.`;
  const denort = env.get("DENORT_BIN");
  if (denort === undefined) {
    const cache = path.join(denoDir(env), "dl", "release", `v${Deno.version.deno}`, `denort-${target}.zip`);
    return (await exists(cache)) ? null : `DENORT_BIN is not set and ${cache} is not cached. ${how}`;
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(denort);
  } catch {
    return `DENORT_BIN=${denort} does not exist. ${how}`;
  }
  if (!info.isFile) return `DENORT_BIN=${denort} is not a file. ${how}`;
  const deno = await Deno.stat(Deno.execPath());
  if (info.ino !== null && info.ino === deno.ino && info.dev === deno.dev) {
    return `DENORT_BIN=${denort} is the deno CLI itself, whose compiled output only starts a REPL. ${how}`;
  }
  return null;
}

function denoDir(env: { get(name: string): string | undefined }): string {
  const explicit = env.get("DENO_DIR");
  if (explicit) return explicit;
  const home = env.get("HOME") ?? "/root";
  if (Deno.build.os === "darwin") return path.join(home, "Library", "Caches", "deno");
  if (Deno.build.os === "windows") return path.join(env.get("LOCALAPPDATA") ?? home, "deno");
  return path.join(env.get("XDG_CACHE_HOME") ?? path.join(home, ".cache"), "deno");
}

async function exists(file: string): Promise<boolean> {
  return await Deno.stat(file).then(() => true, () => false);
}

async function run(command: string, args: string[], cwd = ROOT): Promise<void> {
  const out = await new Deno.Command(command, { args, cwd, stdin: "null", stdout: "inherit", stderr: "inherit" })
    .output();
  if (!out.success) throw new Error(`${command} ${args.join(" ")} failed (exit ${out.code})`);
}

/** Copies the target's rg into dist/.embed/ (from node_modules for this machine, else from npm). */
async function stageRipgrep(target: string): Promise<string> {
  const spec = TARGETS[target];
  const dir = path.join(ROOT, EMBEDDED_RIPGREP_DIR);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.mkdir(dir, { recursive: true });
  const staged = path.join(dir, RIPGREP_FILE_NAME);
  if (target === hostTarget()) {
    const { rgPath } = await import("@vscode/ripgrep");
    await Deno.copyFile(rgPath, staged);
  } else {
    const version = manifest.imports["@vscode/ripgrep"].split("@").pop();
    const scratch = await Deno.makeTempDir({ prefix: "workcell-build-" });
    try {
      await run("npm", ["pack", "--silent", `${spec.ripgrepPackage}@${version}`, "--pack-destination", scratch]);
      const tarball = [...Deno.readDirSync(scratch)].find((entry) => entry.name.endsWith(".tgz"));
      if (!tarball) throw new Error(`npm pack ${spec.ripgrepPackage}@${version} produced no tarball`);
      await run("tar", ["-xzf", path.join(scratch, tarball.name), "-C", scratch]);
      await Deno.copyFile(path.join(scratch, "package", "bin", RIPGREP_FILE_NAME), staged);
    } finally {
      await Deno.remove(scratch, { recursive: true });
    }
  }
  await Deno.chmod(staged, 0o755).catch(() => {});
  return staged;
}

async function build(target: string): Promise<void> {
  const problem = await denortProblem(target);
  if (problem) {
    console.error(`build: ${problem}`);
    Deno.exit(1);
  }
  const rg = await stageRipgrep(target);
  console.error(`build: embedding ${path.relative(ROOT, rg)} (sha256 ${await sha256Hex(await Deno.readFile(rg))})`);
  await run(Deno.execPath(), compileArgs(target));
  const output = outputPath(target);
  console.error(`build: wrote ${path.relative(ROOT, output)} (sha256 ${await sha256Hex(await Deno.readFile(output))})`);
  if (target === hostTarget()) await run(output, ["--version"]);
}

if (import.meta.main) {
  const args = [...Deno.args];
  let target = hostTarget();
  const at = args.findIndex((arg) => arg === "--target" || arg.startsWith("--target="));
  if (at >= 0) {
    target = args[at].includes("=") ? args[at].split("=")[1] : args[at + 1];
    args.splice(at, args[at].includes("=") ? 1 : 2);
  }
  if (args.length > 0 || !target || !TARGETS[target]) {
    console.error(`usage: deno task build [--target ${Object.keys(TARGETS).join("|")}]`);
    Deno.exit(2);
  }
  await build(target);
}
