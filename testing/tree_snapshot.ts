import * as path from "node:path";

/** One entry of a tree snapshot. */
export type Entry =
  | { type: "file"; bytes: Uint8Array; mode: number }
  | { type: "symlink"; target: string }
  | { type: "dir" };

/**
 * A tree as data, relative path → entry (symlinks not followed); empty when `root` does not exist.
 * @example
 * ```ts
 * const before = await snapshot("/tmp/ws");
 * ```
 */
export async function snapshot(root: string): Promise<Map<string, Entry>> {
  const out = new Map<string, Entry>();
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const abs = path.join(dir, entry.name);
      const rel = path.relative(root, abs);
      const info = await Deno.lstat(abs);
      if (info.isSymlink) out.set(rel, { type: "symlink", target: await Deno.readLink(abs) });
      else if (info.isDirectory) {
        out.set(rel, { type: "dir" });
        await walk(abs);
      } else out.set(rel, { type: "file", bytes: await Deno.readFile(abs), mode: (info.mode ?? 0) & 0o7777 });
    }
  };
  if (await Deno.lstat(root).then(() => true, () => false)) await walk(root);
  return out;
}

/**
 * Human-readable differences between two snapshots (empty when equal).
 * @example
 * ```ts
 * treeDifferences(new Map([["a", { type: "dir" }]]), new Map()); // ["unexpected a"]
 * ```
 */
export function treeDifferences(actual: Map<string, Entry>, expected: Map<string, Entry>): string[] {
  const problems: string[] = [];
  const show = (bytes: Uint8Array) => JSON.stringify(new TextDecoder().decode(bytes)).slice(0, 300);
  for (const [rel, want] of expected) {
    const got = actual.get(rel);
    if (!got) problems.push(`missing ${rel}`);
    else if (got.type !== want.type) problems.push(`${rel}: ${got.type} instead of ${want.type}`);
    else if (want.type === "file" && got.type === "file") {
      if (!equalBytes(got.bytes, want.bytes)) {
        problems.push(`${rel}: content ${show(got.bytes)} instead of ${show(want.bytes)}`);
      }
      if (got.mode !== want.mode) {
        problems.push(`${rel}: mode ${got.mode.toString(8)} instead of ${want.mode.toString(8)}`);
      }
    } else if (want.type === "symlink" && got.type === "symlink" && got.target !== want.target) {
      problems.push(`${rel}: symlink to ${got.target} instead of ${want.target}`);
    }
  }
  for (const rel of actual.keys()) if (!expected.has(rel)) problems.push(`unexpected ${rel}`);
  return problems;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
