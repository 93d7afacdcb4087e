/**
 * The largest JSON-RPC message a stdio session accepts, shared by the
 * transport that refuses longer lines (./stdio.ts), the reader that stops
 * keeping a longer line for a hand-off (./fd_input.ts) and the early
 * initialize that stops looking for one (src/session/early_initialize.ts).
 *
 * @example
 * if (lineBytes > MAX_MESSAGE_BYTES) refuse();
 */

/** Largest message accepted, in bytes; a longer line is skipped and refused. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
