/** What each permission mode enforces and what a session grant may lift, as data the policy, tools and docs read. */
import { type Gate, GATES } from "./rules.ts";

/** Permission modes, from most to least restrictive. */
export const MODES = ["safe", "trusted", "dangerous"] as const;
export type Mode = typeof MODES[number];

/** Permissions an agent may ask the user for through request_permissions. */
export const PERMISSION_NAMES = ["network", "shell", "outside_read", "destructive", "git_write"] as const;
export type Permission = typeof PERMISSION_NAMES[number];

/**
 * The command gates each permission lifts. Landlock's write confinement is never lifted by a grant;
 * `network` also lifts the sandbox's network denial, `git_write` the read-only view of the git dirs.
 */
export const PERMISSION_LIFTS: Record<Permission, readonly Gate[]> = {
  network: ["network"],
  shell: ["shell_syntax"],
  outside_read: ["outside_path"],
  destructive: ["destructive"],
  git_write: [],
};

/** The gates one mode keeps in force. */
export interface ModePolicy {
  gates: readonly Gate[];
  landlock: boolean;
  network: boolean;
  /** Whether commands see the workspace's git dirs read-only (a mount namespace, where the kernel has one). */
  gitDirsReadOnly: boolean;
  /** Permissions a session may be granted in this mode (the mode's ceiling). */
  grantable: readonly Permission[];
  summary: string;
}

/** The policy table, one row per mode. */
export const MODE_POLICIES: Record<Mode, ModePolicy> = {
  safe: {
    gates: GATES,
    landlock: true,
    network: false,
    gitDirsReadOnly: true,
    grantable: ["network", "shell", "outside_read", "git_write"],
    summary: "safe: commands run as plain argv without a shell; network, shell syntax, destructive commands, " +
      "outside paths and secret/loader env are refused; children may write only in the workspace " +
      "(its git dirs read-only) and a private temp dir, may read everything but the credential stores, and have no network.",
  },
  trusted: {
    gates: ["destructive", "secret_env"],
    landlock: true,
    network: true,
    gitDirsReadOnly: false,
    grantable: ["destructive"],
    summary:
      "trusted: commands run through /bin/sh with local network; destructive commands and secret/loader env are refused; " +
      "children may write only in the workspace and a private temp dir.",
  },
  dangerous: {
    gates: [],
    landlock: false,
    network: true,
    gitDirsReadOnly: false,
    grantable: [],
    summary:
      "DANGEROUS: no command gates and no sandbox: commands can read, write and connect anywhere the server's user can. " +
      "Use only inside an isolated container or VM. Direct path tools stay confined to the workspace.",
  },
};

/** Whether a permission is already allowed by the mode itself (nothing to grant). */
export function allowedByMode(mode: Mode, permission: Permission): boolean {
  const gates = MODE_POLICIES[mode].gates;
  return PERMISSION_LIFTS[permission].every((gate) => !gates.includes(gate)) &&
    (permission !== "network" || MODE_POLICIES[mode].network) &&
    (permission !== "git_write" || !MODE_POLICIES[mode].gitDirsReadOnly);
}

/**
 * The gates in force for a session: the mode's, minus what its grants (within the ceiling) lift.
 * @example
 * ```ts
 * gatesInForce("safe", new Set(["network"])); // every safe gate except "network"
 * ```
 */
export function gatesInForce(mode: Mode, grants: ReadonlySet<string>): Set<Gate> {
  const policy = MODE_POLICIES[mode];
  const gates = new Set(policy.gates);
  for (const permission of policy.grantable) {
    if (grants.has(permission)) { for (const gate of PERMISSION_LIFTS[permission]) gates.delete(gate); }
  }
  return gates;
}

/**
 * How a session's commands run: as the gate's argv while the shell_syntax gate is in force, else via `/bin/sh -c`.
 * @example
 * ```ts
 * commandExecution("safe", new Set(["shell"])); // "shell"
 * ```
 */
export function commandExecution(mode: Mode, grants: ReadonlySet<string>): "argv" | "shell" {
  return gatesInForce(mode, grants).has("shell_syntax") ? "argv" : "shell";
}

/** Whether commands of a session see the git dirs read-only: the mode says so and no git_write grant lifted it. */
export function gitDirsReadOnly(mode: Mode, grants: ReadonlySet<string>): boolean {
  return MODE_POLICIES[mode].gitDirsReadOnly && !grants.has("git_write");
}

/** How to get a writable git dir, when a command's stderr says writing one failed (git does not say why); else null. */
export function readOnlyGitHint(mode: Mode, grants: ReadonlySet<string>, stderr: string): string | null {
  if (!gitDirsReadOnly(mode, grants) || !/Read-only file system/.test(stderr)) return null;
  return "In safe mode the workspace's git dirs are read-only to commands (so nothing can be planted for your " +
    "own git to run later); git reads work, commits and other writes do not. Ask the user for the git_write " +
    "permission (request_permissions), or restart with --mode trusted.";
}

/** Whether children of a session may use TCP: the mode allows it, or a network grant lifted it. */
export function networkAllowed(mode: Mode, grants: ReadonlySet<string>): boolean {
  const policy = MODE_POLICIES[mode];
  return policy.network || (policy.grantable.includes("network") && grants.has("network"));
}
