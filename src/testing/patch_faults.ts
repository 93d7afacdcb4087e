/**
 * The fault-injection harness of the patch commit (src/patch/commit_test.ts,
 * commit_conflict_test.ts): file-system calls that fail at a chosen step, or
 * act on the tree right before a chosen call, and a count of the fds a
 * commit may have left open.
 *
 * @example
 * ```ts
 * const faults = new FaultyFs({ at: 3 }); // the third call fails
 * faults.phase = "pin"; // calls are counted per phase
 * ```
 */
import { type FsOps, HANDLE_OPS } from "../patch/fs_ops.ts";

/**
 * HANDLE_OPS whose chosen call fails (a throw, or a rejection for an async call): the `at`-th (1-based) of all
 * calls, or of those made while {@linkcode phase} equals `phase`. Without a fault it only records.
 *
 * @example
 * ```ts
 * import type { Handle } from "../workspace/handle.ts";
 *
 * const faults = new FaultyFs({ at: 1, phase: "stage" });
 * faults.phase = "stage";
 * declare const dir: Handle;
 * faults.fs.sync(dir).catch((error) => error.message); // "injected fault in sync (stage step 1)"
 * ```
 */
export class FaultyFs {
  /** The phase the caller is running (free text; counts are kept per value). */
  phase = "";
  /** Names of the calls made, in order. */
  readonly calls: string[] = [];
  /** Calls made in each phase. */
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
 *
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
