/**
 * What a search_text run read past its page, kept for the next pages: rg cannot start at a position, so each run
 * searches from the start; the kept lines replayed from a later position's file give the page a new run would.
 */
import { MatchCollector, type MatchCollectorOptions, reportedFile, type RgMessage } from "./match_collector.ts";
import { treeOrder } from "../paging/tree_order.ts";

/** Bytes (estimated: UTF-16 and a string's header) of rg's JSON lines one read-ahead holds at most. */
export const KEPT_SEARCH_BYTES = 16 * 1024 * 1024;
/** A read-ahead reads on until it has read this many times what it took to fill the page. */
export const SEARCH_READ_AHEAD_FACTOR = 8;

/** A file's begin line among the kept lines, and how many matches of wanted files came before it. */
interface KeptFile {
  at: number;
  path: string;
  before: number;
}

/** rg's JSON lines from a file's begin line on, with where each file begins. */
export interface KeptSearch {
  /** Where rg ran and which files it reports are wanted, as the page that kept them saw it. */
  reported: Pick<MatchCollectorOptions, "rootAbs" | "prefix" | "wanted">;
  lines: string[];
  files: KeptFile[];
  /** The lines end where rg's output does. */
  ends: boolean;
  bytes: number;
}

/** Takes rg's JSON lines beside a page's collector and holds those a later page needs, from its first file's begin. */
export class SearchReadAhead {
  #lines: string[] = [];
  #files: KeptFile[] = [];
  #bytes = 0;
  #matches = 0;
  #skipping = false;
  #open = false;
  /** The collector has kept a match: the lines from its file's begin on are held. */
  #holding = false;
  /** Characters read, and how many to read (once the page is full). */
  #read = 0;
  #readUntil = Infinity;
  /** The lines before the page's first match passed the bound (a huge file): nothing is kept. */
  #lost = false;

  constructor(private readonly options: Pick<MatchCollectorOptions, "rootAbs" | "prefix" | "wanted">) {}

  /** Feeds one of rg's JSON lines (to `collector` too while it is not done); false once rg can be ended. */
  push(line: string, collector: MatchCollector): boolean {
    const message = JSON.parse(line) as RgMessage;
    if (this.#lost) {
      collector.add(message);
      return !collector.done;
    }
    const fresh = message.type === "begin" ||
      (!this.#open && (message.type === "match" || message.type === "context"));
    if (fresh) {
      // Until the page keeps a match, only the current file's lines are held.
      if (!this.#holding) [this.#lines, this.#files, this.#bytes] = [[], [], 0];
      const file = reportedFile(message.data.path, this.options);
      this.#files.push({ at: this.#lines.length, path: file.path, before: this.#matches });
      this.#skipping = file.skip;
      this.#open = true;
    }
    if (message.type === "match" && !this.#skipping) this.#matches++;
    if (message.type === "end") this.#open = false;
    this.#lines.push(line);
    this.#bytes += 32 + 2 * line.length; // UTF-16 and the string's header
    this.#read += line.length + 1;
    if (collector.done) return this.#read < this.#readUntil && this.#bytes <= KEPT_SEARCH_BYTES;
    collector.add(message);
    if (collector.matches.length > 0) this.#holding = true;
    if (collector.done) this.#readUntil = SEARCH_READ_AHEAD_FACTOR * this.#read;
    else if (this.#bytes > KEPT_SEARCH_BYTES) {
      // The lines up to the page's end alone pass the bound (a huge file, or many passed over): keep nothing.
      [this.#lost, this.#lines, this.#files] = [true, [], []];
    }
    return true;
  }

  /** What a later page can read from, or null (the page was the last, or nothing could be held). */
  kept(collector: MatchCollector, ends: boolean): KeptSearch | null {
    if (this.#lost || !this.#holding || !collector.capped) return null;
    const bytes = this.#bytes + 64 * this.#files.length;
    return { reported: this.options, lines: this.#lines, files: this.#files, ends, bytes };
  }
}

/**
 * The page at `options.after` replayed from `kept` (`done` if rg would have stopped early); null if `kept` misses it.
 * @example
 * ```ts
 * declare const kept: KeptSearch;
 * declare const options: import("./match_collector.ts").MatchCollectorOptions;
 * replayKept(kept, { ...options, after: { p: "src/b.ts", l: 1 } })?.matches;
 * ```
 */
export function replayKept(
  kept: KeptSearch,
  options: MatchCollectorOptions,
): MatchCollector | null {
  const after = options.after!;
  const { files, lines } = kept;
  if (files.length === 0 || treeOrder(after.p, files[0].path) < 0) return null;
  // Earlier files hold only matches before the page; past the last file, matches are counted as a new run would.
  const first = files.find((file) => treeOrder(file.path, after.p) >= 0) ?? files[files.length - 1];
  const collector = new MatchCollector(options);
  collector.beforePage = first.before;
  for (let i = first.at; i < lines.length && !collector.done; i++) collector.add(JSON.parse(lines[i]) as RgMessage);
  if (!collector.done && !kept.ends) return null;
  return collector;
}
