/**
 * The private TMPDIR of children (writable under Landlock). The server's Deno may write only the workspace, so it is
 * made by libc `mkdtemp` through FFI (atomic, 0700, unpredictable) and removed at shutdown by `rm -rf` run directly.
 */
import * as path from "node:path";
import { errno, HOST_OS, libc, strerror } from "../os/libc.ts";

/** rm's flag that keeps it on one file system: GNU's long option, BSD's `-x` on darwin. */
const ONE_FILE_SYSTEM = HOST_OS === "darwin" ? "-x" : "--one-file-system";

/** Name prefix of the directory, under the system temp dir. */
export const PRIVATE_TMP_PREFIX = "workcell-tmp-";

/**
 * Where the directory is tried: $TMPDIR when absolute, /tmp, then /dev/shm (a tmpfs, writable when /tmp is not).
 * @example
 * ```ts
 * tmpParents({ TMPDIR: "/scratch" }); // ["/scratch", "/tmp", "/dev/shm"]
 * ```
 */
export function tmpParents(env: Record<string, string | undefined>): string[] {
  const fromEnv = env.TMPDIR;
  return [...new Set([...(fromEnv && path.isAbsolute(fromEnv) ? [fromEnv] : []), "/tmp", "/dev/shm"])];
}

/**
 * Creates the directory in the first of `parents` that takes it, or null when none would (commands then run without a
 * private TMPDIR), with why each one tried before was refused (`problems`); an unusable one is not fatal.
 * @example
 * ```ts
 * const { tmp, problems } = choosePrivateTmp(["/read-only", "/tmp"]); // tmp under /tmp, one problem
 * ```
 */
export function choosePrivateTmp(
  parents = tmpParents(Deno.env.toObject()),
): { tmp: ReturnType<typeof createPrivateTmp> | null; problems: string[] } {
  const problems: string[] = [];
  for (const parent of parents) {
    try {
      return { tmp: createPrivateTmp(parent), problems };
    } catch (error) {
      problems.push(`${parent}: ${(error as Error).message}`);
    }
  }
  return { tmp: null, problems };
}

/**
 * Creates the directory with mkdtemp(3) in `parent`: its real `path` and how to `remove` it; throws naming errno when
 * it cannot.
 * @example
 * ```ts
 * const tmp = createPrivateTmp("/tmp"); // /tmp/workcell-tmp-XXXXXX, mode 0700
 * ```
 */
export function createPrivateTmp(parent: string): { path: string; remove(): Promise<void> } {
  const template = new TextEncoder().encode(`${path.join(parent, PRIVATE_TMP_PREFIX)}XXXXXX\0`);
  if (libc().mkdtemp(template) === null) {
    const code = errno();
    throw new Error(`mkdtemp failed (errno ${code}: ${strerror(code)})`);
  }
  const created = new TextDecoder().decode(template.subarray(0, template.length - 1));
  const real = Deno.realPathSync(created);
  return {
    path: real,
    remove: async () => {
      await new Deno.Command("rm", {
        args: ["-rf", ONE_FILE_SYSTEM, "--", real],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      })
        .output().catch(() => {});
    },
  };
}
