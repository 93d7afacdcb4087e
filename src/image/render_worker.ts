/** Worker running renderImage off the server's thread: one message in, one out. build.ts embeds every `*_worker.ts`. */
import { ToolError } from "../errors.ts";
import { adoptCodecModules, type CodecModules } from "./codecs.ts";
import type { Size } from "./decode.ts";
import { renderImage, type Rendering } from "./render.ts";
import type { ImageHeader } from "./sniff.ts";

/** What the parent sends. */
export interface RenderRequest {
  source: Uint8Array;
  header: ImageHeader;
  box: Size;
  name: string;
}

/** What the worker is sent: the request, and the server's compiled decoders, whose optimised code it then runs. */
export interface RenderJob extends RenderRequest {
  codecs: CodecModules;
}

/** What the worker answers: the rendering, or the error as plain data. */
export type RenderReply =
  | { ok: true; rendering: Rendering }
  | { ok: false; code: ToolError["code"]; message: string; hint: string; details: Record<string, unknown> };

// A worker's global scope; typed loosely because the project's lib is the main-thread one.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<RenderJob>) => void) | null;
  postMessage(message: RenderReply, transfer?: Transferable[]): void;
};

scope.onmessage = async ({ data }) => {
  try {
    adoptCodecModules(data.codecs);
    const rendering = await renderImage(data.source, data.header, data.box, data.name);
    scope.postMessage({ ok: true, rendering }, [rendering.bytes.buffer as ArrayBuffer]);
  } catch (error) {
    const failure = error instanceof ToolError
      ? error
      : new ToolError("INTERNAL", error instanceof Error ? error.message : String(error));
    scope.postMessage({
      ok: false,
      code: failure.code,
      message: failure.message,
      hint: failure.hint,
      details: failure.details,
    });
  }
};
