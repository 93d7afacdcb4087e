/** Area averaging: imagescript's sampling resizes drop rows of text (two of three at 3x); averaging keeps them. */
import type { Bitmap, RgbaBitmap, Size } from "./decode.ts";

/**
 * The largest size with the same aspect ratio that fits in `box`, never larger than `size` and never below 1x1.
 * @example
 * ```ts
 * fitWithin({ width: 8000, height: 100 }, { width: 2048, height: 2048 }); // { width: 2048, height: 26 }
 * ```
 */
export function fitWithin(size: Size, box: Size): Size {
  const scale = Math.min(box.width / size.width, box.height / size.height, 1);
  if (scale === 1) return { width: size.width, height: size.height };
  return {
    width: Math.min(box.width, Math.max(1, Math.round(size.width * scale))),
    height: Math.min(box.height, Math.max(1, Math.round(size.height * scale))),
  };
}

type AxisWeights = ReturnType<typeof axisWeights>;

/**
 * Area coverage of `to` output cells over `from` source cells (to <= from): for each output index, the first source
 * index it covers (`start`), how many (`count`), and where its weights, which sum to 1, begin in `weights` (`offset`).
 */
function axisWeights(from: number, to: number) {
  const ratio = from / to;
  const start = new Int32Array(to);
  const count = new Int32Array(to);
  const offset = new Int32Array(to);
  const weights: number[] = [];
  for (let i = 0; i < to; i++) {
    const left = i * ratio;
    const right = Math.min(from, (i + 1) * ratio);
    const first = Math.floor(left);
    const last = Math.min(from - 1, Math.ceil(right) - 1);
    start[i] = first;
    count[i] = last - first + 1;
    offset[i] = weights.length;
    for (let s = first; s <= last; s++) {
      weights.push((Math.min(right, s + 1) - Math.max(left, s)) / ratio);
    }
  }
  return { start, count, offset, weights: Float64Array.from(weights) };
}

/** Reduces one source row (starting at byte `base`) horizontally into `line`, premultiplied by alpha. */
function reduceRowRgba(src: Uint8Array, base: number, xs: AxisWeights, line: Float64Array): void {
  // The typed arrays in locals: this loop runs for every source pixel of every view.
  const { start, count, offset, weights } = xs;
  for (let x = 0, q = 0; x < start.length; x++, q += 4) {
    let r = 0, g = 0, b = 0, a = 0;
    let p = base + start[x] * 4;
    for (let w = offset[x], end = w + count[x]; w < end; w++, p += 4) {
      const wa = weights[w] * src[p + 3];
      r += wa * src[p];
      g += wa * src[p + 1];
      b += wa * src[p + 2];
      a += wa;
    }
    line[q] = r;
    line[q + 1] = g;
    line[q + 2] = b;
    line[q + 3] = a;
  }
}

/** reduceRowRgba for opaque RGB (3) or grey (1) samples: the same sums, with alpha 255 everywhere. */
function reduceRowOpaque(src: Uint8Array, base: number, channels: 1 | 3, xs: AxisWeights, line: Float64Array): void {
  const { start, count, offset, weights } = xs;
  const green = channels === 3 ? 1 : 0;
  const blue = channels === 3 ? 2 : 0;
  for (let x = 0, q = 0; x < start.length; x++, q += 4) {
    let r = 0, g = 0, b = 0;
    let p = base + start[x] * channels;
    for (let w = offset[x], end = w + count[x]; w < end; w++, p += channels) {
      const weight = weights[w];
      r += weight * src[p];
      g += weight * src[p + green];
      b += weight * src[p + blue];
    }
    // Premultiplied by alpha 255 (the weights sum to 1), as the RGBA rows are.
    line[q] = 255 * r;
    line[q + 1] = 255 * g;
    line[q + 2] = 255 * b;
    line[q + 3] = 255;
  }
}

/**
 * Reduces `bitmap` to `size` (no axis larger) to RGBA, one source row at a time so the extra memory is a few rows.
 * @example
 * ```ts
 * reduceBitmap({ width: 4, height: 2, channels: 4, pixels: new Uint8Array(32) }, { width: 2, height: 1 }); // 2x1 RGBA
 * ```
 */
export function reduceBitmap(bitmap: Bitmap, size: Size): RgbaBitmap {
  const { width: sw, height: sh, channels, pixels: src } = bitmap;
  const { width: dw, height: dh } = size;
  if (dw > sw || dh > sh) throw new RangeError(`reduceBitmap cannot enlarge ${sw}x${sh} to ${dw}x${dh}`);
  const xs = axisWeights(sw, dw);
  const ys = axisWeights(sh, dh);
  const out = new Uint8Array(dw * dh * 4);
  const row = new Float64Array(dw * 4);
  // One source row reduced horizontally, premultiplied; the row shared by two output rows is reduced once.
  const line = new Float64Array(dw * 4);
  let lineRow = -1;
  const n = row.length;
  for (let y = 0; y < dh; y++) {
    for (let k = 0; k < ys.count[y]; k++) {
      const sy = ys.start[y] + k;
      const wy = ys.weights[ys.offset[y] + k];
      if (sy !== lineRow) {
        if (channels === 4) reduceRowRgba(src, sy * sw * 4, xs, line);
        else reduceRowOpaque(src, sy * sw * channels, channels, xs, line);
      }
      lineRow = sy;
      // The first source row sets the sums (no separate clearing pass), the others add to them.
      if (k === 0) { for (let q = 0; q < n; q++) row[q] = wy * line[q]; }
      else for (let q = 0; q < n; q++) row[q] += wy * line[q];
    }
    // Rounded half up by the store itself: a Uint8Array keeps the integer part of a value in [0, 256).
    for (let q = 0, o = y * n; q < n; q += 4, o += 4) {
      const a = row[q + 3];
      if (a > 0) {
        out[o] = row[q] / a + 0.5;
        out[o + 1] = row[q + 1] / a + 0.5;
        out[o + 2] = row[q + 2] / a + 0.5;
      }
      out[o + 3] = a + 0.5;
    }
  }
  return { width: dw, height: dh, channels: 4, pixels: out };
}
