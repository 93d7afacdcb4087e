import type { Handle } from "../workspace/handle.ts";

/** Directory handles kept open at once. */
export const DIR_HANDLES_KEPT = 64;

/** Directories beneath `top` by relative path, opened without following a symlink, at most DIR_HANDLES_KEPT open. */
export class BeneathDirs implements Disposable {
  readonly #open = new Map<string, Handle | null>();

  constructor(private readonly top: Handle) {}

  /** The directory at `rel`, or null when it cannot be opened as one (gone, or swapped for a symlink). */
  get(rel: string): Handle | null {
    if (rel === ".") return this.top;
    let handle = this.#open.get(rel);
    if (handle !== undefined) return handle;
    try {
      handle = this.top.openBeneath(rel, "dir");
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
