/** The process's workspace, bound once: from the command line, or after initialize from the roots or the cwd. */
import { ToolError } from "../errors.ts";
import type { Config } from "../config.ts";
import { createServices, type RuntimeFacts, type Services } from "../services.ts";
import type { WorkspaceChoice } from "../workspace/resolve.ts";
import { pinChoice, type Pinned, type Refusal } from "./pin.ts";

/** A bound workspace and the services built on it (they exist only once bound, so they follow the chosen root). */
export interface Bound extends Pinned {
  services: Services;
}

/** The binding of one process. */
export class WorkspaceBinding {
  #bound: Bound | null = null;
  #refusal: Refusal | null = null;
  readonly #settled = Promise.withResolvers<void>();
  #onFirstWait: (() => void) | null = null;

  get pending(): boolean {
    return this.#bound === null && this.#refusal === null;
  }

  get bound(): Bound | null {
    return this.#bound;
  }

  get refusal(): Refusal | null {
    return this.#refusal;
  }

  /** Binds a workspace, or refuses; only the first call counts. */
  settle(outcome: Bound | Refusal): void {
    if (!this.pending) return;
    if ("workspace" in outcome) this.#bound = outcome;
    else this.#refusal = outcome;
    this.#settled.resolve();
  }

  /** Runs `start` when the first call waits on a pending binding (if initialize alone did not settle it). */
  onFirstWait(start: () => void): void {
    this.#onFirstWait = start;
  }

  /** Waits until bound or refused; a call cancelled by `signal` stops waiting. */
  async wait(signal?: AbortSignal): Promise<void> {
    if (!this.pending) return;
    const start = this.#onFirstWait;
    this.#onFirstWait = null;
    start?.();
    if (!signal) return await this.#settled.promise;
    const cancelled = Promise.withResolvers<void>();
    const onAbort = () => cancelled.resolve();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await Promise.race([this.#settled.promise, cancelled.promise]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** NO_WORKSPACE, saying why, while there is no workspace; null once bound. */
  noWorkspace(): ToolError | null {
    if (this.#bound) return null;
    return new ToolError(
      "NO_WORKSPACE",
      this.#refusal ? `no workspace: ${this.#refusal.reason}` : "no workspace yet: the client's roots are being asked",
      { details: { reason: this.#refusal?.reason ?? null } },
    );
  }

  require(): Bound {
    if (this.#bound) return this.#bound;
    throw this.noWorkspace();
  }

  async close(): Promise<void> {
    await this.#bound?.services.close();
  }
}

/**
 * Builds the services of a pinned workspace, or passes a refusal on.
 * @example
 * ```ts
 * import { pinChoice } from "./pin.ts";
 * declare const config: import("../config.ts").Config, facts: import("../services.ts").RuntimeFacts;
 * await withServices(pinChoice({ dir: "/home/u/app", source: "flag" }, null), config, facts);
 * ```
 */
export async function withServices(
  pinned: Pinned | Refusal,
  config: Config,
  facts: RuntimeFacts,
): Promise<Bound | Refusal> {
  if (!("workspace" in pinned)) return pinned;
  return { ...pinned, services: await createServices(config, pinned.workspace, facts) };
}

/**
 * Pins `choice` and builds its services, or says why it cannot be served (./pin.ts); `home` is the real path of the
 * user's home directory, or null when unknown.
 * @example
 * ```ts
 * declare const options: Parameters<typeof openChoice>[1];
 * new WorkspaceBinding().settle(await openChoice({ dir: "/home/u/app", source: "roots" }, options));
 * ```
 */
export async function openChoice(
  choice: WorkspaceChoice,
  options: { config: Config; facts: RuntimeFacts; home: string | null },
): Promise<Bound | Refusal> {
  return await withServices(await pinChoice(choice, options.home), options.config, options.facts);
}
