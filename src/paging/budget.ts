/**
 * The result budget: the characters of `JSON.stringify(structuredContent)`, the string Claude Code and VS Code hand the
 * model; a page holds whole items only while that stays within the ceiling (`--max-result-chars`).
 */

/** Upper bound of the model-facing text, in UTF-8 bytes (the envelope cuts longer text). */
export const MAX_TEXT_BYTES = 16 * 1024;

/** Default ceiling: under Claude Code's 50,000-character persist-to-file threshold, with room for the envelope. */
export const DEFAULT_MAX_RESULT_CHARS = 48_000;
/** Smallest ceiling `--max-result-chars` accepts: one bounded item (a 4 KiB blame or log text) must still fit. */
export const MIN_MAX_RESULT_CHARS = 20_000;
/** Largest ceiling: the most Claude Code accepts in `_meta["anthropic/maxResultSizeChars"]`. */
export const MAX_MAX_RESULT_CHARS = 500_000;
/** What results at default arguments aim at (measured on the client-views repository, docs/results.md). */
export const DEFAULT_PAGE_TARGET_CHARS = 32_000;

const ENVELOPE_CHARS = '"ok":true,'.length;

/**
 * The characters a tool's own data may take under the ceiling `maxResultChars` (the envelope adds `ok`).
 * @example
 * ```ts
 * dataBudget(48_000); // 47990
 * ```
 */
export function dataBudget(maxResultChars: number): number {
  return maxResultChars - ENVELOPE_CHARS;
}

/**
 * Characters of `value` as a client serialises it (UTF-16 code units of its JSON).
 * @example
 * ```ts
 * jsonChars({ a: "é" }); // 9
 * ```
 */
export function jsonChars(value: unknown): number {
  return JSON.stringify(value).length;
}

/**
 * Characters a string adds inside JSON, without its quotes.
 * @example
 * ```ts
 * jsonStringChars('say "hi"\n'); // 12
 * ```
 */
export function jsonStringChars(text: string): number {
  return JSON.stringify(text).length - 2;
}

/**
 * The longest prefix of `text` (whole code points, at least one) taking at most `maxChars` characters in JSON.
 * @example
 * ```ts
 * prefixWithinJson("a\tb", 3); // "a\t"
 * ```
 */
export function prefixWithinJson(text: string, maxChars: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += jsonStringChars(char);
    if (used > maxChars && end > 0) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * The longest run of whole lines of `text` whose JSON fits `maxChars`, else the first line cut to fit (`cut`).
 * @example
 * ```ts
 * fitLines("ab\ncd\n", 5); // { text: "ab\n", lines: 1, cut: false }
 * ```
 */
export function fitLines(text: string, maxChars: number): { text: string; lines: number; cut: boolean } {
  let used = 0;
  let end = 0;
  let lines = 0;
  while (end < text.length) {
    const newline = text.indexOf("\n", end);
    const lineEnd = newline < 0 ? text.length : newline + 1;
    const cost = jsonStringChars(text.slice(end, lineEnd));
    if (used + cost > maxChars) break;
    used += cost;
    end = lineEnd;
    lines++;
  }
  if (lines > 0) return { text: text.slice(0, end), lines, cut: false };
  return { text: prefixWithinJson(text, maxChars), lines: 1, cut: true };
}

/** How {@linkcode fitCount} measures a page. */
export interface FitOptions<T> {
  /** Characters of the rest of the result: its JSON with the items array empty and the resume point null. */
  fixed: number;
  /** Whether more items follow the last candidate (a resume point is then needed whatever fits). */
  more: boolean;
  /** Characters the resume point after `item` adds over the `null` it replaces; 0 when omitted. */
  resume?: (item: T, index: number) => number;
  /** Characters `item` adds elsewhere in the result (e.g. a commit's details on its first line); 0 when omitted. */
  besides?: (item: T, index: number) => number;
}

/**
 * How many leading `items` fit in `maxChars` with the rest of the result: whole items (JSON and a comma each) plus the
 * resume point after the last when anything follows. At least one is taken, so paging always moves on.
 * @example
 * ```ts
 * fitCount(["a", "b", "c"], 10, { fixed: 2, more: false }); // 2: ["a","b"] is 9 characters
 * ```
 */
export function fitCount<T>(items: readonly T[], maxChars: number, options: FitOptions<T>): number {
  // The items alone first, then the resume point only for the counts tried: each one costs a cursor encoding.
  const usedAfter: number[] = [];
  let used = options.fixed;
  for (const [i, item] of items.entries()) {
    const cost = jsonChars(item) + (usedAfter.length > 0 ? 1 : 0) + (options.besides?.(item, i) ?? 0);
    if (usedAfter.length > 0 && used + cost > maxChars) break;
    used += cost;
    usedAfter.push(used);
  }
  let count = usedAfter.length;
  for (; count > 1; count--) {
    const followed = options.more || count < items.length;
    const resume = followed && options.resume ? options.resume(items[count - 1], count - 1) : 0;
    if (usedAfter[count - 1] + resume <= maxChars) break;
  }
  return count;
}
