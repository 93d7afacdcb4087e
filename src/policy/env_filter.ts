/**
 * The environment children get: built from an allowlist of the server's own
 * variables (secret-looking and loader variables never pass in safe and
 * trusted mode), plus the private TMPDIR, plus what the request asked for
 * once the gate accepted it.
 *
 * @example
 * const { env, stripped } = childEnvironment(Deno.env.toObject(), { tmpdir: "/tmp/workcell-x", inheritAll: false });
 */

/** Inherited variables children keep (exact names). */
export const ENV_ALLOWLIST = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "TZ",
  "DENO_DIR",
] as const;

/** The server's own variables (the HTTP bearer token WORKCELL_AUTH_TOKEN): never passed on, in any mode. */
export const SERVER_ONLY_ENV = /^WORKCELL_/;

/** Inherited name prefixes children keep. */
export const ENV_ALLOWLIST_PREFIXES = ["LC_"] as const;

/** Variables that make a program load or run code it was not asked to (exact names). */
const LOADER_NAMES = new Set([
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "NODE_OPTIONS",
  "NODE_PATH",
  "BASH_ENV",
  "ENV",
  "ZDOTDIR",
  "PROMPT_COMMAND",
  "SHELLOPTS",
  "BASHOPTS",
  "IFS",
  "PS4",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_EXTERNAL_DIFF",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_PROXY_COMMAND",
  "GIT_EXEC_PATH",
  "GIT_TEMPLATE_DIR",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "PAGER",
  "EDITOR",
  "VISUAL",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONINSPECT",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "RUBYOPT",
  "RUBYLIB",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "GCONV_PATH",
  "LOCPATH",
  "HOSTALIASES",
  "DENO_CERT",
  "SSL_CERT_FILE",
  "SSH_AUTH_SOCK",
]);

/** Loader name patterns (prefixes and shapes). */
const LOADER_PATTERNS = [/^LD_/, /^DYLD_/, /^BASH_FUNC_/, /^GIT_CONFIG_(KEY|VALUE)_\d+$/, /^MALLOC_/];

/** Names that look like they hold credentials. */
const SECRET_PATTERNS = [
  /(^|_)(TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|PASS|CREDENTIAL|CREDENTIALS|APIKEY|AUTH|COOKIE|PRIVATE)(_|$)/,
  /(^|_)(API|ACCESS|SECRET|PRIVATE|SIGNING|ENCRYPTION|MASTER|SERVICE|LICENSE)_?KEY(_|S|$)/,
  /_KEY$/,
  /_KEY_/,
  /^(AWS|AZURE|ARM|GCP|GCLOUD|GOOGLE|GH|GITHUB|GITLAB|NPM|PYPI|TWINE|HF|HUGGINGFACE|OPENAI|ANTHROPIC|SLACK|STRIPE|DOCKER|VAULT|KUBE|CLOUDFLARE|DIGITALOCEAN|HEROKU|SENTRY|DATADOG|CODECOV|NETLIFY|VERCEL|SNOWFLAKE|DATABASE)_/,
  /^(KUBECONFIG|DATABASE_URL|REDIS_URL|MONGO_URL|MONGODB_URI|PGPASSWORD|MYSQL_PWD|NETRC|CARGO_REGISTRY_TOKEN)$/,
];

/** Why a variable name is refused or stripped, or null when it is harmless. */
export function sensitiveEnvKind(name: string): "loader" | "secret" | null {
  const upper = name.toUpperCase();
  if (LOADER_NAMES.has(upper) || LOADER_PATTERNS.some((pattern) => pattern.test(upper))) return "loader";
  if (SECRET_PATTERNS.some((pattern) => pattern.test(upper))) return "secret";
  return null;
}

/** Whether an inherited variable passes the allowlist. */
export function isAllowlisted(name: string): boolean {
  return (ENV_ALLOWLIST as readonly string[]).includes(name) ||
    ENV_ALLOWLIST_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** The base environment of every child of one policy. */
export interface ChildEnvironment {
  env: Record<string, string>;
  /** Inherited names that were dropped (never their values), sorted. */
  stripped: string[];
  /** Variables the server sets itself (TMPDIR). */
  added: Record<string, string>;
}

/**
 * Builds the base environment from the server's own.
 *
 * @example
 * childEnvironment({ PATH: "/bin", AWS_SECRET_ACCESS_KEY: "x" }, { tmpdir: "/tmp/w", inheritAll: false });
 * // { env: { PATH: "/bin", TMPDIR: "/tmp/w" }, stripped: ["AWS_SECRET_ACCESS_KEY"], added: { TMPDIR: "/tmp/w" } }
 */
export function childEnvironment(
  inherited: Record<string, string>,
  options: { tmpdir: string; inheritAll: boolean },
): ChildEnvironment {
  const env: Record<string, string> = {};
  const stripped: string[] = [];
  for (const [name, value] of Object.entries(inherited)) {
    if (SERVER_ONLY_ENV.test(name)) stripped.push(name);
    else if (options.inheritAll || (isAllowlisted(name) && sensitiveEnvKind(name) === null)) env[name] = value;
    else stripped.push(name);
  }
  const added = { TMPDIR: options.tmpdir };
  return { env: { ...env, ...added }, stripped: stripped.sort(), added };
}
