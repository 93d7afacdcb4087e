/** Runs async tasks one at a time, in call order, so parallel views never hold several decoded images at once. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled; resolves or rejects as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }
}
