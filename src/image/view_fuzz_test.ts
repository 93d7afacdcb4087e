/**
 * Mutation fuzzing of the image pipeline: valid PNG, JPEG and GIF files with
 * random bit flips, overwritten bytes, cuts and insertions must each end as
 * a view or as UNSUPPORTED_IMAGE / FILE_TOO_LARGE, never as another error,
 * a trap escaping as INTERNAL, or a hang. Deterministic (FUZZ_SEED).
 */
import { assert } from "../../testing/assert.ts";
import { encodeFixture, makeBitmap } from "../../testing/image_fixtures.ts";
import { ToolError } from "../errors.ts";
import { viewImage } from "./view.ts";
import { ImageRenderer } from "./renderer.ts";
import { openWorkspace } from "../workspace/workspace.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 8);
const MUTANTS_PER_FORMAT = 150;

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function mutate(source: Uint8Array, random: () => number): Uint8Array {
  const pick = (n: number) => Math.floor(random() * n);
  let bytes = source.slice();
  for (let edits = 1 + pick(4); edits > 0; edits--) {
    const at = pick(bytes.length);
    switch (pick(5)) {
      case 0:
        bytes[at] ^= 1 << pick(8);
        break;
      case 1:
        bytes[at] = [0, 0xff, 0x7f, 0x80][pick(4)];
        break;
      case 2:
        bytes = bytes.slice(0, Math.max(1, at));
        break;
      case 3: {
        const grown = new Uint8Array(bytes.length + 16);
        grown.set(bytes.subarray(0, at));
        for (let i = 0; i < 16; i++) grown[at + i] = pick(256);
        grown.set(bytes.subarray(at), at + 16);
        bytes = grown;
        break;
      }
      default:
        // Early bytes hold the headers: hit them more often.
        bytes[pick(Math.min(bytes.length, 64))] = pick(256);
    }
  }
  return bytes;
}

Deno.test("view_image pipeline: mutated PNG, JPEG and GIF files end as a view or UNSUPPORTED_IMAGE/FILE_TOO_LARGE", async () => {
  const dir = await Deno.makeTempDir({ prefix: "workcell-image-fuzz-" });
  const ws = openWorkspace(dir);
  const renderer = new ImageRenderer();
  try {
    const random = prng(SEED);
    const bitmap = makeBitmap(48, 32, (x, y) => [x * 5, y * 7, (x * y) % 256, x < 24 ? 255 : 100]);
    const outcomes: Record<string, number> = {};
    for (const format of ["png", "jpeg", "gif"] as const) {
      const source = await encodeFixture(format, bitmap);
      for (let i = 0; i < MUTANTS_PER_FORMAT; i++) {
        const abs = `${dir}/m.${format}`;
        const mutant = mutate(source, random);
        await Deno.writeFile(abs, mutant);
        let outcome: string;
        try {
          const view = await viewImage(ws, `m.${format}`, { width: 32, height: 32 }, renderer);
          assert(
            view.output.width <= 32 && view.output.height <= 32,
            `${format} #${i}: ${JSON.stringify(view.output)}`,
          );
          outcome = "viewed";
        } catch (error) {
          const code = error instanceof ToolError ? error.code : String(error);
          assert(
            code === "UNSUPPORTED_IMAGE" || code === "FILE_TOO_LARGE",
            `${format} mutant #${i} (seed ${SEED}) failed with ${code}: ${(error as Error).message}`,
          );
          outcome = code;
        }
        outcomes[`${format} ${outcome}`] = (outcomes[`${format} ${outcome}`] ?? 0) + 1;
      }
    }
    // The mutations must exercise both paths.
    for (const format of ["png", "jpeg", "gif"]) assert(outcomes[`${format} UNSUPPORTED_IMAGE`] > 0, format);
    assert((outcomes["jpeg viewed"] ?? 0) + (outcomes["gif viewed"] ?? 0) > 0, JSON.stringify(outcomes));
  } finally {
    renderer.close();
    await Deno.remove(dir, { recursive: true });
  }
});
