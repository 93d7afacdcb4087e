/** Largest stdio message in bytes: ./stdio.ts refuses longer lines, src/session/early_initialize.ts stops there. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
