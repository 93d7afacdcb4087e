/**
 * A snapshot slot holding one value in memory, as a session's snapshots
 * would (src/paging/snapshots.ts), counting how often it was read (while
 * holding a value) and written, for the tests of the modules that keep
 * their first page's work.
 *
 * @example
 * ```ts
 * const slot = memorySlot<string[]>();
 * slot.put(["a.ts"]);
 * slot.get(); // ["a.ts"]; slot.reads is 1, slot.puts 1
 * ```
 */
import type { SnapshotSlot } from "../paging/snapshots.ts";

/** A slot in memory with its counts. */
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
