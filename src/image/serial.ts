/**
 * A queue that runs async tasks one at a time, in call order. view_image
 * decodes through one (held in Services) so parallel calls never hold
 * several decoded images in memory at once.
 *
 * @example
 * ```ts
 * const queue = new SerialQueue();
 * const view = (name: string) => Deno.readFile(name);
 * const [a, b] = await Promise.all([queue.run(() => view("a.png")), queue.run(() => view("b.png"))]); // b starts after a
 * ```
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled; resolves or rejects as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }
}
