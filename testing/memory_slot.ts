import type { SnapshotSlot } from "../src/paging/snapshots.ts";

/** A snapshot slot (src/paging/snapshots.ts) in memory, counting reads that found a value and writes. */
export function memorySlot<T>(): SnapshotSlot<T> & { kept: T | undefined; reads: number; puts: number } {
  return {
    kept: undefined,
    reads: 0,
    puts: 0,
    get() {
      if (this.kept !== undefined) this.reads++;
      return this.kept;
    },
    put(value) {
      this.kept = value;
      this.puts++;
    },
  };
}
