/**
 * git's rules: discarded work and history loss, which the kernel cannot tell from an edit, and in safe mode the
 * subcommands that reach the network (an earlier word for the sandbox's refusal). `-C`, `--git-dir`, `--work-tree` are
 * path words; `-c` overrides run what they name under the same sandbox, so they are left to it.
 */
import { type Call, type CorpusEntry, type Finding, named, pathWords, type ProgramRules, refusal } from "./program.ts";

/** Subcommands that reach the network. */
const NETWORK_SUBCOMMANDS = new Set(
  "clone fetch pull push ls-remote send-email fetch-pack send-pack http-fetch http-push daemon instaweb svn p4 request-pull"
    .split(" "),
);

/** The global options before the subcommand: the words that are paths, and where the subcommand is. */
function globalOptions(args: readonly string[]): { own: string[]; next: number } {
  const own: string[] = [];
  let i = 0;
  for (; i < args.length && args[i].startsWith("-"); i++) {
    if (["-C", "--git-dir", "--work-tree", "--namespace"].includes(args[i])) own.push(args[++i] ?? "");
    else if (args[i] !== "-c") own.push(args[i]);
    else i++;
  }
  return { own, next: i };
}

/** The refusals of one subcommand with the words after it. */
function subcommand(sub: string, rest: readonly string[]): Finding[] {
  const has = (...flags: string[]) => rest.some((arg) => flags.includes(arg));
  const cluster = (letter: string) => rest.some((arg) => new RegExp(`^-[A-Za-z]*${letter}`).test(arg));
  const network = NETWORK_SUBCOMMANDS.has(sub) ||
    (sub === "remote" && ["update", "show", "prune", "set-head"].includes(rest[0] ?? "")) ||
    (sub === "submodule" && has("update", "sync", "foreach")) ||
    (sub === "lfs" && ["fetch", "pull", "push", "clone"].includes(rest[0] ?? "")) ||
    (sub === "archive" && rest.some((arg) => arg.startsWith("--remote")));
  const discard = (sub === "reset" && has("--hard", "--merge", "--keep")) ||
    (sub === "clean" && !has("--dry-run") && !cluster("n")) ||
    (sub === "checkout" &&
      (has(".", "-f", "--force", "--ours", "--theirs") || (has("--") && rest.indexOf("--") < rest.length - 1))) ||
    (sub === "restore" && !(has("--staged", "-S") && !has("--worktree", "-W"))) ||
    (sub === "stash" && ["drop", "clear"].includes(rest[0] ?? "")) ||
    (sub === "switch" && has("-f", "--force", "--discard-changes"));
  const history = (sub === "branch" && (cluster("D") || (has("--delete", "-d") && has("--force", "-f")))) ||
    (sub === "push" &&
      (has("--force", "-f", "--force-with-lease", "--mirror", "--delete") ||
        rest.some((arg) => arg.startsWith("+") || arg.startsWith("--force")))) ||
    (sub === "reflog" && ["expire", "delete"].includes(rest[0] ?? "")) ||
    (sub === "update-ref" && has("-d")) ||
    sub === "filter-branch" || sub === "filter-repo";
  const said = `git ${sub} ${rest.join(" ")}`;
  return [
    ...(network ? [refusal("network.subcommand", `git ${sub}`, `git ${sub} reaches the network`)] : []),
    ...(discard ? [refusal("destructive.git_discard", `git ${sub}`, `${said} discards work`.trim())] : []),
    ...(history
      ? [refusal("destructive.git_history", `git ${sub}`, `${said} rewrites or deletes history`.trim())]
      : []),
  ];
}

/** git's rules. */
export const GIT: ProgramRules = {
  covers: named(["git"]),
  check({ args }: Call): Finding[] {
    const { own, next } = globalOptions(args);
    const rest = args.slice(next + 1);
    return [pathWords(own), ...subcommand(args[next] ?? "", rest), pathWords(rest)];
  },
  examples: {
    refused: [
      ["git lfs pull", "network.subcommand"],
      ["git clean -f", "destructive.git_discard"],
      ["git switch --discard-changes main", "destructive.git_discard"],
      ["git filter-repo --path x", "destructive.git_history"],
      ["git branch --delete --force x", "destructive.git_history"],
    ],
    allowed: ["git -c core.pager=cat log", "git clean --dry-run", "git restore -S x", "git config user.name x"],
  },
  corpus: [
    ["git clone ../repo copy", "network.subcommand", null],
    ["git fetch origin", "network.subcommand", null],
    ["git pull", "network.subcommand", null],
    ["git push origin main", "network.subcommand", null],
    ["git ls-remote origin", "network.subcommand", null],
    ["git remote update", "network.subcommand", null],
    ["git submodule update --init", "network.subcommand", null],
    ["git -C src fetch", "network.subcommand", null],
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
    ["git stash", null, null],
    ["git -c core.pager=cat log", null, null],
    ["git config alias.st status", null, null],
  ] satisfies CorpusEntry[],
};
