/**
 * The workspace of one server process, bound once: at start from the
 * command line, or — on stdio without `--workspace` or `CLAUDE_PROJECT_DIR`
 * — after initialize, from the client's roots or the working directory.
 * Until then tool calls wait here; refused, every tool but server_info answers
 * NO_WORKSPACE. The services (pinned root, sandbox, rg runner, command
 * registry) exist only once bound, so they always follow the chosen root.
 *
 * @example
 * ```ts
 * declare const options: OpenOptions; // the config, the machine's facts, the home directory
 * const binding = new WorkspaceBinding();
 * binding.settle(await openChoice({ dir: "/home/u/app", source: "flag" }, options));
 * await binding.wait(); // resolves at once now
 * ```
 */
import { ToolError } from "../errors.ts";
import type { Config } from "../config.ts";
import { createServices, type RuntimeFacts, type Services } from "../services.ts";
import type { WorkspaceChoice } from "../workspace/resolve.ts";
import { pinChoice, type Pinned, type Refusal } from "./pin.ts";

/** A bound workspace and the services built on it. */
export interface Bound extends Pinned {
  services: Services;
}

/** The binding of one process. */
export class WorkspaceBinding {
  #bound: Bound | null = null;
  #refusal: Refusal | null = null;
  readonly #settled = Promise.withResolvers<void>();
  #onFirstWait: (() => void) | null = null;

  /** Whether it is neither bound nor refused yet. */
  get pending(): boolean {
    return this.#bound === null && this.#refusal === null;
  }

  /** The workspace and services, or null while pending or when refused. */
  get bound(): Bound | null {
    return this.#bound;
  }

  /** Why there is no workspace, or null. */
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

  /** The bound workspace and services; throws {@linkcode noWorkspace}'s error otherwise. */
  require(): Bound {
    if (this.#bound) return this.#bound;
    throw this.noWorkspace();
  }

  /** Stops the bound services (shutdown). */
  async close(): Promise<void> {
    await this.#bound?.services.close();
  }
}

/** What opening a workspace needs besides the choice. */
export interface OpenOptions {
  config: Config;
  facts: RuntimeFacts;
  /** Real path of the user's home directory, or null when unknown. */
  home: string | null;
}

/**
 * Builds the services of a pinned workspace, or passes a refusal on.
 *
 * @example
 * ```ts
 * import type { Config } from "../config.ts";
 * import type { RuntimeFacts } from "../services.ts";
 * import { pinChoice } from "./pin.ts";
 *
 * declare const config: Config;
 * declare const facts: RuntimeFacts;
 * const binding = new WorkspaceBinding();
 * binding.settle(await withServices(await pinChoice({ dir: "/home/u/app", source: "flag" }, "/home/u"), config, facts));
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
 * Pins `choice` and builds its services, or says why it cannot be served
 * (./pin.ts).
 *
 * @example
 * ```ts
 * import type { Config } from "../config.ts";
 * import type { RuntimeFacts } from "../services.ts";
 *
 * declare const config: Config;
 * declare const facts: RuntimeFacts;
 * const binding = new WorkspaceBinding();
 * binding.settle(await openChoice({ dir: "/home/u/app", source: "roots" }, { config, facts, home: "/home/u" }));
 * ```
 */
export async function openChoice(choice: WorkspaceChoice, options: OpenOptions): Promise<Bound | Refusal> {
  return await withServices(await pinChoice(choice, options.home), options.config, options.facts);
}
