import { isInside } from "../workspace/confine.ts";
import { decodeRgData, type RgData } from "./ripgrep.ts";
import { utf8CutIndex } from "../text/utf8.ts";
import { treeOrder } from "../paging/tree_order.ts";

/** The marker put where a long line was trimmed. */
export const TRIM_MARKER = "…";

/** Where a search resumes: after the match at this path (workspace-relative) and line. */
export type SearchPosition = { p: string; l: number };

/** One matching line. */
export interface SearchMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  /** 1-based byte column of the first match in the line. */
  column: number;
  text: string;
  before: string[];
  after: string[];
  path_lossy?: boolean;
}

/** A line rg reports, matching or context. */
export interface RgLine {
  path: RgData;
  lines: RgData;
  line_number: number;
  submatches?: { start: number; end: number }[];
}

/** One message of `rg --json`. */
export type RgMessage =
  | { type: "begin"; data: { path: RgData } }
  | { type: "match" | "context"; data: RgLine }
  | { type: "end"; data: { path: RgData; binary_offset: number | null } }
  | { type: "summary"; data: unknown };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Trims a line to `maxBytes` UTF-8 bytes around byte `focus`, marking cut ends with TRIM_MARKER.
 * @example
 * ```ts
 * trimLine("x".repeat(1000) + "needle", 1000, 40); // "…xxxxxxxx…needle" shape, at most 40 bytes
 * ```
 */
export function trimLine(text: string, focus: number, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker = encoder.encode(TRIM_MARKER).length;
  const room = Math.max(1, maxBytes - 2 * marker);
  const start = utf8CutIndex(bytes, Math.max(0, Math.min(focus - Math.floor(room / 4), bytes.length - room)));
  const end = utf8CutIndex(bytes, start + room);
  return (start > 0 ? TRIM_MARKER : "") + decoder.decode(bytes.subarray(start, end)) +
    (end < bytes.length ? TRIM_MARKER : "");
}

/** What a MatchCollector keeps. */
export interface MatchCollectorOptions {
  /** The absolute path of the directory rg started in: the names it reports are relative to it. */
  rootAbs: string;
  /** Put before those names to make them workspace-relative ("" when rg started at the workspace root). */
  prefix: string;
  /** Whether the file with this name (relative to where rg started) is searched: the globs, the hidden filter. */
  wanted: (below: string) => boolean;
  context: number;
  /** Most matches kept: one more means more follow. */
  maxResults: number;
  /** The page's resume position: matches up to it are counted, not kept. */
  after: SearchPosition | null;
  trimTo: number;
}

/**
 * The file rg names by `data` (relative to the directory it started in), as a page sees it: its workspace-relative
 * path, and `skip` when it is outside the start directory or not wanted (its lines are passed over).
 * @example
 * ```ts
 * reportedFile({ text: "./a.ts" }, { rootAbs: "/repo", prefix: "src/", wanted: () => true }); // path "src/a.ts"
 * ```
 */
export function reportedFile(
  data: RgData,
  options: Pick<MatchCollectorOptions, "rootAbs" | "prefix" | "wanted">,
): { path: string; lossy: boolean; skip: boolean } {
  const decoded = decodeRgData(data);
  const below = decoded.text.startsWith("./") ? decoded.text.slice(2) : decoded.text;
  const skip = !isInside(options.rootAbs, below) || !options.wanted(below);
  return { path: options.prefix + below, lossy: decoded.lossy, skip };
}

/** Gathers a search_text page from rg's `--json` messages: earlier pages' matches only counted, binaries' dropped. */
export class MatchCollector {
  readonly matches: SearchMatch[] = [];
  /** Matches up to the resume position: those of earlier pages (a replay from a later file starts with theirs). */
  beforePage = 0;
  /** One match more than `maxResults` arrived: more follow this page (`done` once the last has its after-context). */
  capped = false;
  done = false;
  /** rg sent a message, so it got as far as searching. */
  sawMessage = false;
  #file: ReturnType<typeof reportedFile> | null = null;
  #fileStart = 0;
  /** The file's last `context` lines, for the before-context of a match. */
  #recent: { line: number; text: string }[] = [];

  constructor(private readonly options: MatchCollectorOptions) {}

  add(message: RgMessage): void {
    this.sawMessage = true;
    if (message.type === "begin") this.#open(message.data.path);
    else if (message.type === "match" || message.type === "context") this.#line(message.type, message.data);
    else if (message.type === "end") {
      const file = this.#file;
      if (message.data.binary_offset !== null && file && !file.skip) this.matches.length = this.#fileStart; // binary: skipped
      if (this.capped) this.done = true;
      this.#file = null;
    }
  }

  #open(data: RgData): void {
    this.#file = reportedFile(data, this.options);
    this.#fileStart = this.matches.length;
    this.#recent = [];
  }

  #line(kind: "match" | "context", data: RgLine): void {
    if (this.#file === null) this.#open(data.path);
    const file = this.#file!;
    if (file.skip) return;
    const { context: ctx, after } = this.options;
    const text = decodeRgData(data.lines).text.replace(/\r?\n$/, "");
    const number = data.line_number;
    this.#extendAfterContext(number, text);
    const skipped = kind === "match" && after !== null &&
      (treeOrder(file.path, after.p) < 0 || (file.path === after.p && number <= after.l));
    if (skipped) this.beforePage++;
    else if (kind === "match" && !this.capped) {
      if (this.matches.length === this.options.maxResults) this.capped = true;
      else this.#keep(file, data, text);
    }
    if (ctx > 0) {
      this.#recent.push({ line: number, text });
      if (this.#recent.length > ctx) this.#recent.shift();
    }
    if (this.capped) {
      const last = this.matches[this.matches.length - 1];
      if (ctx === 0 || last.path !== file.path || number - last.line >= ctx) this.done = true;
    }
  }

  /** Lines after a kept match (within context) are its after-context. */
  #extendAfterContext(number: number, text: string): void {
    for (let i = this.matches.length - 1; i >= this.#fileStart; i--) {
      const earlier = this.matches[i];
      if (number - earlier.line > this.options.context) break;
      if (number > earlier.line) earlier.after.push(trimLine(text, 0, this.options.trimTo));
    }
  }

  #keep(file: ReturnType<typeof reportedFile>, data: RgLine, text: string): void {
    const { context: ctx, trimTo } = this.options;
    const number = data.line_number;
    const focus = data.submatches?.[0]?.start ?? 0;
    const match: SearchMatch = {
      path: file.path,
      line: number,
      column: focus + 1,
      text: trimLine(text, focus, trimTo),
      before: this.#recent.filter((seen) => seen.line >= number - ctx).map((seen) => trimLine(seen.text, 0, trimTo)),
      after: [],
    };
    if (file.lossy) match.path_lossy = true;
    this.matches.push(match);
  }
}
