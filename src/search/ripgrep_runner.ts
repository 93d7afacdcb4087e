/**
 * Where rg runs for one server process: inside a read-only Landlock sandbox
 * when the kernel has Landlock, started once on the first search. The
 * sandbox's worker thread restricts itself (sandbox.ts) with
 * {@linkcode readOnlyRuleset}: rg may read files and list directories only
 * beneath the workspace root, read the ignore files of the root's ancestors
 * (ignore_files.ts), execute only itself, and write, create or remove nothing
 * (truncating is allowed in the workspace, see readOnlyRuleset). So a directory
 * swapped for a symlink to the outside while rg walks, at the root or any
 * depth, fails to open (EACCES) instead of redirecting the walk: nothing
 * outside is read, whatever happens to the paths.
 *
 * Without Landlock rg is spawned unconfined from the main thread; its runs
 * say so (`confined: false`) and the callers fall back to checking the
 * searched path again afterwards (still_confined.ts).
 *
 * @example
 * const runner = new RipgrepRunner({ rgPath, root: ws.root, landlock: probeLandlock() });
 * await using rg = await runner.start({ args: ["--files", "--", "."], dir: dirFd });
 * await runner.close();
 */
import { Reactor } from "../exec/reactor.ts";
import { directSpawner } from "../exec/spawn.ts";
import type { LandlockProbe } from "../policy/landlock_probe.ts";
import { readOnlyRuleset } from "../policy/landlock.ts";
import { Sandbox } from "../policy/sandbox.ts";
import { ancestorIgnoreFiles } from "./ignore_files.ts";
import { type RipgrepLaunch, type RipgrepProcess, type RipgrepRequest, spawnRipgrep } from "./ripgrep.ts";

/** What the runner needs to know. */
export interface RipgrepRunnerOptions {
  /** The rg binary to execute (a file, or `/proc/self/fd/N` of the compiled binary's memfd). */
  rgPath: string;
  /** The workspace root (real path): the only tree rg may read. */
  root: string;
  landlock: LandlockProbe;
}

/**
 * The executables rg needs a Landlock rule for. A memfd (`/proc/self/fd/N` of the compiled binary) is left
 * out: it lives on the kernel's internal shmem mount, which takes no rule (add_rule says EBADFD) and which
 * Landlock never restricts.
 *
 * @example
 * rgExecutables("/proc/self/fd/7"); // []
 */
export function rgExecutables(rgPath: string): string[] {
  return rgPath.startsWith("/proc/self/fd/") ? [] : [rgPath];
}

/** Starts every rg of the process; owns the sandbox and the reactor their pipes are read through. */
export class RipgrepRunner {
  readonly #options: RipgrepRunnerOptions;
  readonly #reactor = new Reactor();
  #launch: Promise<RipgrepLaunch> | null = null;
  #sandbox: Sandbox | null = null;
  readonly #running = new Set<RipgrepProcess>();
  #closed = false;

  constructor(options: RipgrepRunnerOptions) {
    this.#options = options;
  }

  /**
   * Starts rg (see {@linkcode spawnRipgrep}); the first call starts the sandbox (about 40-60 ms).
   *
   * @example
   * await using rg = await runner.start({ args: ["--json", "-e", "x", "--", "."], dir: dirFd });
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
    const { rgPath, root, landlock } = this.#options;
    const launch = { rgPath, reactor: this.#reactor };
    if (landlock.abi === null) return { ...launch, spawner: directSpawner, confined: false };
    const ruleset = readOnlyRuleset(landlock.abi, {
      readable: root,
      executables: rgExecutables(rgPath),
      readableFiles: ancestorIgnoreFiles(root),
    });
    try {
      const sandbox = await Sandbox.start(ruleset);
      if (this.#closed) sandbox.close();
      else this.#sandbox = sandbox;
      return { ...launch, spawner: sandbox.spawner, confined: true };
    } catch (error) {
      // As without Landlock: the callers fall back to their path check. Said once, as exec's sandbox does.
      console.error(
        `workcell: WARNING: list_files and search_text run rg unconfined: the read-only Landlock sandbox ` +
          `could not start: ${(error as Error).message}`,
      );
      return { ...launch, spawner: directSpawner, confined: false };
    }
  }

  /** Kills the rg runs still going and stops the sandbox; called once at shutdown. */
  async close(): Promise<void> {
    this.#closed = true;
    const running = [...this.#running];
    for (const rg of running) rg.kill();
    await Promise.all(running.map((rg) => rg.ended));
    this.#sandbox?.close();
    this.#sandbox = null;
  }
}
