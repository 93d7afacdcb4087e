/**
 * git: its global options (`-c` keys that run programs, `--config-env`,
 * `--exec-path`, the paths of `-C` / `--git-dir` / `--work-tree`) and the
 * subcommands that reach the network, discard work, rewrite history or
 * set a key that runs programs.
 *
 * @example
 * ```ts
 * import { describedPaths, Places } from "../gate_paths.ts";
 *
 * const places = new Places("/work", "/work", describedPaths({ workspace: "/work", tmpdir: "/tmp/w" }));
 * GIT.check({ program: "git", name: "git", args: ["reset", "--hard"], places });
 * // [{ kind: "paths", words: [] }, { kind: "refusal", rule: "destructive.git_discard", … }, …]
 * ```
 */
import { type Call, type Finding, pathWords, refusal } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import { named, type ProgramRules } from "./program.ts";

/** Subcommands that reach the network. */
const NETWORK_SUBCOMMANDS = new Set([
  "clone",
  "fetch",
  "pull",
  "push",
  "ls-remote",
  "send-email",
  "fetch-pack",
  "send-pack",
  "http-fetch",
  "http-push",
  "daemon",
  "instaweb",
  "svn",
  "p4",
  "request-pull",
]);

/** `git -c` keys that are harmless. */
const SAFE_CONFIG = /^(color|user|advice|log|format|init|column|pretty|i18n|blame|status|grep)\.[A-Za-z0-9.-]+$/i;

function configKey(key: string, token: string): Finding[] {
  return SAFE_CONFIG.test(key)
    ? []
    : [refusal("inline_script.git_config", token, `git config key ${key} can run programs`)];
}

/** The global options before the subcommand: config overrides, and the words that are paths. */
function globalOptions(args: readonly string[]): { findings: Finding[]; next: number } {
  const findings: Finding[] = [];
  const own: string[] = [];
  let i = 0;
  for (; i < args.length && args[i].startsWith("-"); i++) {
    const arg = args[i];
    if (arg === "-c" || (arg.startsWith("-c") && arg.length > 2)) {
      const pair = arg === "-c" ? args[++i] ?? "" : arg.slice(2);
      findings.push(...configKey(pair.split("=", 1)[0], `git -c ${pair}`));
    } else if (arg === "--config-env" || arg.startsWith("--config-env=") || arg.startsWith("--exec-path")) {
      findings.push(refusal("inline_script.git_config", arg, `git ${arg} can run programs`));
    } else if (["-C", "--git-dir", "--work-tree", "--namespace"].includes(arg)) {
      own.push(args[++i] ?? "");
    } else own.push(arg);
  }
  findings.push(pathWords(own));
  return { findings, next: i };
}

/** The refusals of one subcommand with the words after it. */
function subcommand(sub: string, rest: readonly string[]): Finding[] {
  const findings: Finding[] = [];
  const has = (...flags: string[]) => rest.some((arg) => flags.includes(arg));
  const cluster = (letter: string) => rest.some((arg) => new RegExp(`^-[A-Za-z]*${letter}`).test(arg));
  const network = NETWORK_SUBCOMMANDS.has(sub) ||
    (sub === "remote" && ["update", "show", "prune", "set-head"].includes(rest[0] ?? "")) ||
    (sub === "submodule" && has("update", "sync", "foreach")) ||
    (sub === "lfs" && ["fetch", "pull", "push", "clone"].includes(rest[0] ?? "")) ||
    (sub === "archive" && rest.some((arg) => arg.startsWith("--remote")));
  if (network) findings.push(refusal("network.subcommand", `git ${sub}`, `git ${sub} reaches the network`));
  const discard = (sub === "reset" && has("--hard", "--merge", "--keep")) ||
    (sub === "clean" && !has("--dry-run") && !cluster("n")) ||
    (sub === "checkout" &&
      (has(".", "-f", "--force", "--ours", "--theirs") || (has("--") && rest.indexOf("--") < rest.length - 1))) ||
    (sub === "restore" && !(has("--staged", "-S") && !has("--worktree", "-W"))) ||
    (sub === "stash" && ["drop", "clear"].includes(rest[0] ?? "")) ||
    (sub === "switch" && has("-f", "--force", "--discard-changes"));
  if (discard) {
    findings.push(
      refusal("destructive.git_discard", `git ${sub}`, `git ${sub} ${rest.join(" ")} discards work`.trim()),
    );
  }
  const history = (sub === "branch" && (cluster("D") || (has("--delete", "-d") && has("--force", "-f")))) ||
    (sub === "push" &&
      (has("--force", "-f", "--force-with-lease", "--mirror", "--delete") ||
        rest.some((arg) => arg.startsWith("+") || arg.startsWith("--force")))) ||
    (sub === "reflog" && ["expire", "delete"].includes(rest[0] ?? "")) ||
    (sub === "update-ref" && has("-d")) ||
    sub === "filter-branch" || sub === "filter-repo";
  if (history) {
    const message = `git ${sub} ${rest.join(" ")} rewrites or deletes history`.trim();
    findings.push(refusal("destructive.git_history", `git ${sub}`, message));
  }
  if (sub === "config" && !has("--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin")) {
    const operands = rest.filter((arg) => !arg.startsWith("-"));
    if (operands.length >= 2 || has("--add", "--replace-all")) {
      findings.push(...configKey(operands[0] ?? "", `git config ${operands[0]}`));
    }
  }
  return findings;
}

/**
 * git's rules.
 *
 * @example
 * ```ts
 * GIT.covers("git"); // true
 * ```
 */
export const GIT: ProgramRules = {
  covers: named(["git"]),
  check({ args }: Call): Finding[] {
    const { findings, next } = globalOptions(args);
    const rest = args.slice(next + 1);
    return [...findings, ...subcommand(args[next] ?? "", rest), pathWords(rest)];
  },
  examples: {
    refused: [
      ["git -c core.editor=x commit", "inline_script.git_config"],
      ["git lfs pull", "network.subcommand"],
      ["git clean -f", "destructive.git_discard"],
      ["git switch --discard-changes main", "destructive.git_discard"],
      ["git filter-repo --path x", "destructive.git_history"],
      ["git branch --delete --force x", "destructive.git_history"],
      ["git config --add alias.x y", "inline_script.git_config"],
    ],
    allowed: [
      "git -c log.showSignature=false log",
      "git clean --dry-run",
      "git restore -S x",
      "git config user.name x",
    ],
  },
};

/**
 * The corpus rows of git (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["git clone ../repo copy", "network.subcommand", null],
  ["git fetch origin", "network.subcommand", null],
  ["git pull", "network.subcommand", null],
  ["git push origin main", "network.subcommand", null],
  ["git ls-remote origin", "network.subcommand", null],
  ["git remote update", "network.subcommand", null],
  ["git submodule update --init", "network.subcommand", null],
  ["git -C src fetch", "network.subcommand", null],
  ["git -c core.pager='sh -c id' log", "inline_script.git_config", null],
  ["git -c core.sshCommand=x status", "inline_script.git_config", null],
  ["git -c alias.x='!id' x", "inline_script.git_config", null],
  ["git -c diff.external=./x diff", "inline_script.git_config", null],
  ["git -c core.fsmonitor=./x status", "inline_script.git_config", null],
  ["git --config-env=core.pager=X log", "inline_script.git_config", null],
  ["git --exec-path=./x status", "inline_script.git_config", null],
  ["git config core.pager 'sh -c id'", "inline_script.git_config", null],
  ["git config alias.st '!id'", "inline_script.git_config", null],
  ["git reset --hard", "destructive.git_discard", "destructive.git_discard"],
  ["git reset --hard HEAD~3", "destructive.git_discard", "destructive.git_discard"],
  ["git clean -fdx", "destructive.git_discard", "destructive.git_discard"],
  ["git checkout -- .", "destructive.git_discard", "destructive.git_discard"],
  ["git checkout .", "destructive.git_discard", "destructive.git_discard"],
  ["git checkout -f main", "destructive.git_discard", "destructive.git_discard"],
  ["git restore src/a.ts", "destructive.git_discard", "destructive.git_discard"],
  ["git stash drop", "destructive.git_discard", "destructive.git_discard"],
  ["git stash clear", "destructive.git_discard", "destructive.git_discard"],
  ["git branch -D feature", "destructive.git_history", "destructive.git_history"],
  ["git reflog expire --expire=now --all", "destructive.git_history", "destructive.git_history"],
  ["git update-ref -d refs/heads/main", "destructive.git_history", "destructive.git_history"],
  ["git filter-branch --tree-filter x", "destructive.git_history", "destructive.git_history"],
  ["git push --force origin main", "network.subcommand", "destructive.git_history"],
  ["git -C /etc status", "outside_path.argument", null],
  ["git --git-dir=/root/.git log", "outside_path.argument", null],
  ["git remote add origin ../elsewhere.git", "outside_path.argument", null],
  ["git status", null, null],
  ["git status --porcelain", null, null],
  ["git log --oneline -5", null, null],
  ["git diff HEAD", null, null],
  ["git diff -- src/a.ts", null, null],
  ["git show HEAD:src/a.ts", null, null],
  ["git add src/a.ts", null, null],
  ["git commit -m 'fix: a; b && c'", null, null],
  ["git checkout -b feature", null, null],
  ["git switch main", null, null],
  ["git branch -d merged", null, null],
  ["git restore --staged src/a.ts", null, null],
  ["git clean -n", null, null],
  ["git -c color.ui=always log", null, null],
  ["git -c user.name=x commit -m x", null, null],
  ["git config --get user.name", null, null],
  ["git stash", null, null],
];
