/**
 * Splits a byte stream into separator-terminated records as chunks arrive (UTF-8, invalid bytes replaced, characters
 * split across chunks kept whole), each capped in UTF-16 code units so a huge field never grows memory.
 */
export class RecordSplitter {
  readonly #decoder = new TextDecoder();
  #pending = "";
  #cut = false;

  constructor(
    private readonly separator: string,
    private readonly maxRecordChars: number,
    private readonly onRecord: (record: string, cut: boolean) => void,
  ) {}

  push(chunk: Uint8Array): void {
    this.#text(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Delivers what is left without a final separator, if anything. */
  end(): void {
    this.#text(this.#decoder.decode());
    if (this.#pending.length > 0 || this.#cut) this.#emit("");
  }

  #text(text: string): void {
    const records = text.split(this.separator);
    const rest = records.pop()!;
    for (const record of records) this.#emit(record);
    // The start of a record still arriving: kept up to the cap.
    if (this.#cut || rest.length === 0) return;
    this.#pending += rest;
    if (this.#pending.length > this.maxRecordChars) {
      this.#pending = cap(this.#pending, this.maxRecordChars);
      this.#cut = true;
    }
  }

  #emit(last: string): void {
    let record = this.#pending.length > 0 ? this.#pending + (this.#cut ? "" : last) : last;
    let cut = this.#cut;
    if (record.length > this.maxRecordChars) {
      record = cap(record, this.maxRecordChars);
      cut = true;
    }
    this.#pending = "";
    this.#cut = false;
    this.onRecord(record, cut);
  }
}

/** The first `max` code units of `text`, without a dangling half of a surrogate pair. */
function cap(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
