/**
 * `deno task build [--target TARGET]`: compiles workcell into one file,
 * `dist/workcell` (or `dist/workcell-TARGET[.exe]` for another target), with
 * `deno compile`, the one flag list (permissions and the V8 setting) from src/permissions.ts, and the
 * target's ripgrep embedded.
 *
 * - Permissions: those of `deno task start` (no write grant: the server
 *   writes through libc, src/permissions.ts), except that what is only known
 *   at run time cannot be baked in: net is granted for any address (the
 *   --http address is chosen at run time; stdio mode revokes net at start,
 *   and the server never connects out).
 * - ripgrep: the `@vscode/ripgrep-<os>-<arch>` package's `rg` is staged in
 *   dist/.embed/, checked to be the target's kind of executable (ELF or
 *   Mach-O, its machine) and embedded with `--include`; at run time it is
 *   executed from a memfd on Linux and from a private hash-checked cache
 *   directory on macOS (no memfd there), never written into the workspace
 *   (src/os/executable.ts).
 * - Workers: every `*_worker.ts` under src/ is passed with `--include`, since
 *   `deno compile` does not follow `new Worker(...)`; so is the icon that
 *   serverInfo carries inline (src/metadata.ts), and the server itself,
 *   which main.ts imports by a computed specifier (main.ts SERVER_MODULE),
 *   and imagescript's decoder `.wasm` files, which src/image/codecs.ts reads.
 * - denort: `deno compile` needs Deno's `denort` runtime for the target. It
 *   is taken from DENORT_BIN, or from DENO_DIR's download cache; otherwise the
 *   build stops with one message saying how to supply it.
 *
 * @example
 * DENORT_BIN=/opt/denort deno task build
 */
import * as path from "node:path";
import { serverFlags } from "./src/permissions.ts";
import { EMBEDDED_RIPGREP_DIR, RIPGREP_FILE_NAME } from "./src/search/ripgrep_binary.ts";
import { sha256Hex } from "./src/os/executable.ts";
import { SERVER_INFO_ICON_FILE } from "./src/metadata.ts";
import manifest from "./deno.json" with { type: "json" };
import { SERVER_MODULE } from "./main.ts";
import { codecFiles } from "./src/image/codecs.ts";

/** The kind of executable a target runs: its file format and machine. */
export interface ExecutableKind {
  format: "elf" | "mach-o";
  machine: "x86_64" | "aarch64";
}

/** A `deno compile --target`, the ripgrep platform package for it and the executable that package must hold. */
export interface BuildTarget {
  ripgrepPackage: string;
  executable: ExecutableKind;
}

/**
 * The targets build.ts equips with ripgrep: Linux and macOS on x86_64 and arm64. `@vscode/ripgrep` (1.18.0) ships
 * each system's rg as an optional platform package, `@vscode/ripgrep-<os>-<arch>`, with the binary at `bin/rg`.
 * Windows is refused at start (main.ts), so it has no target.
 */
export const TARGETS: Record<string, BuildTarget> = {
  "x86_64-unknown-linux-gnu": {
    ripgrepPackage: "@vscode/ripgrep-linux-x64",
    executable: { format: "elf", machine: "x86_64" },
  },
  "aarch64-unknown-linux-gnu": {
    ripgrepPackage: "@vscode/ripgrep-linux-arm64",
    executable: { format: "elf", machine: "aarch64" },
  },
  "x86_64-apple-darwin": {
    ripgrepPackage: "@vscode/ripgrep-darwin-x64",
    executable: { format: "mach-o", machine: "x86_64" },
  },
  "aarch64-apple-darwin": {
    ripgrepPackage: "@vscode/ripgrep-darwin-arm64",
    executable: { format: "mach-o", machine: "aarch64" },
  },
};

/** ELF e_machine values (elf.h). */
const ELF_MACHINES: Record<number, ExecutableKind["machine"]> = { 62: "x86_64", 183: "aarch64" };
/** Mach-O cputype values (mach/machine.h: CPU_TYPE_X86_64, CPU_TYPE_ARM64). */
const MACH_O_CPUS: Record<number, ExecutableKind["machine"]> = { 0x01000007: "x86_64", 0x0100000c: "aarch64" };

/**
 * What executable `header` (a file's first bytes; 20 are enough) starts: a little-endian 64-bit ELF or Mach-O
 * of a machine a target runs, or null for anything else (a fat Mach-O too: every target names one machine).
 *
 * @example
 * ```ts
 * executableKind(new Uint8Array([0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 0x01])); // { format: "mach-o", machine: "aarch64" }
 * ```
 */
export function executableKind(header: Uint8Array): ExecutableKind | null {
  if (header.length < 8) return null;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (view.getUint32(0, false) === 0x7f454c46) {
    // ELFCLASS64, ELFDATA2LSB, then e_machine at 18.
    if (header.length < 20 || header[4] !== 2 || header[5] !== 1) return null;
    const machine = ELF_MACHINES[view.getUint16(18, true)];
    return machine ? { format: "elf", machine } : null;
  }
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const machine = MACH_O_CPUS[view.getUint32(4, true)];
    return machine ? { format: "mach-o", machine } : null;
  }
  return null;
}

/**
 * Why the rg staged for `target` (its first bytes: `header`) is not the executable the target runs, or null.
 *
 * @example
 * ```ts
 * ripgrepMismatch("aarch64-apple-darwin", new Uint8Array(20));
 * // "the staged rg for aarch64-apple-darwin is no executable workcell knows, not a Mach-O executable for aarch64"
 * ```
 */
export function ripgrepMismatch(target: string, header: Uint8Array): string | null {
  const want = TARGETS[target].executable;
  const got = executableKind(header);
  if (got?.format === want.format && got.machine === want.machine) return null;
  const kind = (k: ExecutableKind) => `${k.format === "elf" ? "an ELF" : "a Mach-O"} executable for ${k.machine}`;
  return `the staged rg for ${target} is ${got ? kind(got) : "no executable workcell knows"}, not ${kind(want)}`;
}

/** The flags (permissions and the V8 setting) baked into the binary (see the module doc for the two run-time differences). */
export const COMPILED_FLAGS: readonly string[] = serverFlags({ http: "any" });

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
    ...COMPILED_FLAGS,
    "--config",
    path.join(ROOT, "deno.json"),
    "--include",
    path.join(ROOT, EMBEDDED_RIPGREP_DIR, RIPGREP_FILE_NAME),
    ...workerModules().flatMap((worker) => ["--include", worker]),
    ...Object.values(codecFiles()).flatMap((file) => ["--include", file]),
    "--include",
    SERVER_INFO_ICON_FILE.pathname,
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
  const mismatch = ripgrepMismatch(target, (await Deno.readFile(staged)).subarray(0, 20));
  if (mismatch) throw new Error(mismatch);
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
