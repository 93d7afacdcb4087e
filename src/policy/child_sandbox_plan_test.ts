import { assert, assertEquals } from "../../testing/assert.ts";
import { ACCESS_FS } from "../os/landlock.ts";
import { type ChildFacts, childSandbox, type CommandChild, describeSandbox } from "./child_sandbox_plan.ts";

const FACTS: ChildFacts = {
  abi: 7,
  namespaces: { available: true },
  seccomp: { available: true },
  uid: 1000,
  gid: 1000,
  lastCapability: 40,
};
const COMMAND: CommandChild = {
  kind: "command",
  mode: "safe",
  grants: new Set(),
  root: "/tmp",
  tmpdir: null,
  gitDirs: [{ path: "/tmp/.git", flags: 0 }],
  readRules: [{ path: "/usr", access: ACCESS_FS.READ_FILE | ACCESS_FS.READ_DIR }],
};

Deno.test("childSandbox: safe commands get every layer; the user namespace only when not root", () => {
  const plan = childSandbox(COMMAND, FACTS)!;
  assertEquals(plan.mounts, { user: { uid: 1000, gid: 1000 }, readOnly: COMMAND.gitDirs });
  assertEquals(childSandbox(COMMAND, { ...FACTS, uid: 0 })!.mounts!.user, null);
  assert(plan.seccomp !== null && plan.dropCapabilities);
  assertEquals(describeSandbox(plan), {
    enforced: true,
    layers: ["landlock", "seccomp", "mount namespace", "capabilities"],
    writes: ["/tmp"],
    reads: "all but credential stores",
    executes: "anything",
    network: "denied",
    signals_scoped: true,
    read_only: ["/tmp/.git"],
    capabilities_dropped: true,
  });
});

Deno.test("childSandbox: what a mode, a grant or a missing layer changes", () => {
  const trusted = describeSandbox(childSandbox({ ...COMMAND, mode: "trusted", gitDirs: [] }, FACTS));
  assertEquals([trusted.reads, trusted.network, trusted.read_only, trusted.layers], [
    "anywhere",
    "allowed",
    [],
    ["landlock", "capabilities"],
  ]);
  assertEquals(childSandbox({ ...COMMAND, mode: "dangerous" }, FACTS), null);
  assertEquals(describeSandbox(childSandbox({ ...COMMAND, grants: new Set(["network"]) }, FACTS)).network, "allowed");
  const noSeccomp = { ...FACTS, seccomp: { available: false as const, reason: "test" } };
  assertEquals(
    describeSandbox(childSandbox(COMMAND, noSeccomp)).network,
    "TCP denied, other protocols allowed (no seccomp filter)",
  );
  const noNamespaces = { ...FACTS, namespaces: { available: false as const, reason: "test" } };
  assertEquals(childSandbox(COMMAND, noNamespaces)!.mounts, null);
  assertEquals(describeSandbox(childSandbox(COMMAND, { ...FACTS, abi: null })).writes, "anywhere");
});

Deno.test("childSandbox: git and rg read only what they are given, execute only themselves, write nothing", () => {
  const git = describeSandbox(childSandbox({
    kind: "git",
    root: "/tmp",
    readable: [],
    git: { binary: "/usr/bin/git", execPath: "/usr/lib/git-core", loaders: [] },
    config: [],
  }, FACTS));
  assertEquals([git.writes, git.network, git.read_only], [[], "denied", []]);
  assert(Array.isArray(git.reads) && git.reads[0] === "/tmp" && git.reads.includes("/usr"), JSON.stringify(git.reads));
  assert(Array.isArray(git.executes) && git.executes.includes("/usr/bin/git"), JSON.stringify(git.executes));
  const rg = describeSandbox(childSandbox({ kind: "ripgrep", root: "/tmp", executables: [], ignoreFiles: [] }, FACTS));
  assertEquals([rg.reads, rg.executes, rg.writes], [["/tmp"], [], []]);
});
