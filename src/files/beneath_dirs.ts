/**
 * The directories of listed entries, opened beneath the listed directory
 * by their relative path without following a symlink, and kept open for
 * the next entries of the same directories: at most
 * {@linkcode DIR_HANDLES_KEPT} at once, the oldest closed first, so a page
 * of entries spread over many directories never holds an fd for each.
 * A directory that cannot be opened (gone, or swapped for a symlink) is
 * null: its entries cannot be stat'ed, rather than stat'ed outside.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 *
 * const ws = openWorkspace("/repo");
 * using top = ws.open("src", { expect: "dir" });
 * using dirs = new BeneathDirs(top);
 * dirs.get("lib/util")?.statEntry("a.ts").size;
 * ```
 */
import type { Handle } from "../workspace/handle.ts";

/** Directory handles kept open at once. */
export const DIR_HANDLES_KEPT = 64;

/** Directories beneath `top` by their path relative to it ("." is `top` itself, never closed here). */
export class BeneathDirs implements Disposable {
  readonly #top: Handle;
  readonly #open = new Map<string, Handle | null>();

  constructor(top: Handle) {
    this.#top = top;
  }

  /** The directory at `rel` below the top one, or null when it cannot be opened as a directory. */
  get(rel: string): Handle | null {
    if (rel === ".") return this.#top;
    let handle = this.#open.get(rel);
    if (handle !== undefined) return handle;
    try {
      handle = this.#top.openBeneath(rel, "dir");
    } catch {
      handle = null;
    }
    if (this.#open.size >= DIR_HANDLES_KEPT) {
      const [oldest, old] = this.#open.entries().next().value!;
      this.#open.delete(oldest);
      old?.[Symbol.dispose]();
    }
    this.#open.set(rel, handle);
    return handle;
  }

  [Symbol.dispose](): void {
    for (const handle of this.#open.values()) handle?.[Symbol.dispose]();
    this.#open.clear();
  }
}
