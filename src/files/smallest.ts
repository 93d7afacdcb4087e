/** Keeps the `k` smallest strings of a stream (code-unit order) in a bounded max-heap: no sort of every path needed. */
export class Smallest {
  readonly #heap: string[] = [];

  constructor(private readonly k: number) {}

  offer(value: string): void {
    const heap = this.#heap;
    if (heap.length < this.k) {
      heap.push(value);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent] >= value) break;
        heap[i] = heap[parent];
        i = parent;
      }
      heap[i] = value;
    } else if (this.k > 0 && value < heap[0]) {
      let i = 0;
      while (true) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const right = left + 1;
        const child = right < heap.length && heap[right] > heap[left] ? right : left;
        if (heap[child] <= value) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = value;
    }
  }

  /** The kept strings, smallest first. */
  sorted(): string[] {
    return [...this.#heap].sort();
  }
}
