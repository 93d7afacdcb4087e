/**
 * `deno run -A bench/patch_apply_once.ts <workspace> <patch-file>`: applies
 * one patch with workcell's patch module and prints {"ms": n}. A process of
 * its own, loading nothing else, so bench/patch_bench.ts can measure a cold
 * start and peak RSS the way it measures the Codex binary.
 */
import { applyPatch } from "../src/patch/apply.ts";
import { openWorkspace } from "../src/workspace/workspace.ts";

const [workspace, patchFile] = Deno.args;
const ws = openWorkspace(workspace);
const text = await Deno.readTextFile(patchFile);
const t0 = performance.now();
await applyPatch(ws, text);
console.log(JSON.stringify({ ms: performance.now() - t0 }));
