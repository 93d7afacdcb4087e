/**
 * The C allocator's one setting workcell changes: large blocks are mapped
 * on their own and unmapped when freed. glibc's default threshold moves up
 * to the size of each large block freed (up to 32 MiB), after which blocks
 * of that size come from its heaps and stay resident once freed: a
 * view_image's decoded bitmaps (18-24 MB, in a Web Worker's own arena) left
 * 30-60 MiB behind per view, the peak after five views of a 6000x4000 JPEG
 * 258-266 MiB, 223-225 with a fixed threshold (docs/performance.md).
 * ArrayBuffers' backing stores come from this allocator; V8's heap does not.
 *
 * @example
 * ```ts
 * mapLargeBlocksApart(); // once, at start
 * ```
 */
import { HOST_OS, libc } from "./libc.ts";

/** mallopt's parameter number for the mmap threshold (<malloc.h>). */
const M_MMAP_THRESHOLD = -3;

/**
 * Blocks from this size are mapped apart: above the 1 MiB read chunks of the reactor and the file reader (a
 * mapping per chunk would fault in every page of every chunk), below a decoded image (11-24 MB).
 */
export const MAP_APART_BYTES = 4 << 20;

/**
 * Fixes glibc's mmap threshold at {@linkcode MAP_APART_BYTES} (which also stops it moving). Returns whether the
 * setting was taken: false on darwin, whose allocator maps large blocks apart already, and on a C library that
 * refuses it.
 *
 * @example
 * ```ts
 * if (!mapLargeBlocksApart()) console.error("large blocks stay in the allocator's heaps");
 * ```
 */
export function mapLargeBlocksApart(): boolean {
  if (HOST_OS !== "linux") return false;
  return libc().mallopt(M_MMAP_THRESHOLD, MAP_APART_BYTES) === 1;
}
