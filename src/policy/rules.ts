/**
 * The command gate's rule table: every refusal names one rule from here,
 * with its gate, what it refuses and how to proceed. Which words match a
 * rule is said by the program rules (programs/) and the walker (gate.ts);
 * docs/permission-modes.md's rule table is generated from this one.
 *
 * @example
 * ```ts
 * RULES["network.command"].gate; // "network"
 * ```
 */
import type { Mode } from "./modes.ts";

/**
 * The command gates, as MODE_POLICIES lists them.
 *
 * @example
 * ```ts
 * GATES.includes("network"); // true
 * ```
 */
export const GATES = ["network", "shell_syntax", "inline_script", "destructive", "outside_path", "secret_env"] as const;

/**
 * One command gate.
 *
 * @example
 * ```ts
 * const gate: Gate = "outside_path";
 * ```
 */
export type Gate = typeof GATES[number];

/**
 * One rule of the table.
 *
 * @example
 * ```ts
 * const rule: Rule = RULES["destructive.in_place_edit"]; // modes: ["safe"]
 * ```
 */
export interface Rule {
  gate: Gate;
  /** What the rule refuses, for docs and messages. */
  refuses: string;
  /** How to proceed, shown as the error hint. */
  hint: string;
  /** Modes in which the rule applies when its gate is in force (all by default). */
  modes?: readonly Mode[];
}

const NETWORK_HINT =
  'Network access is refused in safe mode: call request_permissions with ["network"], or restart the server with --mode trusted.';
const SHELL_HINT =
  'safe mode runs one plain argv without a shell: run one command per exec_command call and pass files as arguments, write a script with apply_patch and run the file, call request_permissions with ["shell"], or restart with --mode trusted.';
const INLINE_HINT =
  'Write the code to a file in the workspace with apply_patch and run the file (e.g. `python3 script.py`), call request_permissions with ["shell"], or restart with --mode trusted.';
const DISCARD_HINT =
  'This discards work irrecoverably: inspect with git_status/git_diff and revert single files with apply_patch; in trusted mode request_permissions with ["destructive"] can allow it for this session.';
const OUTSIDE_HINT =
  'Arguments must name paths inside the workspace (or $TMPDIR): use a workspace-relative path; to read elsewhere call request_permissions with ["outside_read"] or restart with --mode trusted. Writes outside stay impossible (Landlock).';
const SECRET_HINT =
  "Secret and loader variables are never passed to commands in safe or trusted mode: drop the variable (check_exec_environment lists what the environment carries), or run in --mode dangerous inside an isolated VM.";
const PRIVILEGE_HINT =
  "Changing privileges, namespaces or containers is refused outside dangerous mode; use --mode dangerous only inside an isolated container or VM.";

/**
 * The rule table.
 *
 * @example
 * ```ts
 * RULES["secret_env.inline"].gate; // "secret_env"
 * ```
 */
export const RULES = {
  "shell_syntax.operator": {
    gate: "shell_syntax",
    refuses: "control and redirection operators: ; && || | & ( ) > >> < << newline",
    hint: SHELL_HINT,
  },
  "shell_syntax.expansion": {
    gate: "shell_syntax",
    refuses: "expansions: $VAR, ${…}, $(…), backticks, $((…)), <(…), globs, braces, ~",
    hint: SHELL_HINT,
  },
  "shell_syntax.comment": { gate: "shell_syntax", refuses: "shell comments (#)", hint: SHELL_HINT },
  "shell_syntax.heredoc": { gate: "shell_syntax", refuses: "here-documents (<<)", hint: SHELL_HINT },
  "shell_syntax.builtin": {
    gate: "shell_syntax",
    refuses: "shell keywords and builtins that need a shell (if, for, cd, export, source, …)",
    hint: SHELL_HINT,
  },
  "shell_syntax.assignment_only": {
    gate: "shell_syntax",
    refuses: "a command made only of VAR=value assignments",
    hint: "Pass variables with the env argument of exec_command, together with the program to run.",
  },
  "shell_syntax.unparsable": {
    gate: "shell_syntax",
    refuses: "unterminated quotes, substitutions or parentheses (the gate cannot check what it cannot parse)",
    hint: "Close every quote and parenthesis.",
  },
  "inline_script.shell": {
    gate: "inline_script",
    refuses: "shells given code inline or on stdin: sh|bash|zsh|dash|ksh|fish -c …, a shell without a script file",
    hint: INLINE_HINT,
  },
  "inline_script.interpreter": {
    gate: "inline_script",
    refuses:
      "interpreters given code inline: python -c, node -e/-p, deno eval, perl -e, ruby -e, php -r, lua -e, awk programs calling system()/getline/pipes, sed `e`",
    hint: INLINE_HINT,
  },
  "inline_script.eval": { gate: "inline_script", refuses: "eval", hint: INLINE_HINT },
  "inline_script.wrapper": {
    gate: "inline_script",
    refuses: "wrappers that run their argument through a shell: watch, flock -c, script -c, env -S, parallel, su -c",
    hint: INLINE_HINT,
  },
  "inline_script.git_config": {
    gate: "inline_script",
    refuses:
      "git -c / --config-env / git config of keys that run programs (core.*, alias.*, filter.*, diff.*, credential.*, …)",
    hint:
      "Run git without -c overrides (only color.*, user.*, advice.*, log.*, format.*, init.* are accepted), or restart with --mode trusted.",
  },
  "network.command": {
    gate: "network",
    refuses: "network clients: curl, wget, nc, ssh, scp, telnet, ping, dig, …",
    hint: NETWORK_HINT,
  },
  "network.subcommand": {
    gate: "network",
    refuses:
      "subcommands that reach the network: git clone/fetch/pull/push/ls-remote, npm/pnpm/yarn/pip/cargo/go/gem install, python -m pip/http.server, deno install, npx, …",
    hint: NETWORK_HINT,
  },
  "network.url": {
    gate: "network",
    refuses: "arguments that are network URLs (http://, ssh://, git@host:…)",
    hint: NETWORK_HINT,
  },
  "network.remote": { gate: "network", refuses: "rsync to or from a host (host:path, rsync://)", hint: NETWORK_HINT },
  "destructive.remove_outside": {
    gate: "destructive",
    refuses:
      "rm/rmdir/unlink/shred/find -delete of the workspace root, of paths outside it, or of unresolved $… / ~ targets",
    hint: "Remove only named paths inside the workspace, never its root.",
  },
  "destructive.git_discard": {
    gate: "destructive",
    refuses: "git reset --hard/--merge/--keep, git clean, git checkout -- …/./-f, git restore, git stash drop/clear",
    hint: DISCARD_HINT,
  },
  "destructive.git_history": {
    gate: "destructive",
    refuses: "git branch -D, git push --force, git reflog expire/delete, git update-ref -d, git filter-branch",
    hint: DISCARD_HINT,
  },
  "destructive.permissions": {
    gate: "destructive",
    refuses: "chmod/chown/chgrp/chattr/setfacl recursive or outside the workspace (Landlock does not cover them)",
    hint: "Change modes of single files inside the workspace.",
  },
  "destructive.disk": {
    gate: "destructive",
    refuses: "dd, mkfs, fdisk, parted, wipefs, mount, swapoff and other block-device tools",
    hint: "Copy files with cp or head instead of dd; disk tools are refused outside dangerous mode.",
  },
  "destructive.system": {
    gate: "destructive",
    refuses: "shutdown, reboot, halt, poweroff, systemctl state changes, iptables, sysctl -w, crontab",
    hint: "System state changes are refused outside dangerous mode.",
  },
  "destructive.kill": {
    gate: "destructive",
    refuses: "kill/pkill/killall of processes this command did not start",
    hint: "Stop commands this server started with kill_command.",
  },
  "destructive.privilege": {
    gate: "destructive",
    refuses: "sudo, su, doas, pkexec, chroot, unshare, nsenter, docker/podman, systemd-run",
    hint: PRIVILEGE_HINT,
  },
  "destructive.in_place_edit": {
    gate: "destructive",
    refuses: "in-place edits with sed -i, perl -i, ruby -i (safe mode)",
    hint: "Edit files with apply_patch, which is atomic and shows a diff.",
    modes: ["safe"],
  },
  "destructive.unanalyzable": {
    gate: "destructive",
    refuses: "shell code nested too deeply for the gate to check",
    hint: "Flatten the nested sh -c / eval layers.",
  },
  "outside_path.argument": {
    gate: "outside_path",
    refuses: "arguments (and --opt=value, -Ivalue, redirect targets) naming paths outside the workspace and $TMPDIR",
    hint: OUTSIDE_HINT,
  },
  "secret_env.env": {
    gate: "secret_env",
    refuses: "secret-looking or loader variables in the env argument",
    hint: SECRET_HINT,
  },
  "secret_env.inline": {
    gate: "secret_env",
    refuses: "secret-looking or loader variables set inline (VAR=x cmd, env VAR=x cmd, export VAR=x)",
    hint: SECRET_HINT,
  },
} as const satisfies Record<string, Rule>;

/**
 * The name of one rule, as refusals report it.
 *
 * @example
 * ```ts
 * const id: RuleId = "network.url";
 * ```
 */
export type RuleId = keyof typeof RULES;
