/**
 * imagescript's WebAssembly decoders (PNG, JPEG, GIF), compiled once per
 * process and called through their exports.
 *
 * imagescript's own bindings compile the module in every JS realm that
 * loads them, and each render runs in a fresh Web Worker (renderer.ts): its
 * first decode ran on code not yet optimised, about 100 ms more for a
 * 6000x4000 JPEG (386-447 ms against 286-305 warm). A compiled
 * `WebAssembly.Module` can be posted to a worker, and the worker's instance
 * then runs the code the earlier renders optimised, so the server's thread
 * compiles each module once and every render worker adopts them
 * ({@linkcode adoptCodecModules}). Each decode still gets an instance of its
 * own, whose memory goes when the decode's result is copied out.
 *
 * @example
 * ```ts
 * const bytes = await Deno.readFile("logo.png");
 * const { width, height } = decodePng(await codecModules(), bytes);
 * ```
 */
import { createRequire } from "node:module";

/** The compiled decoders. */
export interface CodecModules {
  jpeg: WebAssembly.Module;
  png: WebAssembly.Module;
  gif: WebAssembly.Module;
}

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
 * The decoders of this realm: adopted from the thread that posted them, or compiled here from imagescript's
 * `.wasm` files on first use.
 *
 * @example
 * ```ts
 * const { jpeg } = await codecModules();
 * WebAssembly.Module.exports(jpeg).some((entry) => entry.name === "decode"); // true
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
 *
 * @example
 * ```ts
 * adoptCodecModules(await codecModules()); // in a worker: what the parent posted
 * ```
 */
export function adoptCodecModules(compiled: CodecModules): void {
  modules = Promise.resolve(compiled);
}

/**
 * Where each decoder's `.wasm` file is: in imagescript's package, found as node finds it (build.ts embeds these
 * files in the compiled binary).
 *
 * @example
 * ```ts
 * codecFiles().jpeg; // ".../node_modules/.deno/imagescript@1.3.1/node_modules/imagescript/wasm/any/jpeg.wasm"
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

/** `bytes` copied into a fresh allocation of `heap`; its address. */
function copyIn(heap: Heap, bytes: Uint8Array): number {
  const at = heap.walloc(bytes.length);
  new Uint8Array(heap.memory.buffer, at, bytes.length).set(bytes);
  return at;
}

/** A copy of the decoder's last result at `at` (its length is `wlen()`). */
function copyOut(heap: Heap, at: number): Uint8Array {
  return new Uint8Array(heap.memory.buffer, at, heap.wlen()).slice();
}

/**
 * Decodes a JPEG; `width`/`height` ask for DCT scaling to that size (0 = full size).
 *
 * @example
 * ```ts
 * const photo = await Deno.readFile("photo.jpg");
 * decodeJpeg(await codecModules(), photo, 0, 0).format; // 1 for RGB
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
 *
 * @example
 * ```ts
 * const logo = await Deno.readFile("logo.png");
 * decodePng(await codecModules(), logo).framebuffer.length; // width * height * 4
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
 *
 * @example
 * ```ts
 * const anim = await Deno.readFile("anim.gif");
 * gifFirstFrame(await codecModules(), anim).frame?.width;
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
