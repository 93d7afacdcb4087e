/**
 * Where rg runs: in the read-only sandbox src/policy/child_sandbox_plan.ts plans for it. rg reads only beneath the
 * workspace root (and its ancestors' ignore files), executes only itself (no `--pre`), creates or removes nothing (it
 * may truncate in the workspace) and opens no socket but a unix one, so a directory swapped for a symlink to the
 * outside mid-walk fails to open (EACCES). Without Landlock runs say `confined: false`; callers use Handle.revalidate.
 */
import type { Reactor } from "../os/reactor.ts";
import type { ChildSpawners } from "../policy/child_spawners.ts";
import type { RipgrepBinary } from "./ripgrep_binary.ts";
import { type RipgrepLaunch, type RipgrepProcess, type RipgrepRequest, spawnRipgrep } from "./ripgrep.ts";

/** What the runner needs to know. */
export interface RipgrepRunnerOptions {
  rg: Pick<RipgrepBinary, "path" | "fd">;
  /** The children of the workspace rg may read (its sandbox is planned there). */
  children: ChildSpawners;
  reactor: Reactor;
}

/** Starts every rg of the process. */
export class RipgrepRunner {
  #launch: Promise<RipgrepLaunch> | null = null;
  readonly #running = new Set<RipgrepProcess>();
  #closed = false;

  constructor(private readonly options: RipgrepRunnerOptions) {}

  /** Starts rg (see spawnRipgrep). */
  async start(request: RipgrepRequest): Promise<RipgrepProcess> {
    if (this.#closed) throw new Error("the ripgrep runner is closed");
    this.#launch ??= this.#prepare();
    const rg = await spawnRipgrep(await this.#launch, request);
    this.#running.add(rg);
    rg.ended.then(() => this.#running.delete(rg));
    return rg;
  }

  async #prepare(): Promise<RipgrepLaunch> {
    const { rg, children, reactor } = this.options;
    return {
      rgPath: rg.path,
      rgFd: rg.fd ?? undefined,
      spawner: children.ripgrepSpawner(),
      reactor,
      confined: await children.ripgrepConfined(),
    };
  }

  /** Kills the rg runs still going; called once at shutdown. */
  async close(): Promise<void> {
    this.#closed = true;
    const running = [...this.#running];
    for (const rg of running) rg.kill();
    await Promise.all(running.map((rg) => rg.ended));
  }
}
