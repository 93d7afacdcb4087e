import { assert } from "../testing/assert.ts";
import { MAX_INSTRUCTIONS_BYTES, serverInstructions } from "./instructions.ts";
import { MODES } from "./policy/modes.ts";

Deno.test("the instructions name the root, the mode and how to continue, under 2 KB in every mode", () => {
  const root = `/home/someone/${"projects/".repeat(20)}app`;
  for (const mode of MODES) {
    const text = serverInstructions({ mode }, root);
    const size = new TextEncoder().encode(text).length;
    assert(size < MAX_INSTRUCTIONS_BYTES, `${mode}: ${size} bytes`);
    assert(text.includes(root) && text.includes(mode === "dangerous" ? "DANGEROUS" : `${mode}:`), text);
    assert(text.includes("relative") && text.includes("next: read_file") && text.includes("cursor"), text);
  }
});
