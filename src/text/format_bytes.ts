/**
 * A byte count for people: "812 B", "41.3 KiB", "8.1 MiB".
 * @example
 * ```ts
 * formatBytes(5 * 1024 * 1024); // "5.0 MiB"
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
