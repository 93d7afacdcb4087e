/**
 * The npm package's sources as JavaScript: each staged `.ts` file becomes the
 * `.js` file beside it (types stripped by `deno bundle --inline-imports=false`,
 * one output per input, npm imports left as they are), and relative `.ts`
 * specifiers become `.js`.
 *
 * Why: a first start with a fresh DENO_DIR transpiles every module the first
 * tool call loads (about 200, 1.1 MB) before answering; measured with Deno
 * 2.9.6 from a fresh DENO_DIR, spawn to the first tools/call answer was
 * 770 ms from the .ts tree and 606 ms from the .js one (medians of 8; warm
 * 440 and 408 ms), what lets a fresh HOME's first call cost about what a warm
 * one does (issue 32).
 *
 * @example
 * ```ts
 * await transpileSources("/tmp/stage/app", ["main.ts", "src/serve.ts"]); // main.js, src/serve.js
 * ```
 */
import * as path from "node:path";

/** A relative `.ts` specifier as the transpiled code writes it: in `from`, `import(` or `new URL(`. */
const RELATIVE_TS = /(\bfrom\s*|\bimport\(\s*|\bnew URL\(\s*)(["'])(\.\.?\/[^"'\n]*)\.ts\2/g;
/** Any relative `.ts` string left after rewriting: packing refuses it rather than ship a module that cannot load. */
const LEFT_OVER = /["'`]\.\.?\/[^"'`\n]*\.ts["'`]/;

/**
 * Rewrites a transpiled module's relative `.ts` specifiers to `.js`.
 *
 * @example
 * ```ts
 * jsSpecifiers('import { a } from "./a.ts";'); // 'import { a } from "./a.js";'
 * ```
 */
export function jsSpecifiers(code: string): string {
  return code.replace(
    RELATIVE_TS,
    (_, before: string, quote: string, stem: string) => `${before}${quote}${stem}.js${quote}`,
  );
}

/** Transpiles `files` (`.ts`, relative to `app`, whose deno.json resolves their imports) in place, and removes the `.ts`. */
export async function transpileSources(app: string, files: string[]): Promise<void> {
  const sources = files.filter((file) => file.endsWith(".ts"));
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--config",
      path.join(app, "deno.json"),
      "--packages",
      "external",
      "--inline-imports=false",
      "--outdir",
      app,
      ...sources,
    ],
    cwd: app,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!bundled.success) throw new Error(`deno bundle failed: ${new TextDecoder().decode(bundled.stderr)}`);
  for (const source of sources) {
    const js = path.join(app, source.replace(/\.ts$/, ".js"));
    const code = jsSpecifiers(await Deno.readTextFile(js));
    const left = code.match(LEFT_OVER);
    if (left) throw new Error(`${js}: a .ts specifier that packing cannot rewrite: ${left[0]}`);
    await Deno.writeTextFile(js, code);
    await Deno.remove(path.join(app, source));
  }
}
