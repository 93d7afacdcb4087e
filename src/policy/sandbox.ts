/**
 * A Landlock sandbox: one Web Worker that restricted its own thread and
 * spawns every child of a policy from there, so pipes and PTY children alike
 * inherit the domain while the server's main thread stays unrestricted
 * (restricting the main thread breaks the server's own file and network use).
 *
 * @example
 * const sandbox = await Sandbox.start(landlockRuleset(7, { writable: [root, tmp], denyTcp: true }));
 * const pid = await sandbox.spawner({ argv: ["true"], env, cwd: root, stdio });
 * sandbox.close();
 */
import type { Spawner, SpawnRequest } from "../exec/spawn_request.ts";
import type { LandlockRuleset } from "./landlock.ts";
import type { SandboxReply, SandboxRequest } from "./sandbox_worker.ts";
import { resolveProgram } from "../exec/spawn.ts";
import { inOwnDomain } from "./command_domain.ts";

/** A spawn the worker refused or failed, with posix_spawnp's errno when there is one. */
export class SandboxSpawnError extends Error {
  constructor(message: string, readonly errno: number | null) {
    super(message);
    this.name = "SandboxSpawnError";
  }
}

/** One restricted worker serving spawn requests. */
export class Sandbox {
  readonly #worker: Worker;
  /** Perl that gives each command a nested, signal-scoped domain (command_domain.ts), or null. */
  readonly #perl: string | null;
  readonly #pending = new Map<number, { resolve(pid: number): void; reject(error: Error): void }>();
  #nextId = 1;
  /** Why the worker can no longer spawn (it crashed), or null. */
  #broken: string | null = null;

  private constructor(worker: Worker, perl: string | null) {
    this.#worker = worker;
    this.#perl = perl;
  }

  /** Whether every command gets a domain of its own (isolated from the worker thread and its siblings). */
  get commandsIsolated(): boolean {
    return this.#perl !== null;
  }

  /**
   * Starts the worker and waits until its thread is restricted; rejects with
   * the kernel's reason otherwise. With `perl` (ABI ≥ 6 only), each command
   * is started in a nested domain of its own.
   */
  static start(ruleset: LandlockRuleset, perl: string | null = null): Promise<Sandbox> {
    const worker = new Worker(new URL("./sandbox_worker.ts", import.meta.url), { type: "module" });
    const sandbox = new Sandbox(worker, perl);
    return new Promise((resolve, reject) => {
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`sandbox worker failed: ${event.message}`));
      };
      worker.onmessage = (event: MessageEvent<SandboxReply>) => {
        const reply = event.data;
        if (reply.kind === "restricted") {
          worker.onmessage = (next: MessageEvent<SandboxReply>) => sandbox.#settle(next.data);
          worker.onerror = (next) => {
            next.preventDefault();
            sandbox.#fail(`the sandbox worker crashed: ${next.message}`);
          };
          resolve(sandbox);
        } else if (reply.kind === "failed") {
          worker.terminate();
          reject(new Error(reply.message));
        }
      };
      worker.postMessage({ kind: "restrict", ruleset } satisfies SandboxRequest);
    });
  }

  #settle(reply: SandboxReply): void {
    if (reply.kind !== "spawned" && reply.kind !== "spawn_failed") return;
    const waiter = this.#pending.get(reply.id);
    this.#pending.delete(reply.id);
    if (reply.kind === "spawned") waiter?.resolve(reply.pid);
    else waiter?.reject(new SandboxSpawnError(reply.message, reply.errno));
  }

  /** Rejects every pending and future spawn: a broken sandbox never falls back to spawning unconfined. */
  #fail(reason: string): void {
    this.#broken = reason;
    for (const waiter of this.#pending.values()) waiter.reject(new SandboxSpawnError(reason, null));
    this.#pending.clear();
  }

  /** Spawns inside the sandbox; resolves with the child's pid. */
  readonly spawner: Spawner = (request: SpawnRequest) =>
    new Promise((resolve, reject) => {
      if (this.#broken !== null) return reject(new SandboxSpawnError(this.#broken, null));
      let spawn = request;
      if (this.#perl !== null) {
        try {
          spawn = {
            ...request,
            argv: inOwnDomain(this.#perl, resolveProgram(request.argv[0], request.env.PATH), request.argv),
          };
        } catch (error) {
          return reject(error); // the program is not on PATH: the runner reports COMMAND_NOT_FOUND
        }
      }
      const id = this.#nextId++;
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ kind: "spawn", id, request: spawn } satisfies SandboxRequest);
    });

  /** Stops the worker; running children keep running (the runner owns them). */
  close(): void {
    this.#fail("the sandbox was closed");
    this.#worker.terminate();
  }
}
