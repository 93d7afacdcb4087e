/**
 * What every child may touch on macOS: the Seatbelt profile of a command, git or rg, decided from the same request as
 * the Linux plan (child_sandbox_plan.ts) and enforced by `sandbox-exec` (src/os/seatbelt.ts writes it). Commands write
 * the workspace (safe: git dirs read-only), temp and own tty; safe ones read all but the credential stores and have no
 * network but unix sockets beneath the writable trees. git and rg read what they need, run only themselves, write
 * nothing. Every child reads the system runtime, may stat any path, and may signal and inspect only its own sandbox's
 * processes. Paths go through `canonical`: Seatbelt matches the vnode's real path (`/private/tmp` for `/tmp`).
 */
import * as path from "node:path";
import type { SeatbeltProfile } from "../os/seatbelt.ts";
import { type ChildRequest, describeSandbox, type SandboxDescription } from "./child_sandbox_plan.ts";
import { CREDENTIAL_STORES } from "./credentials.ts";
import { networkAllowed } from "./modes.ts";

/** What a profile is planned with, besides the request. */
export interface SeatbeltInputs {
  /** The path Seatbelt matches for `p` (os/seatbelt.ts `canonicalPath` with the real file system). */
  canonical: (p: string) => string;
  /** The credential stores of the user's homes (absolute), unreadable to safe-mode commands. */
  credentialStores: readonly string[];
}

/** Credential stores, relative to a home directory: Linux's list, the keychains and the browsers' cookie jars. */
export const DARWIN_CREDENTIAL_STORES: readonly string[] = [
  ...CREDENTIAL_STORES,
  "Library/Keychains",
  "Library/Cookies",
];

/** What git reads besides the workspace: programs, libraries, Xcode or the CLT, Homebrew on arm64, system config. */
export const DARWIN_SYSTEM_READABLE: readonly string[] =
  "/usr /bin /sbin /System /Library /Applications/Xcode.app /opt/homebrew /private/etc /private/var/db".split(" ");

/**
 * The profile of `child`, or null for no sandbox (dangerous mode).
 * @example
 * ```ts
 * const inputs: SeatbeltInputs = { canonical: (p) => p, credentialStores: [] };
 * seatbeltProfile({ kind: "ripgrep", root: "/r", executables: ["/opt/rg"], ignoreFiles: [] }, inputs)?.executes;
 * ```
 */
export function seatbeltProfile(child: ChildRequest, inputs: SeatbeltInputs): SeatbeltProfile | null {
  const all = (paths: readonly string[]) => [...new Set(paths.map(inputs.canonical))];
  const nothing = { unreadable: [], writes: [], terminal: null, network: false };
  if (child.kind === "command") {
    if (child.mode === "dangerous") return null;
    const safe = child.mode === "safe";
    const gitDirs = all(child.gitDirs.map((bind) => bind.path));
    return {
      reads: "all",
      // Both spellings: a store that is a symlink is denied where it points too.
      unreadable: safe ? [...new Set([...inputs.credentialStores, ...all(inputs.credentialStores)])] : [],
      writes: [
        { path: inputs.canonical(child.root), readOnly: gitDirs },
        ...(child.tmpdir ? [{ path: inputs.canonical(child.tmpdir), readOnly: [] }] : []),
      ],
      executes: "any",
      terminal: { slave: child.ttySlave ?? null },
      network: networkAllowed(child.mode, child.grants),
    };
  }
  if (child.kind === "git") {
    const prefix = path.dirname(path.dirname(child.git.execPath));
    const files = [child.git.binary, path.join(prefix, "bin", "git")];
    // /usr/bin/git is Apple's shim: it starts the developer directory's git through xcrun.
    if (child.git.binary === "/usr/bin/git") files.push("/usr/bin/xcrun");
    return {
      ...nothing,
      reads: all([child.root, ...child.readable, ...DARWIN_SYSTEM_READABLE, ...child.config]),
      executes: { files: all(files), dirs: all([child.git.execPath]) },
    };
  }
  return {
    ...nothing,
    reads: all([child.root, ...child.ignoreFiles, ...child.executables]),
    executes: { files: all(child.executables), dirs: [] },
  };
}

/**
 * What `profile` (null: no sandbox) has Seatbelt enforce, as check_exec_environment reports; one layer: "seatbelt".
 * @example
 * ```ts
 * describeSeatbelt(null).enforced; // false
 * ```
 */
export function describeSeatbelt(profile: SeatbeltProfile | null): SandboxDescription {
  // No sandbox is described the same on every system.
  if (profile === null) return describeSandbox(null);
  return {
    enforced: true,
    layers: ["seatbelt"],
    writes: profile.writes.map((write) => write.path),
    reads: profile.reads !== "all"
      ? profile.reads
      : profile.unreadable.length > 0
      ? "all but credential stores"
      : "anywhere",
    executes: profile.executes === "any" ? "anything" : [...profile.executes.files, ...profile.executes.dirs],
    network: profile.network ? "allowed" : "denied",
    signals_scoped: true,
    read_only: profile.writes.flatMap((write) => write.readOnly),
    capabilities_dropped: false,
  };
}
