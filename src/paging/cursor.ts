import type { z } from "../zod.ts";
import { ToolError } from "../errors.ts";
import { fitCount, jsonChars } from "./budget.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** JSON with object keys sorted, so equal arguments give equal text whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Two 32-bit FNV-1a hashes (different offsets) of the UTF-8 bytes, as 16 hex digits. */
function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (const byte of encoder.encode(text)) {
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/**
 * The key a cursor is bound to: a hash of `args` without `cursor` and the `pageArgs`.
 * @example
 * ```ts
 * queryKey({ glob: "*.ts", limit: 10 }, ["limit"]) === queryKey({ glob: "*.ts", limit: 99 }, ["limit"]); // true
 * ```
 */
export function queryKey(args: Readonly<Record<string, unknown>>, pageArgs: readonly string[]): string {
  const query = Object.entries(args).filter(([name]) => name !== "cursor" && !pageArgs.includes(name));
  return hash(canonical(Object.fromEntries(query)));
}

const REUSE_HINT = "A cursor continues only the call it came from: repeat that call's arguments with it " +
  "(the text's last line, next: …, is that call), or leave cursor out to start from the beginning.";

function invalid(message: string): ToolError {
  return new ToolError("INVALID_ARGUMENT", message, { hint: REUSE_HINT, details: { field: "cursor" } });
}

/** What a domain module needs to page: where the call resumes, and how to encode the next resume point. */
export interface PageRequest<P> {
  /** The position the call continues after; null on a first page. */
  after: P | null;
  encode(position: P): string;
  /** Bound on the characters of the page's JSON (see dataBudget). */
  maxChars: number;
}

/** A page of a paged tool: its data, and the cursor that continues after the first `shown` of its items. */
export interface Paged<D> {
  data: D;
  /** How many items of the whole sequence come before this page's first. */
  start: number;
  /** Null when nothing follows those items; `cursorAfter(all items)` is the page's own next_cursor. */
  cursorAfter(shown: number): string | null;
}

/**
 * The cursors of one call of a paged tool: base64url JSON of the tool, a hash of the call's arguments (without the
 * cursor and page-size ones, which may change between pages) and a position; refused with other arguments.
 */
export class Cursors {
  readonly #key: string;
  readonly #given: string | undefined;

  /** `args` are the call's parsed arguments (defaults applied), `cursor` among them when given. */
  constructor(private readonly tool: string, args: Readonly<Record<string, unknown>>, pageArgs: readonly string[]) {
    this.#key = queryKey(args, pageArgs);
    this.#given = typeof args.cursor === "string" ? args.cursor : undefined;
  }

  /** The query this call's cursors are bound to, e.g. to find what its first page kept (src/paging/snapshots.ts). */
  get query(): string {
    return `${this.tool}:${this.#key}`;
  }

  /** The cursor's position checked against `shape`, or null; INVALID_ARGUMENT if malformed or from another query. */
  position<S extends z.ZodType>(shape: S): z.infer<S> | null {
    if (this.#given === undefined) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(Uint8Array.fromBase64(this.#given, { alphabet: "base64url" })));
    } catch {
      throw invalid("cursor is not a cursor this server issued");
    }
    const { t, q, p } = (parsed ?? {}) as { t?: unknown; q?: unknown; p?: unknown };
    if (t !== this.tool) {
      throw invalid(`cursor belongs to ${typeof t === "string" ? t : "another tool"}, not ${this.tool}`);
    }
    if (q !== this.#key) throw invalid("cursor was issued for a call with other arguments");
    const position = shape.safeParse(p);
    if (!position.success) throw invalid("cursor is not a cursor this server issued");
    return position.data;
  }

  request<S extends z.ZodType>(shape: S, maxChars: number): PageRequest<z.infer<S>> {
    return { after: this.position(shape), encode: (position) => this.encode(position), maxChars };
  }

  encode(position: unknown): string {
    const json = JSON.stringify({ t: this.tool, q: this.#key, p: position });
    return encoder.encode(json).toBase64({ alphabet: "base64url", omitPadding: true });
  }
}

/**
 * Characters the cursor resuming at `position` adds to a page over the `null` it replaces (for fitCount).
 * @example
 * ```ts
 * resumeChars({ encode: JSON.stringify }, { p: "src/a.ts" }); // 18
 * ```
 */
export function resumeChars<P>(request: Pick<PageRequest<P>, "encode">, position: P): number {
  return JSON.stringify(request.encode(position)).length - "null".length;
}

/** How {@linkcode fitPage} builds a page. */
export interface PageOf<T, P, D> {
  more: boolean;
  start: number;
  positionAfter(item: T, index: number): P;
  /** The page's data holding `items`; its `truncated` and `next_cursor` are set by fitPage. */
  build(items: T[], truncated: boolean): D;
  /** Characters the data takes beyond `build([], false)` whatever the items (e.g. digits that grow). */
  extraChars?: number;
  /** Characters an item adds to the data outside its own JSON (see FitOptions.besides). */
  besides?: (item: T, index: number) => number;
}

/**
 * A page of the leading `candidates` that fit `request.maxChars` (see fitCount), with its `truncated`, `next_cursor`,
 * and the cursor after any number of its items (for a text that shows fewer).
 * @example
 * ```ts
 * declare const request: PageRequest<{ p: string }>;
 * const build = (files: string[]) => ({ files, truncated: false, next_cursor: null });
 * fitPage(["a.ts", "b.ts"], request, { more: false, start: 0, positionAfter: (p) => ({ p }), build });
 * ```
 */
export function fitPage<T, P, D extends { truncated: boolean; next_cursor: string | null }>(
  candidates: readonly T[],
  request: PageRequest<P>,
  options: PageOf<T, P, D>,
): Paged<D> {
  const count = fitCount(candidates, request.maxChars, {
    fixed: jsonChars(options.build([], false)) + (options.extraChars ?? 0),
    more: options.more,
    resume: (item, i) => resumeChars(request, options.positionAfter(item, i)),
    besides: options.besides,
  });
  const kept = candidates.slice(0, count);
  const truncated = options.more || count < candidates.length;
  const cursorAfter = (shown: number) =>
    shown > 0 && (shown < count || truncated)
      ? request.encode(options.positionAfter(kept[shown - 1], shown - 1))
      : null;
  return {
    data: { ...options.build(kept, truncated), truncated, next_cursor: cursorAfter(count) },
    start: options.start,
    cursorAfter,
  };
}
