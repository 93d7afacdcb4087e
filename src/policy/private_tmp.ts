/**
 * The private temp directory children get as TMPDIR (writable under
 * Landlock next to the workspace). The server's Deno write permission stays
 * the workspace only, so the directory is made with libc `mkdtemp` through
 * FFI (atomic, mode 0700, unpredictable name; the server already holds
 * --allow-ffi and --allow-run) and removed at shutdown by `rm -rf` run
 * directly (children may have filled it with anything).
 *
 * @example
 * const tmp = createPrivateTmp();
 * // … children use tmp.path as TMPDIR …
 * await tmp.remove();
 */
import * as path from "node:path";

/** Name prefix of the directory, under the system temp dir. */
export const PRIVATE_TMP_PREFIX = "workcell-tmp-";

/** A created temp dir and how to remove it. */
export interface PrivateTmp {
  /** Real path of the directory. */
  path: string;
  remove(): Promise<void>;
}

/** The parent temp dir: $TMPDIR when absolute, else /tmp. */
function systemTmp(): string {
  const fromEnv = Deno.env.get("TMPDIR");
  return fromEnv && path.isAbsolute(fromEnv) ? fromEnv : "/tmp";
}

/** Creates the directory with mkdtemp(3). */
export function createPrivateTmp(parent = systemTmp()): PrivateTmp {
  const lib = Deno.dlopen("libc.so.6", { mkdtemp: { parameters: ["buffer"], result: "pointer" } });
  let created: string;
  try {
    const template = new TextEncoder().encode(`${path.join(parent, PRIVATE_TMP_PREFIX)}XXXXXX\0`);
    if (lib.symbols.mkdtemp(template) === null) throw new Error(`mkdtemp in ${parent} failed`);
    created = new TextDecoder().decode(template.subarray(0, template.length - 1));
  } finally {
    lib.close();
  }
  const real = Deno.realPathSync(created);
  return {
    path: real,
    remove: async () => {
      await new Deno.Command("rm", {
        args: ["-rf", "--one-file-system", "--", real],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      })
        .output().catch(() => {});
    },
  };
}
