/**
 * SIGINT and SIGTERM from the first moment (main.ts): a stdio client's initialize is answered before the server loads,
 * so a signal can come first. Until the server sets its shutdown a signal exits 0 at once; afterwards it runs it, once.
 */
export class Termination {
  #shutdown: () => Promise<void> = () => Promise.resolve(Deno.exit(0));
  #started = false;

  constructor() {
    const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"]; // main.ts refuses every system but Linux and macOS
    for (const signal of signals) Deno.addSignalListener(signal, () => void this.run());
  }

  /** What a signal (or {@linkcode run}) does from now on. */
  set(shutdown: () => Promise<void>): void {
    this.#shutdown = shutdown;
  }

  /** Runs the shutdown, the first time only. */
  async run(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#shutdown();
  }
}
