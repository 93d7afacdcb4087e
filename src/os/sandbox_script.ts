/**
 * A sandbox plan (src/policy/child_sandbox_plan.ts) as launcher system calls, in the order the kernel allows: mounts
 * before Landlock, which forbids mounting; capabilities all dropped, so a root server's commands are powerless root.
 */
import { at, deref, LauncherScript } from "./launcher_script.ts";
import { type LandlockRuleset, rulesetAttrBytes } from "./landlock.ts";
import { SOCK_FILTER_BYTES } from "./seccomp.ts";
import { type SyscallTable, syscallTable } from "./syscalls.ts";
import { AT, O } from "./libc.ts";

/** A read-only bind: the path, and the mount flags of the mount it lies on (kept, as a user namespace must). */
export interface ReadOnlyBind {
  path: string;
  flags: number;
}

/** Everything the launcher sets up before the command runs. */
export interface SandboxPlan {
  /** A private mount namespace; `user`: enter a user namespace mapping these ids to themselves first. */
  mounts: { user: { uid: number; gid: number } | null; readOnly: ReadOnlyBind[] } | null;
  landlock: LandlockRuleset | null;
  /** A seccomp filter (`struct sock_filter[]` bytes, see seccomp.ts). */
  seccomp: Uint8Array<ArrayBuffer> | null;
  dropCapabilities: boolean;
  /** The highest capability number of this kernel (the bounding set is dropped up to it). */
  lastCapability: number;
}

/** The program the script ends with. */
export interface ExecTarget {
  path: string;
  argv: readonly string[];
  env: Readonly<Record<string, string>>;
}

const CLONE = { NEWNS: 0x00020000, NEWUSER: 0x10000000 } as const;
const MS = { RDONLY: 0x1, REMOUNT: 0x20, BIND: 0x1000, REC: 0x4000, SLAVE: 0x80000 } as const;
const PR = { SET_NO_NEW_PRIVS: 38, CAPBSET_DROP: 24, CAP_AMBIENT: 47, CAP_AMBIENT_CLEAR_ALL: 4 } as const;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const SECCOMP_SET_MODE_FILTER = 1;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;

function writeFile(script: LauncherScript, sys: SyscallTable, path: string, text: string): void {
  const fd = script.slot();
  const bytes = new TextEncoder().encode(text);
  script.step(`open ${path}`, sys.openat, [AT.FDCWD, script.string(path), O.WRONLY | O.CLOEXEC, 0], { store: fd });
  script.step(`write ${path}`, sys.write, [deref(fd), script.data(bytes), bytes.length]);
  script.step(`close ${path}`, sys.close, [deref(fd)]);
}

function mountSteps(script: LauncherScript, sys: SyscallTable, mounts: NonNullable<SandboxPlan["mounts"]>): void {
  if (mounts.user) {
    script.step("unshare a user and mount namespace", sys.unshare, [CLONE.NEWUSER | CLONE.NEWNS]);
    writeFile(script, sys, "/proc/self/setgroups", "deny");
    writeFile(script, sys, "/proc/self/uid_map", `${mounts.user.uid} ${mounts.user.uid} 1`);
    writeFile(script, sys, "/proc/self/gid_map", `${mounts.user.gid} ${mounts.user.gid} 1`);
  } else {
    script.step("unshare a mount namespace", sys.unshare, [CLONE.NEWNS]);
  }
  // Nothing mounted here may propagate back to the server's namespace.
  script.step("make mounts private", sys.mount, [0, script.string("/"), 0, MS.REC | MS.SLAVE, 0]);
  for (const bind of mounts.readOnly) {
    const target = script.string(bind.path);
    script.step(`bind ${bind.path}`, sys.mount, [target, target, 0, MS.BIND | MS.REC, 0]);
    script.step(`remount ${bind.path} read-only`, sys.mount, [
      0,
      target,
      0,
      MS.REMOUNT | MS.BIND | MS.RDONLY | bind.flags,
      0,
    ]);
  }
}

function landlockSteps(script: LauncherScript, sys: SyscallTable, ruleset: LandlockRuleset): void {
  const attr = new DataView(new ArrayBuffer(24));
  attr.setBigUint64(0, ruleset.handledFs, true);
  attr.setBigUint64(8, ruleset.handledNet, true);
  attr.setBigUint64(16, ruleset.scoped, true);
  const size = rulesetAttrBytes(ruleset.abi);
  const rulesetFd = script.slot();
  script.step("landlock_create_ruleset", sys.landlock_create_ruleset, [
    script.data(new Uint8Array(attr.buffer, 0, size)),
    size,
    0,
  ], { store: rulesetFd });
  for (const rule of ruleset.rules) {
    // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } packs 12 bytes; 16 hold the fd store.
    const beneath = new DataView(new ArrayBuffer(16));
    beneath.setBigUint64(0, rule.access, true);
    const struct = script.data(new Uint8Array(beneath.buffer));
    // A path that is gone since the plan was made grants nothing: skip its rule.
    script.step(`open ${rule.path}`, sys.openat, [AT.FDCWD, script.string(rule.path), O.PATH | O.CLOEXEC, 0], {
      store: at(struct, 8),
      onFailure: "skip-next",
    });
    script.step(`landlock rule for ${rule.path}`, sys.landlock_add_rule, [
      deref(rulesetFd),
      LANDLOCK_RULE_PATH_BENEATH,
      struct,
      0,
    ]);
  }
  script.step("landlock_restrict_self", sys.landlock_restrict_self, [deref(rulesetFd), 0]);
  script.step("close the ruleset", sys.close, [deref(rulesetFd)]);
}

function capabilitySteps(script: LauncherScript, sys: SyscallTable, lastCapability: number): void {
  // Fails on kernels without ambient capabilities (< 4.3), which then have none to clear.
  script.step("clear ambient capabilities", sys.prctl, [PR.CAP_AMBIENT, PR.CAP_AMBIENT_CLEAR_ALL, 0, 0, 0], {
    onFailure: "continue",
  });
  for (let cap = 0; cap <= lastCapability; cap++) {
    // Refused (EPERM) without CAP_SETPCAP: an unprivileged server's children have nothing to drop.
    script.step(`drop capability ${cap} from the bounding set`, sys.prctl, [PR.CAPBSET_DROP, cap, 0, 0, 0], {
      onFailure: "continue",
    });
  }
  const header = new DataView(new ArrayBuffer(8));
  header.setUint32(0, LINUX_CAPABILITY_VERSION_3, true);
  script.step("drop every capability", sys.capset, [
    script.data(new Uint8Array(header.buffer)),
    script.data(new Uint8Array(24)),
  ]);
}

/** The script that sets up `plan`, then executes `target` (null: a probe that sets up the plan and exits 0). */
export function sandboxScript(plan: SandboxPlan, target: ExecTarget | null, sys = syscallTable()): LauncherScript {
  const script = new LauncherScript();
  if (plan.mounts) mountSteps(script, sys, plan.mounts);
  script.step("set no_new_privs", sys.prctl, [PR.SET_NO_NEW_PRIVS, 1, 0, 0, 0]);
  if (plan.landlock) landlockSteps(script, sys, plan.landlock);
  if (plan.seccomp) {
    const fprog = new DataView(new ArrayBuffer(16));
    fprog.setUint16(0, plan.seccomp.length / SOCK_FILTER_BYTES, true);
    const filter = script.data(plan.seccomp);
    script.step("install the seccomp filter", sys.seccomp, [
      SECCOMP_SET_MODE_FILTER,
      0,
      script.data(new Uint8Array(fprog.buffer), [{ offset: 8, target: filter }]),
    ]);
  }
  if (plan.dropCapabilities) capabilitySteps(script, sys, plan.lastCapability);
  if (target) script.exec(sys.execve, target.path, target.argv, target.env);
  return script;
}
