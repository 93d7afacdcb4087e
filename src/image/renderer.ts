/**
 * The Web Workers view_image renders large images in (render_worker.ts):
 * one per render, so its memory (the image decoded, the decoders'
 * WebAssembly heap) is freed the moment it is terminated, but each started
 * as soon as the previous render ended, so a view does not wait for a
 * worker's start and its modules' loading (about 100 ms of each view of a
 * 6000x4000 JPEG when the worker was started for it). The spare worker is
 * terminated {@linkcode RENDERER_IDLE_MS} after the last view and at
 * shutdown. One render runs at a time.
 *
 * @example
 * ```ts
 * import { sniffImage } from "./sniff.ts";
 *
 * declare const signal: AbortSignal;
 * const source = await Deno.readFile("photo.jpg");
 * const header = sniffImage(source)!;
 * const renderer = new ImageRenderer();
 * const rendering = await renderer.render({ source, header, box: { width: 2048, height: 2048 }, name: "photo.jpg" }, signal);
 * renderer.close();
 * ```
 */
import { ToolError } from "../errors.ts";
import type { Rendering } from "./render.ts";
import type { RenderJob, RenderReply, RenderRequest } from "./render_worker.ts";
import { codecModules } from "./codecs.ts";
import { SerialQueue } from "./serial.ts";

/** How long a spare worker is kept after a view, for the next one. */
export const RENDERER_IDLE_MS = 10_000;

/** A worker per render, each started ahead of the render it serves. */
export class ImageRenderer {
  /** The worker the next render uses, started when the previous render ended. */
  #spare: Worker | null = null;
  #idle: ReturnType<typeof setTimeout> | undefined;
  readonly #queue = new SerialQueue();

  /**
   * Renders `request` in a worker (its source buffer is transferred there, so the caller's is emptied); aborting
   * `signal` terminates the worker, and the call rejects with its reason.
   */
  render(request: RenderRequest, signal?: AbortSignal): Promise<Rendering> {
    return this.#queue.run(() => this.#render(request, signal));
  }

  async #render(request: RenderRequest, signal: AbortSignal | undefined): Promise<Rendering> {
    clearTimeout(this.#idle);
    const worker = this.#spare ?? startWorker();
    this.#spare = null;
    let onAbort = () => {};
    try {
      const job: RenderJob = { ...request, codecs: await codecModules() };
      const reply = await new Promise<RenderReply>((resolve, reject) => {
        onAbort = () => reject(signal!.reason);
        signal?.throwIfAborted();
        signal?.addEventListener("abort", onAbort, { once: true });
        worker.onmessage = (event: MessageEvent<RenderReply>) => resolve(event.data);
        worker.onerror = (event) => {
          event.preventDefault();
          reject(new ToolError("INTERNAL", `the image worker failed: ${event.message}`));
        };
        worker.postMessage(job, [request.source.buffer as ArrayBuffer]);
      });
      if (reply.ok) return reply.rendering;
      throw new ToolError(reply.code, reply.message, { hint: reply.hint, details: reply.details });
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // Terminating the worker that rendered frees the image's memory at once (a reused one kept each view's
      // garbage until its next collection: 437 MiB after five views); the next one starts now, while idle.
      worker.terminate();
      this.#spare = startWorker();
      const idle = setTimeout(() => this.close(), RENDERER_IDLE_MS);
      Deno.unrefTimer(idle);
      this.#idle = idle;
    }
  }

  /** Terminates the spare worker (a later render starts one). */
  close(): void {
    clearTimeout(this.#idle);
    this.#spare?.terminate();
    this.#spare = null;
  }
}

function startWorker(): Worker {
  return new Worker(new URL("./render_worker.ts", import.meta.url), { type: "module" });
}
