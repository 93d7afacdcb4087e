/**
 * The command gate's rule table: every refusal names one rule from here,
 * with its gate, what it refuses and how to proceed. The command tables
 * (network programs, interpreters, wrappers, destructive programs) are data
 * the analyser in gate.ts walks; nothing here runs anything.
 *
 * @example
 * RULES["network.command"].gate; // "network"
 */
import type { Mode } from "../config.ts";

/** The command gates, as MODE_POLICIES lists them. */
export const GATES = ["network", "shell_syntax", "inline_script", "destructive", "outside_path", "secret_env"] as const;
export type Gate = typeof GATES[number];

/** One rule of the table. */
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

/** The rule table. */
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

export type RuleId = keyof typeof RULES;

/** Shells: `-c` runs inline code; no script operand reads code from stdin. */
export const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
  "csh",
  "tcsh",
  "rbash",
  "yash",
]);
/** Shell options that take a value (so the value is not the script operand). */
export const SHELL_VALUE_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/** Interpreters and the options that take inline code (short options may be clustered, e.g. `-lne`). */
export const INTERPRETERS: Record<string, { short: string; long: readonly string[]; subcommands?: readonly string[] }> =
  {
    python: { short: "c", long: [] },
    pypy: { short: "c", long: [] },
    node: { short: "ep", long: ["--eval", "--print"] },
    nodejs: { short: "ep", long: ["--eval", "--print"] },
    bun: { short: "e", long: ["--eval", "--print"] },
    deno: { short: "", long: [], subcommands: ["eval", "repl"] },
    perl: { short: "eE", long: [] },
    ruby: { short: "e", long: [] },
    php: { short: "r", long: [] },
    lua: { short: "e", long: [] },
    luajit: { short: "e", long: [] },
    rscript: { short: "e", long: [] },
    julia: { short: "eE", long: ["--eval", "--print"] },
    osascript: { short: "e", long: [] },
    pwsh: { short: "c", long: ["-command", "--command"] },
    gdb: { short: "", long: ["-ex", "--ex", "-eval-command", "--eval-command"] },
  };

/** Awk programs may run commands; these constructs in an inline program are refused. */
export const AWK_PROGRAMS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);
export const AWK_EXEC = /system\s*\(|getline|\|/;
/** Awk options that take a value. */
export const AWK_VALUE_OPTIONS = new Set([
  "-F",
  "-v",
  "-f",
  "--field-separator",
  "--assign",
  "--file",
  "-i",
  "--include",
]);

/**
 * Wrappers that run another command: how many option values and positionals
 * precede it. `inline` wrappers pass their argument to a shell.
 */
export interface WrapperSpec {
  /** Options whose value is the next word. */
  valueOptions?: readonly string[];
  /** Positional words before the command (timeout's DURATION, chroot's dir, …). */
  positionals?: number;
  /** Options that mean "the next word is shell code". */
  shellOptions?: readonly string[];
  /** Runs its arguments through `sh -c` unless one of these options is given. */
  shellUnless?: readonly string[];
  /** Wrapped command is taken from the words after these options as literal assignments (env). */
  assignments?: boolean;
}

export const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    valueOptions: ["-u", "--unset", "-C", "--chdir", "-a", "--argv0"],
    shellOptions: ["-S", "--split-string"],
    assignments: true,
  },
  nice: { valueOptions: ["-n", "--adjustment"] },
  nohup: {},
  timeout: { valueOptions: ["-s", "--signal", "-k", "--kill-after"], positionals: 1 },
  time: { valueOptions: ["-o", "--output", "-f", "--format"] },
  stdbuf: { valueOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  ionice: { valueOptions: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"] },
  chrt: { positionals: 1 },
  taskset: { positionals: 1 },
  setsid: {},
  command: {},
  builtin: {},
  exec: { valueOptions: ["-a"] },
  xargs: {
    valueOptions: [
      "-a",
      "--arg-file",
      "-d",
      "--delimiter",
      "-E",
      "-e",
      "-I",
      "-L",
      "-l",
      "-n",
      "--max-args",
      "-P",
      "--max-procs",
      "-s",
      "--max-chars",
      "--process-slot-var",
    ],
  },
  flock: {
    valueOptions: ["-w", "--timeout", "-E", "--conflict-exit-code"],
    positionals: 1,
    shellOptions: ["-c", "--command"],
  },
  watch: {
    valueOptions: ["-n", "--interval", "-d", "--differences", "-q", "--equexit"],
    shellUnless: ["-x", "--exec"],
  },
  script: {
    valueOptions: ["-E", "--echo", "-I", "-O", "-B", "-T", "--log-io", "--log-in", "--log-out"],
    shellOptions: ["-c", "--command"],
  },
  strace: { valueOptions: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P", "-I", "-b", "-X"] },
  ltrace: { valueOptions: ["-o", "-e", "-p", "-s", "-u", "-n", "-a", "-l", "-x"] },
  valgrind: {},
  catchsegv: {},
  entr: { shellOptions: ["-s"] },
  unbuffer: {},
  fakeroot: {},
  parallel: { shellUnless: [] },
  busybox: {},
};

/** Network clients: any use is refused in safe mode. */
export const NETWORK_COMMANDS = new Set([
  "curl",
  "wget",
  "wget2",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "ssh",
  "scp",
  "sftp",
  "ftp",
  "lftp",
  "tftp",
  "mosh",
  "ping",
  "ping6",
  "dig",
  "nslookup",
  "host",
  "whois",
  "traceroute",
  "tracepath",
  "mtr",
  "aria2c",
  "axel",
  "http",
  "https",
  "xh",
  "lynx",
  "links",
  "w3m",
  "elinks",
  "rclone",
  "s3cmd",
  "gsutil",
  "aws",
  "az",
  "gcloud",
  "kubectl",
  "helm",
  "npx",
  "pnpx",
  "bunx",
  "uvx",
  "pipx",
  "ssh-keyscan",
  "ssh-copy-id",
  "openssl",
  "nmap",
  "tcpdump",
]);

/** Subcommands that reach the network, per program (the first non-option word). */
export const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set([
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
  ]),
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

/** `python -m MODULE` values that reach the network. */
export const PYTHON_NETWORK_MODULES = new Set([
  "pip",
  "http.server",
  "SimpleHTTPServer",
  "smtpd",
  "ftplib",
  "ensurepip",
  "venv-upgrade",
]);

/** URL schemes that mean network. */
export const NETWORK_URL = /^(https?|ftps?|sftp|scp|ssh|git|git\+ssh|rsync|telnet|wss?|s3|gs|tcp|udp):\/\//i;
/** scp-like `user@host:path` remotes (git, rsync). */
export const SCP_REMOTE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:/;

/** Programs refused by a destructive rule whatever their arguments. */
export const DESTRUCTIVE_COMMANDS: Record<string, RuleId> = {
  dd: "destructive.disk",
  fdisk: "destructive.disk",
  sfdisk: "destructive.disk",
  gdisk: "destructive.disk",
  cfdisk: "destructive.disk",
  parted: "destructive.disk",
  wipefs: "destructive.disk",
  blkdiscard: "destructive.disk",
  hdparm: "destructive.disk",
  losetup: "destructive.disk",
  mount: "destructive.disk",
  umount: "destructive.disk",
  swapon: "destructive.disk",
  swapoff: "destructive.disk",
  mkswap: "destructive.disk",
  cryptsetup: "destructive.disk",
  dmsetup: "destructive.disk",
  lvremove: "destructive.disk",
  vgremove: "destructive.disk",
  pvremove: "destructive.disk",
  shutdown: "destructive.system",
  reboot: "destructive.system",
  halt: "destructive.system",
  poweroff: "destructive.system",
  init: "destructive.system",
  telinit: "destructive.system",
  kexec: "destructive.system",
  iptables: "destructive.system",
  ip6tables: "destructive.system",
  nft: "destructive.system",
  crontab: "destructive.system",
  pkill: "destructive.kill",
  killall: "destructive.kill",
  killall5: "destructive.kill",
  skill: "destructive.kill",
  sudo: "destructive.privilege",
  su: "destructive.privilege",
  doas: "destructive.privilege",
  pkexec: "destructive.privilege",
  runuser: "destructive.privilege",
  chroot: "destructive.privilege",
  unshare: "destructive.privilege",
  nsenter: "destructive.privilege",
  setpriv: "destructive.privilege",
  capsh: "destructive.privilege",
  docker: "destructive.privilege",
  podman: "destructive.privilege",
  nerdctl: "destructive.privilege",
  "systemd-run": "destructive.privilege",
  machinectl: "destructive.privilege",
  firejail: "destructive.privilege",
  proot: "destructive.privilege",
};

/** Programs that remove their operands. */
export const REMOVERS = new Set(["rm", "rmdir", "unlink", "shred", "srm"]);
/** Programs that change modes/owners (not covered by Landlock ABI ≤ 7). */
export const PERMISSION_CHANGERS = new Set(["chmod", "chown", "chgrp", "chattr", "setfacl"]);
/** Programs with an in-place option `-i`. */
export const IN_PLACE_EDITORS = new Set(["sed", "perl", "ruby"]);
/** systemctl subcommands that only read. */
export const SYSTEMCTL_READS = new Set([
  "status",
  "show",
  "cat",
  "list-units",
  "list-unit-files",
  "list-timers",
  "is-active",
  "is-enabled",
  "is-failed",
  "help",
]);

/** Shell keywords and builtins that have no program of their own. */
export const SHELL_BUILTINS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "for",
  "while",
  "until",
  "do",
  "done",
  "case",
  "esac",
  "select",
  "function",
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "cd",
  "pushd",
  "popd",
  "export",
  "unset",
  "set",
  "shopt",
  "source",
  ".",
  "alias",
  "unalias",
  "declare",
  "typeset",
  "local",
  "readonly",
  "trap",
  "ulimit",
  "umask",
  "read",
  "return",
  "exit",
  "let",
  "hash",
  "jobs",
  "fg",
  "bg",
  "wait",
  "disown",
  "coproc",
]);

/** Reserved words that begin or continue a compound command (skipped when walking shell code). */
export const SHELL_RESERVED_PREFIX = new Set([
  "!",
  "{",
  "}",
  "then",
  "do",
  "else",
  "elif",
  "if",
  "while",
  "until",
  "time",
  "fi",
  "done",
  "esac",
  "in",
]);
/** Builtins whose NAME=value arguments set the environment. */
export const EXPORTERS = new Set(["export", "declare", "typeset", "local", "readonly"]);

/** `git -c` keys that are harmless. */
export const GIT_SAFE_CONFIG =
  /^(color|user|advice|log|format|init|column|pretty|i18n|blame|status|grep)\.[A-Za-z0-9.-]+$/i;

/** Devices and pseudo-files any command may name. */
export const ALLOWED_DEVICES = new Set([
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/random",
  "/dev/urandom",
  "/dev/tty",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
]);
