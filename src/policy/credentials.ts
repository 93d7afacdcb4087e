/**
 * The credential stores, and Landlock read rules for everything else. Landlock only grants, a grant covering all
 * beneath it, so nothing is granted on `~` or `/`: each entry beside the path down to a store gets its own rule, the
 * ancestors none (a listing names what the stores hold). The walk's I/O is injected ({@linkcode WalkIo}) for tests.
 */
import * as path from "node:path";
import { ACCESS_FS, FILE_ACCESS, type LandlockRule } from "../os/landlock.ts";
import { statPath } from "../os/fs_stat.ts";

/** Credential files and directories, relative to a home directory. */
export const CREDENTIAL_STORES: readonly string[] =
  ".ssh .aws .gnupg .config/gcloud .azure .kube .docker/config.json .netrc .git-credentials .npmrc .pypirc .config/gh"
    .split(" ");

/** Read rights for a directory and for anything else. */
const READ_DIR_RIGHTS = ACCESS_FS.READ_FILE | ACCESS_FS.READ_DIR;
const READ_FILE_RIGHTS = ACCESS_FS.READ_FILE & FILE_ACCESS;

/** The credential `stores` (Linux's by default) of each home directory (absolute). */
export function credentialPaths(homes: readonly string[], stores: readonly string[] = CREDENTIAL_STORES): string[] {
  const absolute = homes.filter((home) => path.isAbsolute(home));
  return [...new Set(absolute.flatMap((home) => stores.map((store) => path.join(home, store))))];
}

/** One directory entry as the walk needs it; `isDirectory` of a symlink says what it names. */
export type Entry = Pick<Deno.DirEntry, "name" | "isDirectory" | "isSymlink">;

/** The file-system questions the walk asks. */
export interface WalkIo {
  /** The entries of a directory; throws when it cannot be listed (it then gets no rules). */
  list(dir: string): Entry[];
  /** The real path of an existing path; throws when it does not exist. */
  realPath(p: string): string;
}

/**
 * Every proper ancestor of `p` ("/" included).
 * @example
 * ```ts
 * ancestors("/root/.ssh"); // ["/root", "/"]
 * ```
 */
export function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(p);; dir = path.dirname(dir)) {
    out.push(dir);
    if (dir === path.dirname(dir)) return out;
  }
}

/**
 * Read rules that grant every file and directory except `denied` (absolute; a denied symlink is denied where it
 * points too) and except the listing of their ancestors.
 * @example
 * ```ts
 * readRulesExcept(["/root/.ssh"], REAL_WALK_IO); // [{ path: "/bin", … }, …, { path: "/root/.bashrc", … }, …]
 * ```
 */
export function readRulesExcept(denied: readonly string[], io: WalkIo): LandlockRule[] {
  const blocked = new Set<string>();
  for (const store of denied) {
    blocked.add(store);
    try {
      blocked.add(io.realPath(store));
    } catch {
      // missing: nothing to resolve
    }
  }
  const walked = new Set([...blocked].flatMap(ancestors));
  const rules: LandlockRule[] = [];
  for (const dir of [...walked].sort()) {
    let entries: Entry[];
    try {
      entries = io.list(dir);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const child = path.join(dir, entry.name);
      if (blocked.has(child) || walked.has(child)) continue;
      // A rule takes a symlink's target: one naming a store, or a directory above one, would grant it.
      if (entry.isSymlink && !grantable(child, blocked, walked, io)) continue;
      rules.push({ path: child, access: entry.isDirectory ? READ_DIR_RIGHTS : READ_FILE_RIGHTS });
    }
  }
  return rules;
}

/** Whether a symlink's target is neither a blocked path, nor inside one, nor above one. */
function grantable(link: string, blocked: Set<string>, walked: Set<string>, io: WalkIo): boolean {
  let target: string;
  try {
    target = io.realPath(link);
  } catch {
    return false; // dangling: nothing to grant
  }
  return !walked.has(target) && ![...blocked].some((store) => target === store || target.startsWith(`${store}/`));
}

/** The real file system for {@linkcode readRulesExcept}. */
export const REAL_WALK_IO: WalkIo = {
  list: (dir) =>
    [...Deno.readDirSync(dir)].map((entry) => {
      const isDirectory = entry.isSymlink ? statPath(path.join(dir, entry.name))?.kind === "dir" : entry.isDirectory;
      return { name: entry.name, isDirectory, isSymlink: entry.isSymlink };
    }),
  realPath: (p) => Deno.realPathSync(p),
};

/** The home directories whose credential stores are denied: $HOME and the account's own (they may differ). */
export function homeDirectories(env: Record<string, string>, passwdHome: string | null): string[] {
  return [...new Set([env.HOME, passwdHome].filter((home): home is string => !!home && path.isAbsolute(home)))];
}
