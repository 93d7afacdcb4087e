/**
 * Block-device and file-system tools (dd, mkfs*, fdisk, mount, swapoff, …),
 * refused whatever their arguments: what they write the workspace sandbox
 * cannot hold back, and files are copied with cp or head.
 *
 * @example
 * ```ts
 * DISK.covers("mkfs.ext4"); // true
 * ```
 */
import { type Call, refusedProgram } from "../gate_findings.ts";
import type { CorpusEntry } from "../gate_corpus.ts";
import type { ProgramRules } from "./program.ts";

const DISK_TOOLS = new Set([
  "dd",
  "fdisk",
  "sfdisk",
  "gdisk",
  "cfdisk",
  "parted",
  "wipefs",
  "blkdiscard",
  "hdparm",
  "losetup",
  "mount",
  "umount",
  "swapon",
  "swapoff",
  "mkswap",
  "cryptsetup",
  "dmsetup",
  "lvremove",
  "vgremove",
  "pvremove",
]);

/**
 * The disk tools.
 *
 * @example
 * ```ts
 * DISK.covers("dd"); // true
 * ```
 */
export const DISK: ProgramRules = {
  covers: (name) => DISK_TOOLS.has(name) || /^(mkfs|mke2fs|mkdosfs)/.test(name),
  check: ({ program }: Call) => [refusedProgram("destructive.disk", program)],
  examples: {
    refused: [["mkfs.vfat /dev/sdb1", "destructive.disk"], ["umount /mnt", "destructive.disk"]],
    allowed: ["mkdir x"],
  },
};

/**
 * The corpus rows of the disk tools (src/policy/gate_corpus.ts).
 *
 * @example
 * ```ts
 * CORPUS.filter(([, safe]) => safe === null).length; // the rows safe mode lets run
 * ```
 */
export const CORPUS: CorpusEntry[] = [
  ["dd if=/dev/zero of=/dev/sda", "destructive.disk", "destructive.disk"],
  ["dd if=src/a.ts of=b", "destructive.disk", "destructive.disk"],
  ["mkfs.ext4 /dev/sda1", "destructive.disk", "destructive.disk"],
  ["fdisk /dev/sda", "destructive.disk", "destructive.disk"],
  ["wipefs -a /dev/sda", "destructive.disk", "destructive.disk"],
  ["mount /dev/sda1 /mnt", "destructive.disk", "destructive.disk"],
];
