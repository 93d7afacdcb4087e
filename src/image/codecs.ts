/** imagescript's wasm decoders, compiled once and posted to render workers (compiling in each cost ~100 ms a view). */
import { createRequire } from "node:module";

/** The compiled decoders. */
export type CodecModules = Record<"jpeg" | "png" | "gif", WebAssembly.Module>;

/** What the JPEG decoder gives: 0 = grey, 1 = RGB, 2 = CMYK (Adobe, inverted) in `format`. */
export interface JpegPixels {
  width: number;
  height: number;
  format: number;
  buffer: Uint8Array;
}

/** One GIF frame: RGBA at an offset on the logical screen. */
export interface GifFrame {
  x: number;
  y: number;
  width: number;
  height: number;
  buffer: Uint8Array;
}

let modules: Promise<CodecModules> | undefined;

/**
 * The decoders of this realm: adopted from the thread that posted them, or compiled here on first use.
 * @example
 * ```ts
 * const { jpeg } = await codecModules();
 * ```
 */
export function codecModules(): Promise<CodecModules> {
  modules ??= compileAll().catch((error) => {
    modules = undefined; // a later call tries again
    throw error;
  });
  return modules;
}

/**
 * Makes `compiled` this realm's decoders (a render worker, given the server's).
 * @example
 * ```ts
 * adoptCodecModules(await codecModules());
 * ```
 */
export function adoptCodecModules(compiled: CodecModules): void {
  modules = Promise.resolve(compiled);
}

/**
 * Each decoder's `.wasm` file in imagescript's package, found as node finds it (build.ts embeds them in the binary).
 * @example
 * ```ts
 * codecFiles().jpeg; // ".../imagescript/wasm/any/jpeg.wasm"
 * ```
 */
export function codecFiles(): Record<keyof CodecModules, string> {
  const require = createRequire(import.meta.url);
  const file = (name: keyof CodecModules) => require.resolve(`imagescript/wasm/any/${name}.wasm`);
  return { jpeg: file("jpeg"), png: file("png"), gif: file("gif") };
}

async function compileAll(): Promise<CodecModules> {
  const files = codecFiles();
  const compile = async (name: keyof CodecModules) => await WebAssembly.compile(await Deno.readFile(files[name]));
  const [jpeg, png, gif] = await Promise.all([compile("jpeg"), compile("png"), compile("gif")]);
  return { jpeg, png, gif };
}

/** The decoders' shared exports: an allocator over the instance's memory, and how long the last result is. */
interface Heap {
  memory: WebAssembly.Memory;
  walloc(size: number): number;
  wlen(): number;
}

function copyIn(heap: Heap, bytes: Uint8Array): number {
  const at = heap.walloc(bytes.length);
  new Uint8Array(heap.memory.buffer, at, bytes.length).set(bytes);
  return at;
}

function copyOut(heap: Heap, at: number): Uint8Array {
  return new Uint8Array(heap.memory.buffer, at, heap.wlen()).slice();
}

/**
 * Decodes a JPEG; `width`/`height` ask for DCT scaling to that size (0 = full size).
 * @example
 * ```ts
 * decodeJpeg(await codecModules(), await Deno.readFile("photo.jpg"), 0, 0).format; // 1 for RGB
 * ```
 */
export function decodeJpeg(compiled: CodecModules, bytes: Uint8Array, width: number, height: number): JpegPixels {
  const wasm = new WebAssembly.Instance(compiled.jpeg).exports as unknown as Heap & {
    decode(at: number, length: number, width: number, height: number): number;
    decode_width(result: number): number;
    decode_height(result: number): number;
    decode_format(result: number): number;
    decode_buffer(result: number): number;
    decode_free(result: number): void;
  };
  const result = wasm.decode(copyIn(wasm, bytes), bytes.length, width, height);
  if (result === 0) throw new Error("jpg: failed to decode");
  if (result === 1) throw new Error("jpg: failed to scale decoder");
  const pixels = {
    width: wasm.decode_width(result),
    height: wasm.decode_height(result),
    format: wasm.decode_format(result),
    buffer: copyOut(wasm, wasm.decode_buffer(result)),
  };
  wasm.decode_free(result);
  return pixels;
}

/**
 * Decodes a PNG to 8-bit RGBA.
 * @example
 * ```ts
 * decodePng(await codecModules(), await Deno.readFile("logo.png")).framebuffer.length; // width * height * 4
 * ```
 */
export function decodePng(
  compiled: CodecModules,
  bytes: Uint8Array,
): { width: number; height: number; framebuffer: Uint8Array } {
  // The decoder reports memory growth; the views below are made after the decode, on the memory as it then is.
  const wasm = new WebAssembly.Instance(compiled.png, { env: { emscripten_notify_memory_growth() {} } })
    .exports as unknown as Heap & {
      wfree(at: number): void;
      decode(at: number, length: number): number;
      width(): number;
      height(): number;
    };
  const input = copyIn(wasm, bytes);
  const status = wasm.decode(input, bytes.length);
  wasm.wfree(input);
  if (status < 0) throw new Error(`png: failed to decode (${status})`);
  const [width, height] = [wasm.width(), wasm.height()];
  return { width, height, framebuffer: new Uint8Array(wasm.memory.buffer, status, 4 * width * height).slice() };
}

/**
 * A GIF's logical screen size and first frame (null when it has none).
 * @example
 * ```ts
 * gifFirstFrame(await codecModules(), await Deno.readFile("anim.gif")).frame?.width;
 * ```
 */
export function gifFirstFrame(
  compiled: CodecModules,
  bytes: Uint8Array,
): { width: number; height: number; frame: GifFrame | null } {
  const wasm = new WebAssembly.Instance(compiled.gif, { env: { push_to_stream() {} } }).exports as unknown as
    & Heap
    & Record<`decoder_${"width" | "height" | "frame" | "free"}`, (decoder: number) => number>
    & Record<`decoder_frame_${"x" | "y" | "width" | "height" | "buffer" | "free"}`, (frame: number) => number>
    & { decoder_new(at: number, length: number, limit: number): number };
  const decoder = wasm.decoder_new(copyIn(wasm, bytes), bytes.length, 0);
  if (decoder === 0) throw new Error("gif: failed to parse gif header");
  const [width, height] = [wasm.decoder_width(decoder), wasm.decoder_height(decoder)];
  try {
    const at = wasm.decoder_frame(decoder);
    if (at === 1) return { width, height, frame: null };
    if (at === 0) throw new Error("gif: failed to decode frame");
    const frame = {
      x: wasm.decoder_frame_x(at),
      y: wasm.decoder_frame_y(at),
      width: wasm.decoder_frame_width(at),
      height: wasm.decoder_frame_height(at),
      buffer: copyOut(wasm, wasm.decoder_frame_buffer(at)),
    };
    wasm.decoder_frame_free(at);
    return { width, height, frame };
  } finally {
    wasm.decoder_free(decoder);
  }
}
