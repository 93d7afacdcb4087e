/** Committed generated files must read the same anywhere: generators rewrite local paths, tests/docs_test.ts checks. */
import * as os from "node:os";
import * as path from "node:path";

/** A directory of this machine and what a portable text says in its place. */
export interface PathRoot {
  /** Absolute, without a trailing slash. */
  dir: string;
  /** Replaces `dir/`: "" makes the path relative to `dir`. */
  as: string;
}

/** Characters that continue a path, so a root preceded or followed by one is part of a longer name. */
const PATH_CHAR = String.raw`[\w.@+~$-]`;

function realOrSelf(dir: string): string {
  try {
    return Deno.realPathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * The roots to rewrite against: the checkout (made relative), `$TMPDIR/…` and `~/…`, each also as its real path.
 * @example
 * ```ts
 * machineRoots("/repo", { get: () => undefined }); // [{ dir: "/repo", as: "" }, { dir: "/tmp", as: "$TMPDIR/" }, …]
 * ```
 */
export function machineRoots(
  checkout: string,
  env: { get(name: string): string | undefined } = Deno.env,
): PathRoot[] {
  const candidates: PathRoot[] = [
    { dir: checkout, as: "" },
    { dir: env.get("TMPDIR") || os.tmpdir(), as: "$TMPDIR/" },
    { dir: env.get("HOME") ?? "", as: "~/" },
  ];
  const roots: PathRoot[] = [];
  for (const root of candidates) {
    for (const dir of new Set([root.dir, realOrSelf(root.dir)])) {
      const clean = dir.replace(/\/+$/, "");
      // "/" or "" would claim every absolute path.
      if (path.isAbsolute(clean) && clean !== "" && !roots.some((known) => known.dir === clean)) {
        roots.push({ dir: clean, as: root.as });
      }
    }
  }
  // Longest first, so a checkout inside the home directory becomes relative, not `~/…`.
  return roots.sort((a, b) => b.dir.length - a.dir.length);
}

/**
 * Rewrites every path under one of `roots` with its replacement, at a path boundary (`/tmpfoo`, `/var/tmp` stay).
 * @example
 * ```ts
 * portablePaths("cd /tmp/ws-1/src", [{ dir: "/tmp/ws-1", as: "" }]); // "cd src"
 * ```
 */
export function portablePaths(text: string, roots: readonly PathRoot[]): string {
  let result = text;
  for (const root of roots) {
    // The root itself (no `/` after it) becomes ".", "$TMPDIR" or "~".
    const bare = root.as === "" ? "." : root.as.replace(/\/$/, "");
    const pattern = new RegExp(`(?<!${PATH_CHAR}|/)${RegExp.escape(root.dir)}(?:/|(?!${PATH_CHAR}))`, "g");
    result = result.replace(pattern, (match) => (match.endsWith("/") ? root.as : bare));
  }
  return result;
}

/** An absolute path with at least two components, not preceded by a path character. */
const ABSOLUTE_PATH = new RegExp(`(?<!${PATH_CHAR}|/)/${PATH_CHAR}+(?:/${PATH_CHAR}+)+`, "g");

/**
 * The absolute paths in `text` under one of the roots, or naming the checkout from another clone's location: a path
 * that continues with one of the {@linkcode checkoutEntries} (`/other/clone/bench/.data/x`).
 * @example
 * ```ts
 * machinePaths("see /repo/src/a.ts", { roots: [{ dir: "/repo", as: "" }], checkoutEntries: new Set() });
 * ```
 */
export function machinePaths(
  text: string,
  check: { roots: readonly PathRoot[]; checkoutEntries: ReadonlySet<string> },
): string[] {
  const found: string[] = [];
  for (const [candidate] of text.matchAll(ABSOLUTE_PATH)) {
    const underRoot = check.roots.some((root) => candidate === root.dir || candidate.startsWith(`${root.dir}/`));
    const segments = candidate.slice(1).split("/");
    const otherClone = segments.some((segment, i) =>
      i >= 1 && i + 1 < segments.length && check.checkoutEntries.has(`${segment}/${segments[i + 1]}`)
    );
    if (underRoot || otherClone) found.push(candidate);
  }
  return found;
}

/** `top/next` names: entries below each top directory, and .gitignore ones like `bench/.data` a fresh clone lacks. */
export async function checkoutEntries(checkout: string): Promise<Set<string>> {
  const entries = new Set<string>();
  for await (const top of Deno.readDir(checkout)) {
    if (!top.isDirectory || top.name === ".git" || top.name === "node_modules") continue;
    for await (const next of Deno.readDir(path.join(checkout, top.name))) entries.add(`${top.name}/${next.name}`);
  }
  const ignored = await Deno.readTextFile(path.join(checkout, ".gitignore")).catch(() => "");
  for (const line of ignored.split("\n")) {
    const entry = line.trim().replace(/^\/|\/$/g, "");
    if (/^[^/#!*]+\/[^/*]+$/.test(entry)) entries.add(entry);
  }
  return entries;
}
