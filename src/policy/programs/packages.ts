/**
 * Package managers: the subcommands that reach the network (install, add,
 * update, publish, …; the first word that is not an option, `-S…` for
 * pacman). Running scripts and builds (`npm test`, `cargo build`) is left
 * to the other rules.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * PACKAGE_MANAGERS.check({ program: "npm", name: "npm", args: ["ci"], places });
 * // [{ kind: "refusal", rule: "network.subcommand", token: "npm ci", … }]
 * ```
 */
import { type Call, type Finding, refusal } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import type { ProgramRules } from "./program.ts";

/** Subcommands that reach the network, per program. */
const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  npm: new Set([
    "install",
    "i",
    "in",
    "ins",
    "add",
    "ci",
    "update",
    "up",
    "upgrade",
    "publish",
    "exec",
    "x",
    "create",
    "init",
    "dlx",
    "audit",
    "outdated",
    "view",
    "info",
    "show",
    "search",
    "login",
    "adduser",
    "whoami",
    "ping",
    "pack",
    "unpublish",
    "deprecate",
    "dist-tag",
    "owner",
    "access",
    "token",
    "install-test",
    "it",
  ]),
  pnpm: new Set([
    "install",
    "i",
    "add",
    "update",
    "up",
    "upgrade",
    "dlx",
    "exec",
    "create",
    "publish",
    "outdated",
    "audit",
    "fetch",
    "import",
    "login",
    "view",
    "info",
  ]),
  yarn: new Set([
    "",
    "install",
    "add",
    "upgrade",
    "up",
    "dlx",
    "create",
    "publish",
    "outdated",
    "audit",
    "info",
    "npm",
    "login",
  ]),
  bun: new Set(["install", "i", "add", "update", "upgrade", "x", "create", "publish", "outdated", "pm"]),
  pip: new Set(["install", "download", "wheel", "search", "index"]),
  uv: new Set(["pip", "add", "sync", "lock", "tool", "run", "python", "self", "publish"]),
  poetry: new Set(["install", "add", "update", "lock", "publish", "search", "self"]),
  pdm: new Set(["install", "add", "update", "lock", "publish", "sync"]),
  conda: new Set(["install", "create", "update", "upgrade", "search"]),
  mamba: new Set(["install", "create", "update", "upgrade", "search"]),
  cargo: new Set(["install", "fetch", "update", "publish", "search", "login", "add", "yank", "owner", "vendor"]),
  go: new Set(["get", "install", "download"]),
  gem: new Set(["install", "update", "push", "fetch", "search", "sources"]),
  bundle: new Set(["install", "update", "add", "outdated"]),
  composer: new Set(["install", "require", "update", "create-project", "global"]),
  deno: new Set(["install", "add", "upgrade", "outdated", "jupyter"]),
  apt: new Set(["install", "update", "upgrade", "full-upgrade", "dist-upgrade", "download", "source"]),
  "apt-get": new Set(["install", "update", "upgrade", "dist-upgrade", "download", "source", "build-dep"]),
  dnf: new Set(["install", "update", "upgrade", "download", "makecache"]),
  yum: new Set(["install", "update", "upgrade", "makecache"]),
  apk: new Set(["add", "update", "upgrade", "fetch"]),
  pacman: new Set(["-S", "-Sy", "-Syu", "-Su"]),
  brew: new Set(["install", "update", "upgrade", "fetch", "tap", "reinstall"]),
  snap: new Set(["install", "refresh"]),
  flatpak: new Set(["install", "update"]),
  docker: new Set(["pull", "push", "login"]),
};

/**
 * The package managers' rules.
 *
 * @example
 * ```ts
 * PACKAGE_MANAGERS.covers("npm"); // true
 * ```
 */
export const PACKAGE_MANAGERS: ProgramRules = {
  covers: (name) => Object.hasOwn(NETWORK_SUBCOMMANDS, name),
  check({ program, name, args }: Call): Finding[] {
    const sub = args.find((arg) => !arg.startsWith("-") || (name === "pacman" && /^-S/.test(arg))) ?? "";
    if (!NETWORK_SUBCOMMANDS[name].has(sub) && !(name === "go" && sub === "mod" && args.includes("download"))) {
      return [];
    }
    return [refusal("network.subcommand", `${program} ${sub}`.trim(), `${program} ${sub} reaches the network`)];
  },
  examples: {
    refused: [["pacman -Syu", "network.subcommand"], ["yarn --frozen-lockfile", "network.subcommand"]],
    allowed: ["npm run build", "pacman -Q", "go mod tidy", "constructor"],
  },
};

/**
 * The corpus rows of the package managers (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["npm install", "network.subcommand", null],
  ["npm i left-pad", "network.subcommand", null],
  ["npm ci", "network.subcommand", null],
  ["pnpm add zod", "network.subcommand", null],
  ["yarn", "network.subcommand", null],
  ["yarn add react", "network.subcommand", null],
  ["pip install requests", "network.subcommand", null],
  ["pip3 install -r requirements.txt", "network.subcommand", null],
  ["cargo install ripgrep", "network.subcommand", null],
  ["go get example.com/x", "network.subcommand", null],
  ["go mod download", "network.subcommand", null],
  ["gem install rails", "network.subcommand", null],
  ["deno install npm:cowsay", "network.subcommand", null],
  ["apt-get install -y jq", "network.subcommand", null],
  ["uv pip install x", "network.subcommand", null],
  ["npm test", null, null],
  ["npm run build", null, null],
  ["cargo build --release", null, null],
  ["cargo test", null, null],
  ["go test ./...", null, null],
  ["go build ./cmd/x", null, null],
];
