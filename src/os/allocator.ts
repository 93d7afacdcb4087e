/**
 * glibc's mmap threshold otherwise rises to each large block freed (to 32 MiB), and blocks that size then stay resident
 * once freed: view_image's bitmaps (ArrayBuffers come from this allocator) left 30-60 MiB a view (docs/performance.md).
 */
import { HOST_OS, libc } from "./libc.ts";

const M_MMAP_THRESHOLD = -3;

/** Above the 1 MiB read chunks (a mapping per chunk would fault in every page), below a decoded image (11-24 MB). */
export const MAP_APART_BYTES = 4 << 20;

/**
 * Fixes glibc's mmap threshold at MAP_APART_BYTES, so it stops moving; false on darwin (maps apart already) or refused.
 * @example
 * ```ts
 * mapLargeBlocksApart();
 * ```
 */
export function mapLargeBlocksApart(): boolean {
  if (HOST_OS !== "linux") return false;
  return libc().mallopt(M_MMAP_THRESHOLD, MAP_APART_BYTES) === 1;
}
