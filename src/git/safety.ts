/** `-c` pairs for every git run, over any config: no pager, fsmonitor or external diff, stable output, no network. */
export const FIXED_CONFIG: readonly (readonly [string, string])[] = [
  ["core.pager", "cat"],
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.quotePath", "false"],
  ["color.ui", "never"],
  ["diff.external", ""],
  ["diff.noprefix", "false"],
  ["diff.mnemonicPrefix", "false"],
  ["diff.relative", "false"],
  ["diff.submodule", "short"],
  ["log.showSignature", "false"],
  // A root commit's diff is shown like any other.
  ["log.showRoot", "true"],
  ["i18n.logOutputEncoding", "UTF-8"],
  // A partial clone would otherwise fetch missing objects on a read.
  ["protocol.allow", "never"],
  // Never pick up a bare repository planted inside the workspace.
  ["safe.bareRepository", "explicit"],
];

/** Config keys whose value is a program git may run while reading. */
const DRIVER_KEY = /^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command))$/;
const REQUIRED_FILTER_KEY = /^filter\..+\.required$/;

/** The `-c` arguments for {@linkcode FIXED_CONFIG}. */
export function fixedConfigArgs(): string[] {
  return FIXED_CONFIG.flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/**
 * `GIT_CONFIG_KEY_<n>` variables (which take any subsection spelling verbatim) blanking every program-valued driver key
 * in `keys` (as `git config --list --name-only` prints them) and making filters optional: a missing one is no error.
 * @example
 * ```ts
 * driverOverrides(["diff.pdf.textconv"]); // GIT_CONFIG_KEY_0=diff.pdf.textconv, value ""
 * ```
 */
export function driverOverrides(keys: readonly string[]): Record<string, string> {
  const pairs: [string, string][] = [];
  for (const key of new Set(keys)) {
    if (DRIVER_KEY.test(key)) pairs.push([key, ""]);
    else if (REQUIRED_FILTER_KEY.test(key)) pairs.push([key, "false"]);
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
