/**
 * The largest JSON-RPC message a stdio session accepts, shared by the
 * transport that refuses longer lines (./stdio.ts) and the early
 * initialize that stops looking for one (src/session/early_initialize.ts).
 *
 * @example
 * ```ts
 * declare const line: Uint8Array;
 * if (line.length > MAX_MESSAGE_BYTES) throw new Error(`a message over ${MAX_MESSAGE_BYTES} bytes`);
 * ```
 */

/** Largest message accepted, in bytes; a longer line is skipped and refused. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
