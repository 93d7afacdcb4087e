import { type FsOps, HANDLE_OPS } from "../src/patch/fs_ops.ts";

/**
 * HANDLE_OPS whose chosen call fails (a throw, or a rejection for an async call): the `at`-th (1-based) of all
 * calls, or of those made while the caller's {@linkcode phase} equals `phase`. Without a fault it only records.
 */
export class FaultyFs {
  phase = "";
  readonly calls: string[] = [];
  readonly counts = new Map<string, number>();
  readonly fs: FsOps;

  constructor(fault: { at: number; phase?: string } | null = null) {
    const ops: Record<string, unknown> = {};
    for (const [name, fn] of Object.entries(HANDLE_OPS)) {
      ops[name] = (...args: unknown[]) => {
        this.calls.push(name);
        const inPhase = (this.counts.get(this.phase) ?? 0) + 1;
        this.counts.set(this.phase, inPhase);
        const step = fault?.phase === undefined ? this.calls.length : inPhase;
        if (fault !== null && step === fault.at && (fault.phase === undefined || fault.phase === this.phase)) {
          const where = fault.phase === undefined ? `step ${step}` : `${fault.phase} step ${step}`;
          const error = new Error(`injected fault in ${name} (${where})`);
          if (fn.constructor.name === "AsyncFunction") return Promise.reject(error);
          throw error;
        }
        return (fn as (...a: unknown[]) => unknown)(...args);
      };
    }
    this.fs = ops as unknown as FsOps;
  }
}

/**
 * HANDLE_OPS that runs `act` once, right before the first call of `op` that `when` accepts.
 * @example
 * ```ts
 * const fs = interrupted("link", () => true, () => console.log("about to link"));
 * ```
 */
export function interrupted(op: keyof FsOps, when: (...args: unknown[]) => boolean, act: () => void): FsOps {
  let done = false;
  const call = (...args: unknown[]) => {
    if (!done && when(...args)) {
      done = true;
      act();
    }
    return (HANDLE_OPS[op] as (...a: unknown[]) => unknown)(...args);
  };
  return { ...HANDLE_OPS, [op]: call };
}
