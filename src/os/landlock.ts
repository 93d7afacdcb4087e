/** Landlock's kernel interface as plain data: src/policy/ decides; sandbox_script.ts makes rulesets system calls. */

/** Filesystem access rights (landlock.h). */
export const ACCESS_FS = {
  EXECUTE: 1n << 0n,
  WRITE_FILE: 1n << 1n,
  READ_FILE: 1n << 2n,
  READ_DIR: 1n << 3n,
  REMOVE_DIR: 1n << 4n,
  REMOVE_FILE: 1n << 5n,
  MAKE_CHAR: 1n << 6n,
  MAKE_DIR: 1n << 7n,
  MAKE_REG: 1n << 8n,
  MAKE_SOCK: 1n << 9n,
  MAKE_FIFO: 1n << 10n,
  MAKE_BLOCK: 1n << 11n,
  MAKE_SYM: 1n << 12n,
  /** ABI 2. */
  REFER: 1n << 13n,
  /** ABI 3. */
  TRUNCATE: 1n << 14n,
} as const;

/** Rights that apply to a file that is not a directory; a rule on such a file may grant only these. */
export const FILE_ACCESS = ACCESS_FS.EXECUTE | ACCESS_FS.WRITE_FILE | ACCESS_FS.READ_FILE | ACCESS_FS.TRUNCATE;

/** Network access rights (ABI 4). */
export const ACCESS_NET = { BIND_TCP: 1n << 0n, CONNECT_TCP: 1n << 1n } as const;
/** Scopes (ABI 6). */
export const SCOPE = { ABSTRACT_UNIX_SOCKET: 1n << 0n, SIGNAL: 1n << 1n } as const;

/** First ABI with each feature. */
export const LANDLOCK_FEATURE_ABI = { refer: 2, truncate: 3, network: 4, scope: 6 } as const;

/** A ruleset ready for the kernel. */
export interface LandlockRuleset {
  abi: number;
  handledFs: bigint;
  handledNet: bigint;
  scoped: bigint;
  rules: LandlockRule[];
}

/** One path_beneath rule. */
export interface LandlockRule {
  path: string;
  access: bigint;
}

/** sizeof(struct landlock_ruleset_attr) per ABI: fs only (1–3), + net (4–5), + scoped (6+). */
export function rulesetAttrBytes(abi: number): number {
  return abi >= LANDLOCK_FEATURE_ABI.scope ? 24 : abi >= LANDLOCK_FEATURE_ABI.network ? 16 : 8;
}

/** Every write right the ABI knows (creating, writing, truncating, removing, renaming, linking). */
export function allWriteRights(abi: number): bigint {
  let rights = ACCESS_FS.WRITE_FILE | ACCESS_FS.REMOVE_DIR | ACCESS_FS.REMOVE_FILE | ACCESS_FS.MAKE_CHAR |
    ACCESS_FS.MAKE_DIR | ACCESS_FS.MAKE_REG | ACCESS_FS.MAKE_SOCK | ACCESS_FS.MAKE_FIFO | ACCESS_FS.MAKE_BLOCK |
    ACCESS_FS.MAKE_SYM;
  if (abi >= LANDLOCK_FEATURE_ABI.refer) rights |= ACCESS_FS.REFER;
  if (abi >= LANDLOCK_FEATURE_ABI.truncate) rights |= ACCESS_FS.TRUNCATE;
  return rights;
}
