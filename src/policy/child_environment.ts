/**
 * The environment children get: the server's own minus what {@linkcode ENV_RULES} strips, plus the private TMPDIR,
 * the request's variables, then the anti-hang ones. Proxies, CA bundles and toolchain variables (JAVA_HOME, …) pass.
 */

/** One rule: the names it strips, with examples checked when the module loads. */
export interface EnvRule {
  id: string;
  /** What it guards against. */
  kind: "server" | "loader" | "secret";
  /** What it strips, for check_exec_environment and docs/permission-modes.md. */
  description: string;
  /** Upper-cased exact names; `patterns` are tested against the upper-cased name. */
  names?: readonly string[];
  patterns?: readonly RegExp[];
  examples: { stripped: readonly string[]; kept: readonly string[] };
}

/** First match wins. `server` rules apply in every mode (dangerous included), the others in safe and trusted mode. */
export const ENV_RULES: readonly EnvRule[] = [
  {
    id: "server.own",
    kind: "server",
    description: "the server's own variables (WORKCELL_*, e.g. the HTTP bearer token)",
    patterns: [/^WORKCELL_/],
    examples: { stripped: ["WORKCELL_AUTH_TOKEN"], kept: ["WORKCELL", "MY_WORKCELL_DIR"] },
  },
  {
    id: "loader.dynamic_linker",
    kind: "loader",
    description: "dynamic linker and libc hooks: LD_*, DYLD_*, GLIBC_TUNABLES, GCONV_PATH, LOCPATH, MALLOC_*, …",
    names: ["GLIBC_TUNABLES", "GCONV_PATH", "LOCPATH", "HOSTALIASES", "RESOLV_HOST_CONF"],
    patterns: [/^LD_/, /^DYLD_/, /^MALLOC_/],
    examples: {
      stripped: ["LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "GCONV_PATH"],
      kept: ["OLD_PATH"],
    },
  },
  {
    id: "loader.shell_startup",
    kind: "loader",
    description:
      "shell start-up and prompt hooks: BASH_ENV, ENV, ZDOTDIR, PROMPT_COMMAND, SHELLOPTS, IFS, BASH_FUNC_*, …",
    names: ["BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "PS4", "CDPATH"],
    patterns: [/^BASH_FUNC_/],
    examples: { stripped: ["BASH_ENV", "ENV", "BASH_FUNC_x%%"], kept: ["SHELL", "ENVIRONMENT", "NODE_ENV"] },
  },
  {
    id: "loader.interpreter",
    kind: "loader",
    description:
      "interpreter start-up code and module paths: NODE_OPTIONS, NODE_PATH, PYTHONSTARTUP, PYTHONPATH, PYTHONHOME, PERL5OPT, PERL5LIB, RUBYOPT, JAVA_TOOL_OPTIONS, …",
    names: ("NODE_OPTIONS NODE_PATH PYTHONSTARTUP PYTHONPATH PYTHONHOME PYTHONINSPECT PERL5OPT PERL5LIB PERLLIB " +
      "PERL5DB RUBYOPT RUBYLIB JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS").split(" "),
    examples: {
      stripped: ["NODE_OPTIONS", "PYTHONSTARTUP", "JAVA_TOOL_OPTIONS"],
      kept: ["JAVA_HOME", "VIRTUAL_ENV", "NODE_EXTRA_CA_CERTS", "PYTHONUNBUFFERED"],
    },
  },
  {
    id: "loader.git",
    kind: "loader",
    description:
      "git configuration and the programs git runs: GIT_CONFIG*, GIT_EXEC_PATH, GIT_SSH*, GIT_ASKPASS, GIT_EDITOR, GIT_PAGER, GIT_EXTERNAL_DIFF, …",
    names: ("GIT_SSH GIT_SSH_COMMAND GIT_EXTERNAL_DIFF GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_ASKPASS " +
      "SSH_ASKPASS GIT_PROXY_COMMAND GIT_EXEC_PATH GIT_TEMPLATE_DIR").split(" "),
    patterns: [/^GIT_CONFIG/],
    examples: {
      stripped: ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_KEY_0", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_SSH_COMMAND"],
      kept: ["GIT_AUTHOR_NAME", "GIT_COMMITTER_EMAIL"],
    },
  },
  {
    id: "loader.pager_editor",
    kind: "loader",
    description: "programs other tools start on their own: PAGER, EDITOR, VISUAL, LESSOPEN, LESSCLOSE",
    names: ["PAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE"],
    examples: { stripped: ["PAGER", "EDITOR"], kept: ["LESS"] },
  },
  {
    id: "secret.name",
    kind: "secret",
    description:
      "names that say they hold a credential: *_TOKEN, *_SECRET*, *PASSWORD*, *_KEY, *_CREDENTIALS, *_AUTH, *_COOKIE, *_PRIVATE, …",
    patterns: [
      /(^|_)(TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|PASS|CREDENTIAL|CREDENTIALS|APIKEY|AUTH|AUTHTOKEN|COOKIE|PRIVATE)(_|$)/,
      /(^|_)(API|ACCESS|SECRET|PRIVATE|SIGNING|ENCRYPTION|MASTER|SERVICE|LICENSE)_?KEY(_|S|$)/,
      /_KEY$/,
      /_KEY_/,
    ],
    examples: {
      stripped: ["GITHUB_TOKEN", "DB_PASSWORD", "MY_SECRET_VALUE", "SSH_KEY", "NPM_CONFIG__AUTHTOKEN"],
      kept: ["KEYBOARD", "GIT_AUTHOR_NAME", "PWD", "OLDPWD", "PASSIVE_MODE", "TOKENIZERS_PARALLELISM"],
    },
  },
  {
    id: "secret.provider",
    kind: "secret",
    description:
      "cloud, CI and service-provider variables, which carry keys more often than not: AWS_*, AZURE_*, GOOGLE_*, GH_*, GITHUB_*, OPENAI_*, ANTHROPIC_*, VAULT_*, …",
    patterns: [
      /^(AWS|AZURE|ARM|GCP|GCLOUD|GOOGLE|GH|GITHUB|GITLAB|PYPI|TWINE|HUGGINGFACE|OPENAI|ANTHROPIC|SLACK|STRIPE|DOCKER|VAULT|KUBE|CLOUDFLARE|DIGITALOCEAN|HEROKU|SENTRY|DATADOG|CODECOV|NETLIFY|VERCEL|SNOWFLAKE|DATABASE)_/,
    ],
    examples: {
      stripped: ["AWS_PROFILE", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "VAULT_ADDR"],
      kept: ["GOPATH", "CARGO_HOME", "NPM_CONFIG_CACHE"],
    },
  },
  {
    id: "secret.credential_file",
    kind: "secret",
    description:
      "credentials by another name: KUBECONFIG, DATABASE_URL, REDIS_URL, MONGODB_URI, PGPASSWORD, NETRC, SSH_AUTH_SOCK (the ssh agent's keys), …",
    names: ("KUBECONFIG DATABASE_URL REDIS_URL MONGO_URL MONGODB_URI PGPASSWORD PGPASSFILE MYSQL_PWD NETRC " +
      "SSH_AUTH_SOCK GNUPGHOME").split(" "),
    examples: {
      stripped: ["KUBECONFIG", "MYSQL_PWD", "SSH_AUTH_SOCK"],
      kept: ["SSL_CERT_FILE", "HTTPS_PROXY", "NO_PROXY"],
    },
  },
];

function matches(rule: EnvRule, name: string): boolean {
  const upper = name.toUpperCase();
  return (rule.names?.includes(upper) ?? false) || (rule.patterns?.some((pattern) => pattern.test(upper)) ?? false);
}

/**
 * The first rule that strips `name`, or null when it passes.
 * @example
 * ```ts
 * envRule("GITHUB_TOKEN")?.id; // "secret.name"
 * ```
 */
export function envRule(name: string): EnvRule | null {
  return ENV_RULES.find((rule) => matches(rule, name)) ?? null;
}

/**
 * Whether the gate refuses `name` in a request's `env` or an inline `VAR=x`: its kind, or null when harmless.
 * @example
 * ```ts
 * sensitiveEnvKind("LD_PRELOAD"); // "loader"
 * ```
 */
export function sensitiveEnvKind(name: string): "loader" | "secret" | null {
  const kind = envRule(name)?.kind;
  return kind === "loader" || kind === "secret" ? kind : null;
}

/** What every child of one policy inherits from the server. */
export type InheritedEnvironment = ReturnType<typeof inheritedEnvironment>;

/**
 * The DENO_DIR the npm launcher (packaging/npm/workcell.mjs) got ("" for none). Children get it back instead of the
 * package's read-only cache the launcher gives the server, so their `deno` never adds packages there.
 */
export const CLIENT_DENO_DIR_ENV = "WORKCELL_CLIENT_DENO_DIR";

/**
 * The base environment: never the server's TMPDIR, and DENO_DIR as {@linkcode CLIENT_DENO_DIR_ENV} says, when set;
 * with the inherited names `stripped` (never their values, sorted) and the variables `added` (TMPDIR, when there is a
 * private temp dir).
 * @example
 * ```ts
 * inheritedEnvironment({ PATH: "/bin", JAVA_HOME: "/opt/jdk", AWS_SECRET_ACCESS_KEY: "x" }, { tmpdir: "/tmp/w", inheritAll: false });
 * // env: { PATH, JAVA_HOME, TMPDIR: "/tmp/w" }; stripped: ["AWS_SECRET_ACCESS_KEY"] by "secret.provider"
 * ```
 */
export function inheritedEnvironment(
  inherited: Record<string, string>,
  options: { tmpdir: string | null; inheritAll: boolean },
) {
  const env: Record<string, string> = {};
  const strippedBy: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (name === "TMPDIR") continue;
    const rule = envRule(name);
    if (rule && (rule.kind === "server" || !options.inheritAll)) strippedBy[name] = rule.id;
    else env[name] = value;
  }
  const clientDenoDir = inherited[CLIENT_DENO_DIR_ENV];
  if (clientDenoDir === "") delete env.DENO_DIR;
  else if (clientDenoDir !== undefined) env.DENO_DIR = clientDenoDir;
  const added: Record<string, string> = options.tmpdir === null ? {} : { TMPDIR: options.tmpdir };
  return { env: { ...env, ...added }, stripped: Object.keys(strippedBy).sort(), strippedBy, added };
}

/** Variables set for every command, whatever the plan says, so that nothing waits for a pager or a prompt. */
export const ANTI_HANG_ENV: Readonly<Record<string, string>> = {
  NO_COLOR: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  CI: "1",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
};

/** ssh never prompts (git over ssh included); kept when the plan sets its own. */
const SSH_COMMAND = "ssh -o BatchMode=yes";

/**
 * A command's environment at its spawn: the plan's, then the anti-hang variables, TERM by terminal kind.
 * @example
 * ```ts
 * childEnvironment({ PATH: "/usr/bin" }, true).TERM; // "xterm-256color"
 * ```
 */
export function childEnvironment(planEnv: Record<string, string>, tty: boolean): Record<string, string> {
  return { GIT_SSH_COMMAND: SSH_COMMAND, ...planEnv, ...ANTI_HANG_ENV, TERM: tty ? "xterm-256color" : "dumb" };
}

// Each rule must strip its own examples, and no rule what one should keep.
for (const rule of ENV_RULES) {
  for (const name of rule.examples.stripped) {
    if (!matches(rule, name)) throw new Error(`env rule ${rule.id} must strip ${name}`);
  }
  for (const name of rule.examples.kept) {
    if (envRule(name) !== null) throw new Error(`env rule ${rule.id}: ${name} must pass (${envRule(name)?.id})`);
  }
}
