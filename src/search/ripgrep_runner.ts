/**
 * Where rg runs for one server process: in the read-only sandbox
 * child_sandbox_plan.ts plans for it, started through the launcher at every run.
 * rg may read files and list directories only beneath the workspace root,
 * read the ignore files of the root's ancestors (src/policy/ignore_files.ts), execute
 * only itself (so `--pre` programs cannot start), write, create or remove
 * nothing (truncating is allowed in the workspace, see child_sandbox_plan.ts),
 * open no socket but a unix one, and it holds no capability. So a directory
 * swapped for a symlink to the outside while rg walks, at the root or any
 * depth, fails to open (EACCES) instead of redirecting the walk: nothing
 * outside is read, whatever happens to the paths.
 *
 * Without Landlock rg's reads are not confined by the kernel; its runs say
 * so (`confined: false`) and the callers fall back to checking the searched
 * path again afterwards (Handle.revalidate).
 *
 * @example
 * ```ts
 * import { Reactor } from "../os/reactor.ts";
 * import type { ChildSpawners } from "../policy/child_spawners.ts";
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import { locateRipgrep } from "./ripgrep_binary.ts";
 *
 * declare const children: ChildSpawners; // the server's, planned for this workspace
 * using ws = openWorkspace("/repo");
 * using root = ws.open(".", { expect: "dir" });
 * const runner = new RipgrepRunner({ rg: await locateRipgrep(), children, reactor: new Reactor() });
 * {
 *   await using rg = await runner.start({ args: ["--files", "--", "."], cwd: root.childCwd() });
 *   for await (const chunk of rg.chunks()) console.log(new TextDecoder().decode(chunk));
 * }
 * await runner.close();
 * ```
 */
import type { Reactor } from "../os/reactor.ts";
import type { ChildSpawners } from "../policy/child_spawners.ts";
import type { RipgrepBinary } from "./ripgrep_binary.ts";
import { type RipgrepLaunch, type RipgrepProcess, type RipgrepRequest, spawnRipgrep } from "./ripgrep.ts";

/** What the runner needs to know. */
export interface RipgrepRunnerOptions {
  /** The rg binary to execute (a file, or the compiled binary's memfd). */
  rg: Pick<RipgrepBinary, "path" | "fd">;
  /** The children of the workspace rg may read (its sandbox is planned there). */
  children: ChildSpawners;
  reactor: Reactor;
}

/** Starts every rg of the process. */
export class RipgrepRunner {
  readonly #options: RipgrepRunnerOptions;
  #launch: Promise<RipgrepLaunch> | null = null;
  readonly #running = new Set<RipgrepProcess>();
  #closed = false;

  constructor(options: RipgrepRunnerOptions) {
    this.#options = options;
  }

  /**
   * Starts rg (see {@linkcode spawnRipgrep}).
   *
   * @example
   * ```ts
   * declare const runner: RipgrepRunner;
   * declare const cwd: string; // the childCwd() of the directory rg starts in
   * await using rg = await runner.start({ args: ["--json", "-e", "x", "--", "."], cwd });
   * const outcome = await rg.finish(); // outcome.code: 0 found, 1 nothing found
   * ```
   */
  async start(request: RipgrepRequest): Promise<RipgrepProcess> {
    if (this.#closed) throw new Error("the ripgrep runner is closed");
    this.#launch ??= this.#prepare();
    const rg = await spawnRipgrep(await this.#launch, request);
    this.#running.add(rg);
    rg.ended.then(() => this.#running.delete(rg));
    return rg;
  }

  async #prepare(): Promise<RipgrepLaunch> {
    const { rg, children, reactor } = this.#options;
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
