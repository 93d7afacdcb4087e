import { assertEquals } from "../../testing/assert.ts";
import {
  machineDirtyBytes,
  SYNCFS_MAX_DIRTY_BYTES,
  SYNCFS_MIN_FILES,
  syncfsReportsErrors,
  syncStrategy,
} from "./durability.ts";

Deno.test("syncfs reports writeback errors from Linux 5.8 on; a release it cannot read counts as older", () => {
  const cases: [string, boolean][] = [
    ["5.7.19", false],
    ["5.8.0", true],
    ["5.10.0-28-amd64", true],
    ["4.19.0", false],
    ["6.18.44-fc-v1147", true],
    ["10.0", true],
    ["", false],
    ["linux", false],
  ];
  for (const [release, expected] of cases) assertEquals(syncfsReportsErrors(release), expected, release);
});

Deno.test("syncfs only for a large patch, on a backend and kernel that have it and report its errors, with little else to write", () => {
  const quiet = { release: "6.1.0", dirtyBytes: () => 1024 };
  const fd = (files: number) => ({ files, syncsFileSystem: true });
  assertEquals(syncStrategy(fd(SYNCFS_MIN_FILES - 1), quiet), "fsync");
  assertEquals(syncStrategy(fd(SYNCFS_MIN_FILES), quiet), "syncfs");
  assertEquals(syncStrategy({ files: 1000, syncsFileSystem: false }, quiet), "fsync");
  assertEquals(syncStrategy({ files: 2, syncsFileSystem: false }, { ...quiet, syncfsMinFiles: 1 }), "fsync");
  assertEquals(syncStrategy(fd(1000), { ...quiet, release: "5.4.0" }), "fsync");
  assertEquals(syncStrategy(fd(1000), { ...quiet, dirtyBytes: () => SYNCFS_MAX_DIRTY_BYTES }), "syncfs");
  assertEquals(syncStrategy(fd(1000), { ...quiet, dirtyBytes: () => SYNCFS_MAX_DIRTY_BYTES + 1 }), "fsync");
  assertEquals(syncStrategy(fd(1000), { ...quiet, dirtyBytes: () => null }), "fsync");
  assertEquals(syncStrategy(fd(2), { ...quiet, syncfsMinFiles: 1 }), "syncfs");
});

Deno.test("machineDirtyBytes reads Dirty + Writeback of /proc/meminfo", () => {
  const bytes = machineDirtyBytes();
  assertEquals(bytes === null || (Number.isSafeInteger(bytes) && bytes >= 0 && bytes % 1024 === 0), true, `${bytes}`);
});
