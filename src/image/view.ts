/** view_image's domain (no MCP): read a confined image within the byte and pixel caps, decode it, pass or reduce it. */
import { fromOsError, ToolError } from "../errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Size } from "./decode.ts";
import { formatBytes } from "../text/format_bytes.ts";
import type { Rendering } from "./render.ts";
import type { ImageRenderer } from "./renderer.ts";
import { decodedPixels, formatFromName, type ImageHeader, sniffImage } from "./sniff.ts";

/** Largest image file accepted, in bytes (checked before reading). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Largest image accepted, in header pixels, checked before decoding: a small PNG can declare gigapixels. */
export const MAX_IMAGE_PIXELS = 64 * 1024 * 1024;
/** Largest PNG, GIF or progressive JPEG: their decoders hold full-size state (8192x8192 ones took 0.67-1.15 GB). */
export const MAX_COSTLY_PIXELS = 16 * 1024 * 1024;
/** Default bounding box: Claude scales down longer edges anyway (https://docs.claude.com/en/docs/vision). */
export const DEFAULT_MAX_DIMENSION = 1568;
/** Images up to this many pixels render on the server's thread, in tens of milliseconds. */
const IN_THREAD_MAX_PIXELS = 2048 * 2048;
/** Largest file decoded on the server's thread: GIF LZW data costs per byte (19 MB of it held the thread for 3 s). */
const IN_THREAD_MAX_BYTES = 1024 * 1024;

/** Cheap enough for the server's thread; anything else goes to a worker, where it stalls no call and can be stopped. */
function inThread(header: ImageHeader, fileBytes: number): boolean {
  return decodedPixels(header) <= IN_THREAD_MAX_PIXELS && fileBytes <= IN_THREAD_MAX_BYTES && !header.progressive;
}

/** What each EXIF orientation asks a viewer to do to the stored pixels. */
const ORIENTATIONS: Record<number, string> = {
  2: "mirror horizontally",
  3: "rotate 180°",
  4: "mirror vertically",
  5: "mirror and rotate 90° clockwise",
  6: "rotate 90° clockwise",
  7: "mirror and rotate 90° counter-clockwise",
  8: "rotate 90° counter-clockwise",
};

/** The result of {@linkcode viewImage}: the rendering (its warnings joined by the view's own) and the source. */
export interface ImageView extends Rendering {
  path: string;
  /** Media type detected from the file's bytes. */
  sourceMediaType: string;
  fileBytes: number;
  original: Size;
  /** Output over original size, the smaller of the two axes' ratios (1 when not resized). */
  scale: number;
}

function tooLarge(rel: string, size: number): ToolError {
  return new ToolError(
    "FILE_TOO_LARGE",
    `${rel} is ${formatBytes(size)}; view_image accepts images up to ${formatBytes(MAX_IMAGE_BYTES)}`,
    {
      hint: "Shrink it with a command first (for example into a smaller PNG or JPEG), then view that file.",
      details: { path: rel, bytes: size, max_bytes: MAX_IMAGE_BYTES },
    },
  );
}

/** Reads the confined regular file `input`, refusing one over MAX_IMAGE_BYTES before reading it. */
async function readImageFile(ws: Workspace, input: string): Promise<{ rel: string; bytes: Uint8Array }> {
  using file = ws.open(input, { expect: "file" });
  try {
    if (file.stat.size > MAX_IMAGE_BYTES) throw tooLarge(file.rel, file.stat.size);
    // The file may grow between stat and read: read at most one byte past the cap.
    const bytes = await file.readPrefix(file.stat.size + 1);
    if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge(file.rel, file.restat().size);
    return { rel: file.rel, bytes };
  } catch (error) {
    throw fromOsError(error, file.rel);
  }
}

function checkPixels(rel: string, header: ImageHeader): void {
  const pixels = decodedPixels(header);
  const costly = header.format !== "jpeg" || header.progressive === true;
  const limit = costly ? MAX_COSTLY_PIXELS : MAX_IMAGE_PIXELS;
  if (pixels <= limit) return;
  const { width, height } = pixels > header.width * header.height ? header.frame! : header;
  const what = width === header.width && height === header.height ? "" : " in its first frame";
  const kind = header.progressive ? "a progressive JPEG" : `a ${header.format.toUpperCase()}`;
  throw new ToolError(
    "FILE_TOO_LARGE",
    `${rel} declares ${width}x${height} pixels${what} (${(pixels / 1e6).toFixed(0)} megapixels); ` +
      `view_image decodes at most ${limit / 1024 / 1024} Mi pixels of ${kind}`,
    {
      hint: "Downscale or crop it with a command first, then view the smaller file.",
      details: { path: rel, width, height, max_pixels: limit },
    },
  );
}

/**
 * Views the image at `input`, typed by its bytes, fitted in `box`; big ones render in `renderer`, which `signal` stops.
 * @example
 * ```ts
 * import { openWorkspace } from "../workspace/workspace.ts";
 * import { ImageRenderer } from "./renderer.ts";
 * await viewImage(openWorkspace(Deno.cwd()), "a.gif", { width: 256, height: 256 }, new ImageRenderer());
 * ```
 */
export async function viewImage(
  ws: Workspace,
  input: string,
  box: Size,
  renderer: ImageRenderer,
  signal?: AbortSignal,
): Promise<ImageView> {
  const file = await readImageFile(ws, input);
  const source = file.bytes;
  const header = sniffImage(source);
  checkPixels(file.rel, header);
  const warnings: string[] = [];
  const named = formatFromName(file.rel);
  if (named && named !== header.format) {
    warnings.push(
      `${file.rel} is named like ${named.toUpperCase()} but contains ${header.format.toUpperCase()} data; ` +
        `it was read as ${header.format.toUpperCase()}`,
    );
  }
  if (header.orientation && header.orientation !== 1) {
    warnings.push(
      `the JPEG's EXIF orientation is ${header.orientation} (${ORIENTATIONS[header.orientation] ?? "unknown"}); ` +
        `it is not applied: the image is shown as stored`,
    );
  }
  const fileBytes = source.length; // a render in the worker takes the buffer
  const rendering = !inThread(header, fileBytes)
    ? await renderer.render({ source, header, box, name: file.rel }, signal)
    // Loaded on first use: the codecs cost ~100 ms of start-up that servers without images never need.
    : await (await import("./render.ts")).renderImage(source, header, box, file.rel);
  const original = { width: header.width, height: header.height };
  const { output } = rendering;
  return {
    ...rendering,
    path: file.rel,
    sourceMediaType: header.mediaType,
    fileBytes,
    original,
    scale: Math.min(output.width / original.width, output.height / original.height),
    warnings: [...warnings, ...rendering.warnings],
  };
}

/**
 * A one-line summary of a view for the agent (no base64), plus warnings.
 * @example
 * ```ts
 * declare const view: ImageView;
 * describeView(view); // "a.png: PNG 6000x4000, 2.1 MiB, resized to 2048x1365 and sent as PNG (412.0 KiB)."
 * ```
 */
export function describeView(view: ImageView): string {
  const kind = (type: string) => type.replace("image/", "").toUpperCase();
  const head = `${view.path}: ${kind(view.sourceMediaType)} ${view.original.width}x${view.original.height}, ` +
    formatBytes(view.fileBytes);
  const line = view.resized
    ? `${head}, resized to ${view.output.width}x${view.output.height} and sent as ${kind(view.mediaType)} ` +
      `(${formatBytes(view.bytes.length)}).`
    : `${head}, sent as is.`;
  return [line, ...view.warnings.map((warning) => `Warning: ${warning}.`)].join("\n");
}
