const PT_INTERP = 3;
/** Bytes read from the start of the file: the headers of any ordinary executable fit. */
const HEADER_BYTES = 16 * 1024;

/** PT_INTERP of 64-bit LE ELF `file`, or null: the kernel execs that loader too, so Landlock must allow it as well. */
export function elfInterpreter(file: string): string | null {
  let bytes: Uint8Array;
  try {
    using handle = Deno.openSync(file, { read: true });
    bytes = new Uint8Array(HEADER_BYTES);
    const got = handle.readSync(bytes) ?? 0;
    bytes = bytes.subarray(0, got);
  } catch {
    return null;
  }
  if (bytes.length < 64 || bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) {
    return null;
  }
  if (bytes[4] !== 2 || bytes[5] !== 1) return null; // ELFCLASS64, little-endian
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const phoff = Number(view.getBigUint64(32, true));
  const phentsize = view.getUint16(54, true);
  const phnum = view.getUint16(56, true);
  for (let index = 0; index < phnum; index++) {
    const at = phoff + index * phentsize;
    if (at + 40 > bytes.length) return null;
    if (view.getUint32(at, true) !== PT_INTERP) continue;
    const offset = Number(view.getBigUint64(at + 8, true));
    const size = Number(view.getBigUint64(at + 32, true));
    if (offset + size > bytes.length || size === 0) return null;
    return new TextDecoder().decode(bytes.subarray(offset, offset + size - 1)); // without the NUL
  }
  return null;
}
