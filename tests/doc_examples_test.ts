/**
 * Every `@example` in src/ is a fenced ts block: `deno task check` runs
 * `deno check --doc`, which compiles fenced blocks only, so an unfenced
 * example would go unchecked.
 */
import * as path from "node:path";
import { assertEquals } from "../testing/assert.ts";

const SRC = new URL("../src/", import.meta.url).pathname;

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory) yield* sources(full);
    else if (entry.name.endsWith(".ts")) yield full;
  }
}

/** The files of src/ with an `@example` whose next line does not open a ```ts fence. */
async function unfenced(): Promise<string[]> {
  const found: string[] = [];
  for await (const file of sources(SRC)) {
    const lines = (await Deno.readTextFile(file)).split("\n");
    const bare = lines.some((line, i) => /^\s*\* @example\b/.test(line) && lines[i + 1]?.trim() !== "* ```ts");
    if (bare) found.push(path.relative(SRC, file));
  }
  return found.sort();
}

Deno.test("doc examples: every @example in src/ is a fenced ts block that deno check --doc compiles", async () => {
  assertEquals(await unfenced(), []);
});
