import { assert, assertEquals } from "../../testing/assert.ts";
import { type CommandChild, describeSandbox, type GitImage } from "./child_sandbox_plan.ts";
import { CREDENTIAL_STORES } from "./credentials.ts";
import {
  DARWIN_CREDENTIAL_STORES,
  DARWIN_SYSTEM_READABLE,
  describeSeatbelt,
  type SeatbeltInputs,
  seatbeltProfile,
} from "./seatbelt_policy.ts";

/** macOS's one symlink that matters here: /tmp is /private/tmp; ~/.ssh is a link elsewhere for this user. */
const INPUTS: SeatbeltInputs = {
  canonical: (p) => p.startsWith("/tmp/") ? `/private${p}` : p === "/Users/u/.ssh" ? "/Volumes/keys/ssh" : p,
  credentialStores: ["/Users/u/.ssh", "/Users/u/Library/Keychains"],
};
const COMMAND: CommandChild = {
  kind: "command",
  mode: "safe",
  grants: new Set(),
  root: "/Users/u/repo",
  tmpdir: "/tmp/workcell-abc",
  ttySlave: "/dev/ttys003",
  gitDirs: [{ path: "/Users/u/repo/.git", flags: 0 }, { path: "/Users/u/repo/vendor/x/.git", flags: 0 }],
  readRules: [],
};
const GIT: GitImage = {
  binary: "/opt/homebrew/Cellar/git/2.47.0/bin/git",
  execPath: "/opt/homebrew/Cellar/git/2.47.0/libexec/git-core",
  loaders: [],
};

Deno.test("seatbeltProfile: a safe command writes the workspace (git dirs read-only) and its temp dir, no network, no stores", () => {
  const profile = seatbeltProfile(COMMAND, INPUTS)!;
  assertEquals(profile.writes, [
    { path: "/Users/u/repo", readOnly: ["/Users/u/repo/.git", "/Users/u/repo/vendor/x/.git"] },
    { path: "/private/tmp/workcell-abc", readOnly: [] },
  ]);
  assertEquals(profile.reads, "all");
  assertEquals(
    profile.unreadable,
    ["/Users/u/.ssh", "/Users/u/Library/Keychains", "/Volumes/keys/ssh"],
    "each store under both spellings: the link and where it points",
  );
  assertEquals(profile.network, false);
  assertEquals(profile.executes, "any");
  assertEquals(profile.terminal, { slave: "/dev/ttys003" });
  assertEquals(seatbeltProfile({ ...COMMAND, ttySlave: undefined }, INPUTS)!.terminal, { slave: null });
  assertEquals(seatbeltProfile({ ...COMMAND, tmpdir: null }, INPUTS)!.writes.length, 1, "no temp dir, no second tree");
});

Deno.test("seatbeltProfile: the network grant opens the network of a safe command and nothing else", () => {
  const granted = seatbeltProfile({ ...COMMAND, grants: new Set(["network"]) }, INPUTS)!;
  assertEquals(granted.network, true);
  assertEquals(granted.unreadable, seatbeltProfile(COMMAND, INPUTS)!.unreadable);
  assertEquals(granted.writes, seatbeltProfile(COMMAND, INPUTS)!.writes);
});

Deno.test("seatbeltProfile: a trusted command reads everything and has the network; dangerous has no sandbox", () => {
  const trusted = seatbeltProfile({ ...COMMAND, mode: "trusted", gitDirs: [] }, INPUTS)!;
  assertEquals(trusted.unreadable, []);
  assertEquals(trusted.network, true);
  assertEquals(trusted.writes.map((write) => write.path), ["/Users/u/repo", "/private/tmp/workcell-abc"]);
  assertEquals(seatbeltProfile({ ...COMMAND, mode: "dangerous" }, INPUTS), null);
});

Deno.test("seatbeltProfile: git reads the workspace, the system and its config, writes nothing, runs only git", () => {
  const profile = seatbeltProfile({
    kind: "git",
    root: "/Users/u/repo",
    readable: ["/Users/u/elsewhere/.git"],
    git: GIT,
    config: ["/Users/u/.gitconfig"],
  }, INPUTS)!;
  assertEquals(profile.writes, []);
  assertEquals(profile.network, false);
  assertEquals(profile.terminal, null);
  assert(Array.isArray(profile.reads));
  for (const p of ["/Users/u/repo", "/Users/u/elsewhere/.git", "/Users/u/.gitconfig", ...DARWIN_SYSTEM_READABLE]) {
    assert(profile.reads.includes(p), `git reads ${p}`);
  }
  assert(!profile.reads.includes("/Users/u"), "not the home");
  assertEquals(profile.executes, {
    files: ["/opt/homebrew/Cellar/git/2.47.0/bin/git"],
    dirs: ["/opt/homebrew/Cellar/git/2.47.0/libexec/git-core"],
  });
});

Deno.test("seatbeltProfile: Apple's /usr/bin/git shim may start xcrun and the developer directory's git", () => {
  const apple: GitImage = {
    binary: "/usr/bin/git",
    execPath: "/Library/Developer/CommandLineTools/usr/libexec/git-core",
    loaders: [],
  };
  const profile = seatbeltProfile(
    { kind: "git", root: "/Users/u/repo", readable: [], git: apple, config: [] },
    INPUTS,
  )!;
  assertEquals(profile.executes, {
    files: ["/usr/bin/git", "/Library/Developer/CommandLineTools/usr/bin/git", "/usr/bin/xcrun"],
    dirs: ["/Library/Developer/CommandLineTools/usr/libexec/git-core"],
  });
});

Deno.test("seatbeltProfile: rg reads the workspace, the ancestor ignore files and itself, runs only itself", () => {
  const profile = seatbeltProfile({
    kind: "ripgrep",
    root: "/Users/u/repo",
    executables: ["/opt/rg/rg"],
    ignoreFiles: ["/Users/u/.gitignore"],
  }, INPUTS)!;
  assertEquals(profile.reads, ["/Users/u/repo", "/Users/u/.gitignore", "/opt/rg/rg"]);
  assertEquals(profile.executes, { files: ["/opt/rg/rg"], dirs: [] });
  assertEquals(profile.writes, []);
  assertEquals(profile.network, false);
});

Deno.test("DARWIN_CREDENTIAL_STORES: Linux's stores and the keychains", () => {
  for (const store of CREDENTIAL_STORES) assert(DARWIN_CREDENTIAL_STORES.includes(store), store);
  for (const store of ["Library/Keychains", ".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".docker/config.json"]) {
    assert(DARWIN_CREDENTIAL_STORES.includes(store), store);
  }
});

Deno.test("describeSeatbelt: what check_exec_environment says of each profile", () => {
  assertEquals(describeSeatbelt(seatbeltProfile(COMMAND, INPUTS)), {
    enforced: true,
    layers: ["seatbelt"],
    writes: ["/Users/u/repo", "/private/tmp/workcell-abc"],
    reads: "all but credential stores",
    executes: "anything",
    network: "denied",
    signals_scoped: true,
    read_only: ["/Users/u/repo/.git", "/Users/u/repo/vendor/x/.git"],
    capabilities_dropped: false,
  });
  const trusted = describeSeatbelt(seatbeltProfile({ ...COMMAND, mode: "trusted", gitDirs: [] }, INPUTS));
  assertEquals([trusted.reads, trusted.network], ["anywhere", "allowed"]);
  const rg = describeSeatbelt(
    seatbeltProfile({ kind: "ripgrep", root: "/r", executables: ["/opt/rg"], ignoreFiles: [] }, INPUTS),
  );
  assertEquals([rg.reads, rg.writes, rg.executes], [["/r", "/opt/rg"], [], ["/opt/rg"]]);
  assertEquals(describeSeatbelt(null), describeSandbox(null));
  assertEquals([describeSeatbelt(null).enforced, describeSeatbelt(null).writes], [false, "anywhere"]);
});
