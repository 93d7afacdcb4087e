/**
 * A string seen as lines split on `\n` only, without splitting it: line starts are found once with native `indexOf`,
 * lines sliced out only when asked for (a 50 MB file costs one scan, not a million strings). The segment after the
 * last `\n` is a line too: "a\nb\n" has the lines "a", "b" and "".
 */
export class LineIndex {
  readonly text: string;
  readonly #starts: Uint32Array;
  #array: string[] | null = null;

  constructor(text: string) {
    this.text = text;
    let starts = new Uint32Array(1024);
    let count = 1;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
      if (count === starts.length) {
        const grown = new Uint32Array(starts.length * 2);
        grown.set(starts);
        starts = grown;
      }
      starts[count++] = at + 1;
    }
    this.#starts = starts.subarray(0, count);
  }

  start(i: number): number {
    return this.#starts[i];
  }

  lineAt(at: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.#starts[mid] <= at) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** Number of lines (at least 1: the empty string is one empty line). */
  get count(): number {
    return this.#starts.length;
  }

  /** Offset just past line `i` (before its `\n`). */
  #end(i: number): number {
    return i + 1 < this.#starts.length ? this.#starts[i + 1] - 1 : this.text.length;
  }

  line(i: number): string {
    return this.text.slice(this.#starts[i], this.#end(i));
  }

  /** Whether line `i` is exactly `value`, without slicing it out. */
  equals(i: number, value: string): boolean {
    const start = this.#starts[i];
    return this.#end(i) - start === value.length && this.text.startsWith(value, start);
  }

  /** Lines [from, to) joined with `\n` (no newline after the last one); requires from < to. */
  joined(from: number, to: number): string {
    return this.text.slice(this.#starts[from], this.#end(to - 1));
  }

  /** Lines [from, to) as text: each line followed by its `\n`, except the file's last line. */
  segment(from: number, to: number): string {
    if (from >= to) return "";
    const end = to < this.count ? this.#starts[to] : this.text.length;
    return this.text.slice(this.#starts[from], end);
  }

  /** Every line, split once and kept (for the tolerant passes and diagnostics). */
  all(): readonly string[] {
    this.#array ??= this.text.split("\n");
    return this.#array;
  }
}
