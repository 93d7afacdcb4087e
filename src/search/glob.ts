/**
 * Gitignore-style globs as `rg --glob` means them, on paths relative to the searched directory: the last matching
 * pattern decides, `!pattern` also excludes what is under matching directories, only `!` patterns pass every other
 * file; a pattern without `/` matches a name at any depth, one with `/` is anchored, a trailing `/` means "files
 * under". Unlike `rg --glob`, a glob never brings back a file .gitignore or the hidden filter left out.
 */
import picomatch from "picomatch";
import { ToolError } from "../errors.ts";

/** A compiled list of patterns. */
export interface GlobFilter {
  matches(path: string): boolean;
  /** File-name globs (rg type syntax) every passing file matches one of, so rg can skip the rest; null if none. */
  basenames: string[] | null;
  /** `!` patterns that no later positive pattern can override: rg may prune what they match while walking. */
  excludes: string[];
}

/**
 * picomatch's options: dot names match like any other (the hidden filter is separate) and a leading `!` is
 * ours to read. picomatch reads `[!a]` as the characters `!` and `a`, so the adapter writes it `[^a]`.
 */
const PICOMATCH_OPTIONS = { dot: true, nonegate: true } as const;

function invalidGlob(pattern: string, why: string): ToolError {
  return new ToolError("INVALID_ARGUMENT", `glob ${JSON.stringify(pattern)} ${why}`, {
    hint: 'Use gitignore-style patterns such as "**/*.ts", "src/*.js" or "!dist/".',
    details: { field: "glob" },
  });
}

function compilePattern(raw: string): { negated: boolean; test: (path: string) => boolean; basename: string | null } {
  let glob = raw;
  const negated = glob.startsWith("!");
  if (negated) glob = glob.slice(1);
  else if (glob.startsWith("\\!")) glob = glob.slice(1);
  const dirOnly = glob.endsWith("/");
  glob = glob.replace(/\/+$/, "");
  const anchored = glob.includes("/");
  glob = glob.replace(/^\/+/, "");
  if (glob === "") throw invalidGlob(raw, "is empty");
  // picomatch's trailing `/**` also matches the directory itself; ours needs a component below it.
  let body = glob.replace(/(^|[^\\])\[!/g, "$1[^").replace(/\/\*\*$/, "/**/*");
  if (!anchored) body = `**/${body}`;
  // A file matches a positive pattern itself; an exclusion also covers whatever is under a matching directory.
  const under = `${body}/**/*`;
  let test: (path: string) => boolean;
  try {
    test = picomatch(dirOnly ? under : negated ? [body, under] : body, PICOMATCH_OPTIONS);
  } catch {
    throw invalidGlob(raw, "is not a valid pattern");
  }
  const last = glob.slice(glob.lastIndexOf("/") + 1);
  const braceHidesSlash = /\{[^}]*\/[^}]*\}/.test(glob);
  const basename = dirOnly || negated || last.includes("**") || braceHidesSlash ? null : last;
  return { negated, test, basename };
}

/**
 * Compiles patterns into a GlobFilter; an empty or malformed pattern is INVALID_ARGUMENT.
 * @example
 * ```ts
 * compileGlobs(["*.md"]).basenames; // ["*.md"]
 * ```
 */
export function compileGlobs(patterns: readonly string[]): GlobFilter {
  const compiled: ReturnType<typeof compilePattern>[] = [];
  // The basename of each positive pattern, null for one that has none.
  const basenames: (string | null)[] = [];
  let excludes: string[] = [];
  for (const raw of patterns) {
    const pattern = compilePattern(raw);
    compiled.push(pattern);
    if (pattern.negated) {
      excludes.push(raw);
      continue;
    }
    excludes = [];
    basenames.push(pattern.basename);
  }
  const hasPositive = basenames.length > 0;
  return {
    matches(path: string): boolean {
      for (let i = compiled.length - 1; i >= 0; i--) {
        if (compiled[i].test(path)) return !compiled[i].negated;
      }
      return !hasPositive;
    },
    basenames: hasPositive && basenames.every((name) => name !== null) ? basenames : null,
    excludes,
  };
}

/**
 * rg arguments narrowing its walk to a superset of what `matches` accepts: `--glob=!x` for final exclusions, and a
 * file type for the basenames (rg applies types after its ignore rules, so unlike `--glob` they bring nothing back).
 * @example
 * ```ts
 * prefilterArgs(compileGlobs(["*.ts", "!dist/"])); // ["--glob=!dist/", "--type-add", "workcellglob:*.ts", "--type", "workcellglob"]
 * ```
 */
export function prefilterArgs(filter: GlobFilter): string[] {
  const args = filter.excludes.map((raw) => `--glob=${raw}`);
  if (filter.basenames === null) return args;
  return [
    ...args,
    ...filter.basenames.flatMap((glob) => ["--type-add", `workcellglob:${glob}`]),
    "--type",
    "workcellglob",
  ];
}

/**
 * Whether a path relative to the searched directory has a component starting with a dot.
 * @example
 * ```ts
 * isHiddenPath("src/.cache/x"); // true
 * ```
 */
export function isHiddenPath(path: string): boolean {
  return path.startsWith(".") || path.includes("/.");
}

/**
 * Whether a file, by its path relative to the searched directory, is wanted: `filter` passes it, and it is not hidden
 * unless `includeHidden`.
 * @example
 * ```ts
 * wantedFiles(compileGlobs(["*.ts"]), false)("src/.cache/a.ts"); // false
 * ```
 */
export function wantedFiles(filter: GlobFilter | null, includeHidden: boolean): (path: string) => boolean {
  return (path) => (filter === null || filter.matches(path)) && (includeHidden || !isHiddenPath(path));
}
