import { ToolError } from "../errors.ts";
import type { Rendering } from "./render.ts";
import type { RenderJob, RenderReply, RenderRequest } from "./render_worker.ts";
import { codecModules } from "./codecs.ts";

/** How long a spare worker is kept after a view, for the next one. */
export const RENDERER_IDLE_MS = 10_000;

/**
 * A fresh worker per render frees its memory; each starts ahead of its render, so a view skips the ~100 ms start.
 * Callers queue their renders (view_image through Services.imageQueue), so one image is in memory at a time.
 */
export class ImageRenderer {
  #spare: Worker | null = null;
  #idle: ReturnType<typeof setTimeout> | undefined;

  /** Renders in a worker (transferring, so emptying, `request.source`); aborting `signal` terminates it and rejects. */
  async render(request: RenderRequest, signal?: AbortSignal): Promise<Rendering> {
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
      // Terminating frees the image's memory at once (a reused worker held 437 MiB after five views).
      worker.terminate();
      this.#spare ??= startWorker();
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
