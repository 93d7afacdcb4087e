/**
 * Splits a byte stream into separator-terminated records as chunks arrive,
 * keeping at most a bounded prefix of each record, so a huge field (a
 * commit body, a blamed line) never grows memory.
 *
 * @example
 * const split = new RecordSplitter(0, 4096, (record, cut) => { fields.push(record); });
 * split.push(chunk);
 * split.end(); // delivers a final record that had no separator
 */

/** Streaming record splitter with a per-record byte cap. */
export class RecordSplitter {
  #parts: Uint8Array[] = [];
  #kept = 0;
  #cut = false;

  constructor(
    private readonly separator: number,
    private readonly maxRecordBytes: number,
    private readonly onRecord: (record: Uint8Array, cut: boolean) => void,
  ) {}

  /** Feeds a chunk; complete records go to the consumer at once. */
  push(chunk: Uint8Array): void {
    let start = 0;
    while (true) {
      const end = chunk.indexOf(this.separator, start);
      if (end === -1) {
        this.#keep(chunk.subarray(start));
        return;
      }
      this.#keep(chunk.subarray(start, end));
      this.#flush();
      start = end + 1;
    }
  }

  /** Delivers what is left without a final separator, if anything. */
  end(): void {
    if (this.#kept > 0 || this.#cut) this.#flush();
  }

  #keep(bytes: Uint8Array): void {
    const room = this.maxRecordBytes - this.#kept;
    if (bytes.length > room) this.#cut = true;
    const part = bytes.subarray(0, Math.max(0, room));
    if (part.length === 0) return;
    // A view, not a copy: stream chunks are never reused.
    this.#parts.push(part);
    this.#kept += part.length;
  }

  #flush(): void {
    const record = this.#parts.length === 1 ? this.#parts[0] : new Uint8Array(this.#kept);
    if (this.#parts.length > 1) {
      let at = 0;
      for (const part of this.#parts) {
        record.set(part, at);
        at += part.length;
      }
    }
    const cut = this.#cut;
    this.#parts = [];
    this.#kept = 0;
    this.#cut = false;
    this.onRecord(record, cut);
  }
}

const decoder = new TextDecoder();

/**
 * Decodes a record as UTF-8; a record that was cut drops the partial
 * character at its end instead of showing a replacement character.
 *
 * @example
 * decodeRecord(new Uint8Array([0x61, 0xc3]), true); // "a"
 */
export function decodeRecord(bytes: Uint8Array, cut: boolean): string {
  let end = bytes.length;
  if (cut) {
    let lead = end - 1;
    while (lead > 0 && (bytes[lead] & 0xc0) === 0x80) lead--;
    const byte = bytes[lead] ?? 0;
    const width = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (lead + width > end) end = lead;
  }
  return decoder.decode(bytes.subarray(0, end));
}
