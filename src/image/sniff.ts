/** Image type from the bytes (never the file name) and dimensions from the header, before any pixel is decoded. */
import { ToolError } from "../errors.ts";

/** The formats view_image decodes. */
export type ImageFormat = "png" | "jpeg" | "gif";

/** What the header says, read without decoding pixels. */
export interface ImageHeader {
  format: ImageFormat;
  mediaType: `image/${ImageFormat}`;
  width: number;
  height: number;
  /** JPEG EXIF orientation (1..8) when the file has one; 1 means stored upright. */
  orientation?: number;
  /** A GIF's first frame size: decoded at its own size, which a hostile file can make far larger than the screen. */
  frame?: { width: number; height: number };
  /** Progressive JPEG (SOF2/6/10/14): decoding cost grows with the scans (10,000 in 178 KB took 10 s), not the size. */
  progressive?: boolean;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Signatures of formats we recognise only to name them in the refusal. */
const OTHER_FORMATS: { name: string; matches(bytes: Uint8Array): boolean }[] = [
  { name: "WebP", matches: (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WEBP" },
  { name: "BMP", matches: (b) => ascii(b, 0, 2) === "BM" },
  { name: "TIFF", matches: (b) => ascii(b, 0, 4) === "II*\0" || ascii(b, 0, 4) === "MM\0*" },
  { name: "ICO", matches: (b) => b[0] === 0 && b[1] === 0 && b[2] === 1 && b[3] === 0 },
  { name: "HEIF/AVIF", matches: (b) => ascii(b, 4, 4) === "ftyp" },
  { name: "PDF", matches: (b) => ascii(b, 0, 5) === "%PDF-" },
  { name: "SVG/XML text", matches: (b) => /^\s*<(\?xml|svg)/i.test(ascii(b, 0, 64)) },
];

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

function corrupt(format: ImageFormat, why: string): ToolError {
  return new ToolError("UNSUPPORTED_IMAGE", `the ${format.toUpperCase()} header is corrupt: ${why}`, {
    details: { format },
  });
}

function pngHeader(bytes: Uint8Array): ImageHeader {
  if (bytes.length < 24 || ascii(bytes, 12, 4) !== "IHDR") throw corrupt("png", "no IHDR chunk");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { format: "png", mediaType: "image/png", width: view.getUint32(16), height: view.getUint32(20) };
}

function gifHeader(bytes: Uint8Array): ImageHeader {
  if (bytes.length < 10) throw corrupt("gif", "the logical screen descriptor is cut off");
  const frame = gifFirstFrameSize(bytes);
  return {
    format: "gif",
    mediaType: "image/gif",
    width: bytes[6] | (bytes[7] << 8),
    height: bytes[8] | (bytes[9] << 8),
    ...(frame ? { frame } : {}),
  };
}

/** The size in the first image descriptor, past the global colour table and any extension blocks; null if cut off. */
function gifFirstFrameSize(bytes: Uint8Array): { width: number; height: number } | null {
  const packed = bytes[10] ?? 0;
  let at = 13 + ((packed & 0x80) !== 0 ? 3 * (1 << ((packed & 0x07) + 1)) : 0);
  while (at < bytes.length && bytes[at] === 0x21) {
    at += 2; // introducer and label, then data sub-blocks up to an empty one
    while (at < bytes.length && bytes[at] !== 0) at += bytes[at] + 1;
    at++;
  }
  if (bytes[at] !== 0x2c || at + 9 > bytes.length) return null;
  return { width: bytes[at + 5] | (bytes[at + 6] << 8), height: bytes[at + 7] | (bytes[at + 8] << 8) };
}

/**
 * The most pixels decoding `header`'s image allocates at once: its own, or a GIF's first frame's when larger.
 * @example
 * ```ts
 * decodedPixels({ format: "gif", mediaType: "image/gif", width: 1, height: 1, frame: { width: 9, height: 9 } }); // 81
 * ```
 */
export function decodedPixels(header: ImageHeader): number {
  return Math.max(header.width * header.height, header.frame ? header.frame.width * header.frame.height : 0);
}

/** A start-of-frame marker: SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** The orientation tag (0x0112) of IFD0 in an APP1 Exif segment whose payload starts at `at`, if present. */
function exifOrientation(bytes: Uint8Array, at: number, end: number): number | undefined {
  if (ascii(bytes, at, 6) !== "Exif\0\0") return undefined;
  const tiff = at + 6;
  const order = ascii(bytes, tiff, 2);
  if (order !== "II" && order !== "MM") return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, Math.min(end, bytes.length));
  const little = order === "II";
  try {
    const ifd = tiff + view.getUint32(tiff + 4, little);
    const entries = view.getUint16(ifd, little);
    for (let i = 0; i < entries; i++) {
      const entry = ifd + 2 + i * 12;
      if (view.getUint16(entry, little) === 0x0112) return view.getUint16(entry + 8, little);
    }
  } catch {
    // A cut or malformed Exif block: no orientation.
  }
  return undefined;
}

function jpegHeader(bytes: Uint8Array): ImageHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let orientation: number | undefined;
  let at = 2;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) throw corrupt("jpeg", `expected a marker at byte ${at}`);
    while (bytes[at] === 0xff) at++; // fill bytes
    const marker = bytes[at++];
    if (marker === undefined) break;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; // no length field
    if (marker === 0xd9 || marker === 0xda) throw corrupt("jpeg", "image data starts before any frame header");
    if (at + 2 > bytes.length) break;
    const length = view.getUint16(at);
    if (length < 2) throw corrupt("jpeg", `segment at byte ${at} has length ${length}`);
    if (marker === 0xe1 && orientation === undefined) orientation = exifOrientation(bytes, at + 2, at + length);
    if (isStartOfFrame(marker)) {
      if (at + 7 > bytes.length) break;
      const size = { width: view.getUint16(at + 5), height: view.getUint16(at + 3) };
      const progressive = (marker & 0x03) === 0x02; // C2, C6, CA, CE
      return {
        format: "jpeg",
        mediaType: "image/jpeg",
        ...size,
        ...(orientation ? { orientation } : {}),
        ...(progressive ? { progressive } : {}),
      };
    }
    at += length;
  }
  throw corrupt("jpeg", "the file ends before the frame header");
}

/**
 * Detects PNG, JPEG or GIF and reads the header's dimensions; anything else, or no usable size, is UNSUPPORTED_IMAGE.
 * @example
 * ```ts
 * sniffImage(new TextEncoder().encode("hello")); // throws UNSUPPORTED_IMAGE
 * ```
 */
export function sniffImage(bytes: Uint8Array): ImageHeader {
  let header: ImageHeader;
  if (PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)) header = pngHeader(bytes);
  else if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) header = jpegHeader(bytes);
  else if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") header = gifHeader(bytes);
  else {
    const other = OTHER_FORMATS.find((candidate) => candidate.matches(bytes));
    const lead = Array.from(bytes.subarray(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join(" ");
    const what = bytes.length === 0
      ? "the file is empty"
      : other
      ? `the data looks like ${other.name}`
      : `the data starts with bytes ${lead}`;
    throw new ToolError("UNSUPPORTED_IMAGE", `not a PNG, JPEG or GIF image: ${what}`, {
      details: { detected: other?.name ?? null },
    });
  }
  if (header.width === 0 || header.height === 0) {
    throw corrupt(header.format, `it declares a size of ${header.width}x${header.height}`);
  }
  return header;
}

const EXTENSION_FORMATS: Record<string, ImageFormat> = {
  png: "png",
  apng: "png",
  jpg: "jpeg",
  jpeg: "jpeg",
  jpe: "jpeg",
  jfif: "jpeg",
  gif: "gif",
};

/**
 * The format a file name promises, when its extension is one of ours.
 * @example
 * ```ts
 * formatFromName("shots/a.JPG"); // "jpeg"
 * ```
 */
export function formatFromName(name: string): ImageFormat | null {
  const match = /\.([A-Za-z]+)$/.exec(name);
  return match ? EXTENSION_FORMATS[match[1].toLowerCase()] ?? null : null;
}
