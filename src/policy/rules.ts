/**
 * The gate's rule table: each rule prevents what the mode's sandbox lets through (`why: "kernel_cannot"`) or refuses
 * earlier, more clearly, what it would refuse anyway (`"earlier"`). docs/permission-modes.md's table comes from it.
 */
/** The command gates, as MODE_POLICIES lists them. */
export const GATES = ["network", "shell_syntax", "destructive", "outside_path", "secret_env"] as const;

/** One command gate. */
export type Gate = typeof GATES[number];

/** One rule of the table; which words match it is said by programs/ and the walker (gate.ts). */
export interface Rule {
  gate: Gate;
  /** What the rule refuses, for docs and messages. */
  refuses: string;
  /** Why it is there: what the kernel cannot refuse, or an earlier word for what it would. */
  why: "kernel_cannot" | "earlier";
  because: string;
  /** How to proceed, shown as the error hint. */
  hint: string;
}

const SHELL_HINT =
  'safe mode runs one plain argv without a shell, so the shell word would reach the program as text: run one command per exec_command call, write a script with apply_patch and run the file, call request_permissions with ["shell"], or restart with --mode trusted.';
const DISCARD_HINT =
  'This discards work irrecoverably, and the sandbox allows it inside the workspace: inspect with git_status/git_diff and revert single files with apply_patch; in trusted mode request_permissions with ["destructive"] can allow it for this session.';
const NETWORK_HINT =
  'Network access is refused in safe mode (the sandbox would refuse it too): call request_permissions with ["network"], or restart the server with --mode trusted.';
const SECRET_HINT =
  "Secret and loader variables are never passed to commands in safe or trusted mode: drop the variable (check_exec_environment lists what the environment carries), or run in --mode dangerous inside an isolated VM.";
const DAEMON = "a system daemon acts on it outside the sandbox, with the daemon's rights";

/** The rule table, each rule under `gate.name`: its gate is the part before the dot. */
const TABLE = {
  "shell_syntax.operator": {
    refuses: "control and redirection operators: ; && || | & ( ) > >> < << newline",
    why: "earlier",
    because: "without a shell the operator would be a plain argument",
    hint: SHELL_HINT,
  },
  "shell_syntax.expansion": {
    refuses: "expansions: $VAR, ${…}, $(…), backticks, $((…)), <(…), globs, braces, ~",
    why: "earlier",
    because: "without a shell nothing would expand it",
    hint: SHELL_HINT,
  },
  "shell_syntax.comment": {
    refuses: "shell comments (#)",
    why: "earlier",
    because: "without a shell the comment would be arguments",
    hint: SHELL_HINT,
  },
  "shell_syntax.heredoc": {
    refuses: "here-documents (<<)",
    why: "earlier",
    because: "without a shell no here-document is fed",
    hint: SHELL_HINT,
  },
  "shell_syntax.builtin": {
    refuses: "shell keywords and builtins that need a shell (if, for, cd, export, source, …)",
    why: "earlier",
    because: "without a shell there is no such program",
    hint: SHELL_HINT,
  },
  "shell_syntax.assignment_only": {
    refuses: "a command made only of VAR=value assignments",
    why: "earlier",
    because: "there is no program to run",
    hint: "Pass variables with the env argument of exec_command, together with the program to run.",
  },
  "shell_syntax.unparsable": {
    refuses: "unterminated quotes, substitutions or parentheses",
    why: "kernel_cannot",
    because: "the gate cannot check what it cannot parse",
    hint: "Close every quote and parenthesis.",
  },
  "network.command": {
    refuses: "network clients: curl, wget, nc, ssh, scp, rsync, telnet, ftp, …",
    why: "earlier",
    because: "safe mode's sandbox refuses TCP (Landlock) and every socket but unix/netlink (seccomp)",
    hint: NETWORK_HINT,
  },
  "network.subcommand": {
    refuses:
      "subcommands that reach the network: git clone/fetch/pull/push, npm/pnpm/yarn/pip/cargo/go install, npx, …",
    why: "earlier",
    because: "safe mode's sandbox refuses TCP (Landlock) and every socket but unix/netlink (seccomp)",
    hint: NETWORK_HINT,
  },
  "destructive.remove_outside": {
    refuses: "rm/rmdir/unlink/shred of the workspace root, of everything in it (`rm -rf *`), of unresolved $… / ~ " +
      "targets, or of paths outside it",
    why: "kernel_cannot",
    because: "Landlock lets a child remove anything inside the workspace, its root's contents included; " +
      "outside it the sandbox would refuse too",
    hint: "Remove only named paths inside the workspace, never its root (outside it the sandbox would refuse too).",
  },
  "destructive.git_discard": {
    refuses: "git reset --hard/--merge/--keep, git clean, git checkout -- …/./-f, git restore, git stash drop/clear",
    why: "kernel_cannot",
    because: "the work tree is writable, so the kernel cannot tell a discard from an edit",
    hint: DISCARD_HINT,
  },
  "destructive.git_history": {
    refuses: "git branch -D, git push --force, git reflog expire/delete, git update-ref -d, git filter-branch",
    why: "kernel_cannot",
    because: "trusted mode's git dirs are writable and its network open",
    hint: DISCARD_HINT,
  },
  "destructive.permissions": {
    refuses: "chmod/chattr/setfacl/setfattr of paths outside the workspace",
    why: "kernel_cannot",
    because: "Landlock does not cover mode, attribute or ACL changes, and a root child owns most files",
    hint: "Change modes of files inside the workspace only.",
  },
  "destructive.system": {
    refuses: "shutdown, reboot, halt, poweroff, systemctl/service state changes, init/telinit",
    why: "kernel_cannot",
    because: DAEMON,
    hint: "System state changes are refused outside dangerous mode.",
  },
  "destructive.kill": {
    refuses: "kill/pkill/killall of processes this command did not start",
    why: "kernel_cannot",
    because: "Landlock scopes signals only from ABI 6, and a child may signal its own user's other processes",
    hint: "Stop commands this server started with kill_command.",
  },
  "destructive.privilege": {
    refuses: "docker/podman/nerdctl/lxc, systemd-run, machinectl",
    why: "kernel_cannot",
    because: DAEMON,
    hint:
      "Containers and transient units run outside the sandbox; use --mode dangerous only inside an isolated container or VM.",
  },
  "destructive.unanalyzable": {
    refuses: "shell code nested too deeply for the gate to check",
    why: "kernel_cannot",
    because: "the gate cannot check what it cannot walk",
    hint: "Flatten the nested sh -c / eval layers.",
  },
  "outside_path.argument": {
    refuses: "arguments (and --opt=value, -Ivalue, redirect targets) naming paths outside the workspace and $TMPDIR",
    why: "kernel_cannot",
    because: "Landlock lets safe-mode children read everything but the credential stores",
    hint:
      'Arguments must name paths inside the workspace (or $TMPDIR): use a workspace-relative path; to read elsewhere call request_permissions with ["outside_read"] or restart with --mode trusted. Writes outside stay impossible (Landlock).',
  },
  "secret_env.env": {
    refuses: "secret-looking or loader variables in the env argument",
    why: "kernel_cannot",
    because: "the kernel does not look at environment variables",
    hint: SECRET_HINT,
  },
  "secret_env.inline": {
    refuses: "secret-looking or loader variables set inline (VAR=x cmd, env VAR=x cmd, export VAR=x)",
    why: "kernel_cannot",
    because: "the kernel does not look at environment variables",
    hint: SECRET_HINT,
  },
} as const satisfies Record<`${Gate}.${string}`, Omit<Rule, "gate">>;

/** The name of one rule, as refusals report it. */
export type RuleId = keyof typeof TABLE;

/** The rule table, each rule with its gate. */
export const RULES = Object.fromEntries(
  Object.entries(TABLE).map(([id, rule]) => [id, { gate: id.split(".")[0] as Gate, ...rule }]),
) as Record<RuleId, Rule>;
