import type { LineIndex } from "./line_index.ts";

/** A comparison pass, strictest first. */
export type Pass = "exact" | "trim_end" | "trim" | "unicode";

const PASSES: readonly Pass[] = ["exact", "trim_end", "trim", "unicode"];

/** How each tolerant pass is described in a warning. */
export const PASS_DESCRIPTIONS: Record<Pass, string> = {
  exact: "exactly",
  trim_end: "only after ignoring trailing whitespace",
  trim: "only after ignoring leading and trailing whitespace",
  unicode:
    "only after normalising typographic punctuation (Unicode dashes, curly quotes, Unicode spaces) and whitespace",
};

const DASHES = /[\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032\uFF07]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033\uFF02]/g;
const SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;
const TRAILING = /[ \t\r]+$/;
const LEADING = /^[ \t\r]+/;

/** Each pass's form of a line: what it compares. */
export const NORMALISERS: Readonly<Record<Pass, (line: string) => string>> = {
  exact: (line) => line,
  trim_end: (line) => line.replace(TRAILING, ""),
  trim: (line) => line.replace(TRAILING, "").replace(LEADING, ""),
  unicode: (line) =>
    line.replace(DASHES, "-").replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(SPACES, " ")
      .replace(TRAILING, "").replace(LEADING, ""),
};

/** What a search found. */
export type SeekResult =
  | { kind: "found"; index: number; pass: Pass }
  | { kind: "ambiguous"; indexes: number[]; pass: Pass }
  | { kind: "none" };

/** Searches one file's lines: exact first, then each tolerant pass in turn; normalised forms are computed on demand. */
export class Haystack {
  readonly lines: LineIndex;
  readonly #normalised = new Map<Pass, string[]>();

  constructor(lines: LineIndex) {
    this.lines = lines;
  }

  view(pass: Exclude<Pass, "exact">): readonly string[] {
    let view = this.#normalised.get(pass);
    if (!view) {
      view = this.lines.all().map(NORMALISERS[pass]);
      this.#normalised.set(pass, view);
    }
    return view;
  }

  /**
   * Looks for `pattern` from line index `from`: "unique" reports every index of a pass matching more than once,
   * "first" takes the first match. With `eof` the match must end the file (a trailing newline's empty line may follow).
   */
  seek(pattern: readonly string[], from: number, mode: "unique" | "first", eof: boolean): SeekResult {
    for (const pass of PASSES) {
      const indexes = this.matches(pattern, from, pass, eof, mode === "first" ? 1 : Infinity);
      if (indexes.length === 1) return { kind: "found", index: indexes[0], pass };
      if (indexes.length > 1) return { kind: "ambiguous", indexes, pass };
    }
    return { kind: "none" };
  }

  matches(pattern: readonly string[], from: number, pass: Pass, eof: boolean, limit: number): number[] {
    const needle = pattern.map(NORMALISERS[pass]);
    const m = needle.length;
    const n = this.lines.count;
    let equals: (i: number, value: string) => boolean;
    if (pass === "exact") equals = (i, value) => this.lines.equals(i, value);
    else {
      const hay = this.view(pass);
      equals = (i, value) => hay[i] === value;
    }
    const at = (i: number) => {
      if (i < from || i + m > n) return false;
      for (let k = 0; k < m; k++) if (!equals(i + k, needle[k])) return false;
      return true;
    };
    const found: number[] = [];
    if (eof) {
      // The starts from which an m-line match ends the file.
      const starts = [n - m];
      if (this.lines.equals(n - 1, "") && pattern[m - 1] !== "") starts.push(n - 1 - m);
      for (const i of starts) if (at(i) && found.length < limit) found.push(i);
      return found;
    }
    if (pass === "exact" && needle[0] !== "" && from < n) {
      // Jump between occurrences of the first line with native indexOf instead of visiting every line.
      const text = this.lines.text;
      for (let pos = text.indexOf(needle[0], this.lines.start(from)); pos !== -1 && found.length < limit;) {
        const i = this.lines.lineAt(pos);
        if (this.lines.start(i) === pos && at(i)) found.push(i);
        pos = i + 1 < n ? text.indexOf(needle[0], this.lines.start(i + 1)) : -1;
      }
      return found;
    }
    for (let i = from; i + m <= n && found.length < limit; i++) if (at(i)) found.push(i);
    return found;
  }
}
