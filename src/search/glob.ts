/**
 * Gitignore-style glob filters for list_files and search_text, with
 * ripgrep's `--glob` meaning: a file passes when its path (relative to the
 * searched directory, `/`-separated) matches a positive pattern; `!pattern`
 * excludes files it matches and everything under directories it matches;
 * the last pattern that matches decides; with only `!` patterns every other
 * file passes. Unlike `rg --glob`, a glob never brings back a file that
 * .gitignore or the hidden filter left out: it only narrows.
 *
 * Syntax: `*` and `?` stay within one path component, `**` spans any
 * number of components, `[abc]` / `[!a-z]` classes, `{a,b}` alternatives,
 * `\` escapes. A pattern without `/` matches a file name at any depth; a
 * pattern with `/` (or a leading `/`) is anchored at the searched
 * directory; a trailing `/` means "files under this directory".
 *
 * @example
 * ```ts
 * const filter = compileGlobs(["src/**\/*.ts", "!**\/*_test.ts"]);
 * filter.matches("src/a/b.ts");      // true
 * filter.matches("src/a/b_test.ts"); // false
 * ```
 */
import { ToolError } from "../errors.ts";

/** A compiled list of patterns. */
export interface GlobFilter {
  /** Whether a file with this path (relative to the searched directory) passes. */
  matches(path: string): boolean;
  /**
   * File-name globs (ripgrep type syntax) of which every passing file matches at least one, so rg can skip
   * the rest before printing; null when the patterns give no such condition.
   */
  basenames: string[] | null;
  /** `!` patterns that no later positive pattern can override: rg may prune what they match while walking. */
  excludes: string[];
}

interface CompiledPattern {
  negated: boolean;
  regex: RegExp;
}

const SPECIAL = /[.*+?^${}()|[\]\\]/g;

function escapeRegex(text: string): string {
  return text.replace(SPECIAL, "\\$&");
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "{") depth++;
    else if (glob[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Splits the inside of `{...}` at its top-level commas. */
function alternatives(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === "\\") i++;
    else if (inner[i] === "{") depth++;
    else if (inner[i] === "}") depth--;
    else if (inner[i] === "," && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/** Translates a glob body to a regex source (no anchors). */
function translate(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const char = glob[i];
    if (char === "*") {
      let end = i;
      while (glob[end] === "*") end++;
      const wholeComponent = end - i >= 2 && (i === 0 || glob[i - 1] === "/") &&
        (end === glob.length || glob[end] === "/");
      if (!wholeComponent) out += "[^/]*";
      else if (end === glob.length) out += ".*";
      else {
        out += "(?:[^/]*/)*";
        end++; // the "/" after "**" is part of the repetition
      }
      i = end;
    } else if (char === "?") {
      out += "[^/]";
      i++;
    } else if (char === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]);
      i += 2;
    } else if (char === "[") {
      let close = i + 1;
      if (glob[close] === "!" || glob[close] === "^") close++;
      if (glob[close] === "]") close++;
      while (close < glob.length && glob[close] !== "]") close++;
      if (close >= glob.length) {
        out += "\\[";
        i++;
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negated = body[0] === "!" || body[0] === "^";
      if (negated) body = body.slice(1);
      out += `[${negated ? "^/" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = close + 1;
    } else if (char === "{") {
      const close = closingBrace(glob, i);
      if (close < 0) {
        out += "\\{";
        i++;
        continue;
      }
      out += `(?:${alternatives(glob.slice(i + 1, close)).map(translate).join("|")})`;
      i = close + 1;
    } else {
      out += escapeRegex(char);
      i++;
    }
  }
  return out;
}

function invalidGlob(pattern: string, why: string): ToolError {
  return new ToolError("INVALID_ARGUMENT", `glob ${JSON.stringify(pattern)} ${why}`, {
    hint: 'Use gitignore-style patterns such as "**/*.ts", "src/*.js" or "!dist/".',
    details: { field: "glob" },
  });
}

function compilePattern(raw: string): { compiled: CompiledPattern; basename: string | null } {
  let glob = raw;
  const negated = glob.startsWith("!");
  if (negated) glob = glob.slice(1);
  else if (glob.startsWith("\\!")) glob = glob.slice(1);
  const dirOnly = glob.endsWith("/");
  glob = glob.replace(/\/+$/, "");
  const anchored = glob.includes("/");
  glob = glob.replace(/^\/+/, "");
  if (glob === "") throw invalidGlob(raw, "is empty");
  const body = (anchored ? "" : "(?:.*/)?") + translate(glob);
  // A file matches a positive pattern itself; an exclusion also covers whatever is under a matching directory.
  const tail = dirOnly ? "/.*" : negated ? "(?:/.*)?" : "";
  let regex: RegExp;
  try {
    regex = new RegExp(`^${body}${tail}$`, "s");
  } catch {
    throw invalidGlob(raw, "is not a valid pattern");
  }
  const last = glob.slice(glob.lastIndexOf("/") + 1);
  const braceHidesSlash = /\{[^}]*\/[^}]*\}/.test(glob);
  const basename = dirOnly || negated || last.includes("**") || braceHidesSlash ? null : last;
  return { compiled: { negated, regex }, basename };
}

/**
 * Compiles patterns into a {@linkcode GlobFilter}; an empty or malformed pattern is INVALID_ARGUMENT.
 *
 * @example
 * ```ts
 * compileGlobs(["*.md"]).basenames; // ["*.md"]
 * ```
 */
export function compileGlobs(patterns: readonly string[]): GlobFilter {
  const compiled: CompiledPattern[] = [];
  const basenames: string[] = [];
  let everyPositiveHasBasename = true;
  let excludes: string[] = [];
  for (const raw of patterns) {
    const { compiled: pattern, basename } = compilePattern(raw);
    compiled.push(pattern);
    if (pattern.negated) {
      excludes.push(raw);
      continue;
    }
    excludes = [];
    if (basename === null) everyPositiveHasBasename = false;
    else basenames.push(basename);
  }
  const hasPositive = compiled.some((pattern) => !pattern.negated);
  return {
    matches(path: string): boolean {
      for (let i = compiled.length - 1; i >= 0; i--) {
        if (compiled[i].regex.test(path)) return !compiled[i].negated;
      }
      return !hasPositive;
    },
    basenames: hasPositive && everyPositiveHasBasename ? basenames : null,
    excludes,
  };
}

/**
 * The ripgrep arguments that narrow its walk to a superset of what {@linkcode GlobFilter.matches} accepts:
 * `--glob=!x` for final exclusions (rg prunes those directories), and a file type for the basenames (unlike a
 * positive `--glob`, rg applies types after its ignore rules, so they narrow without bringing ignored files back).
 *
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
 *
 * @example
 * ```ts
 * isHiddenPath("src/.cache/x"); // true
 * ```
 */
export function isHiddenPath(path: string): boolean {
  return path.startsWith(".") || path.includes("/.");
}
