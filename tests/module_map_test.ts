/**
 * docs/architecture.md's module map matches the imports of src/: every
 * folder and root file has an entry, each entry's `Imports:` line names
 * exactly what its modules import, the graph has no cycle, nothing in
 * src/ imports from tests/ (nor, outside unit tests, from testing/), and
 * every `src/` path docs/ and README.md name exists.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../testing/assert.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SRC = path.join(ROOT, "src");
const MAP = path.join(ROOT, "docs", "architecture.md");

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory) yield* sources(full);
    else if (entry.name.endsWith(".ts")) yield full;
  }
}

/**
 * The relative specifiers a module imports: static imports and re-exports (deno fmt starts them at a line's
 * start), literal dynamic imports and `new URL(…, import.meta.url)` module references. Doc comment lines are
 * skipped: their examples are not the module's imports.
 */
function specifiersOf(text: string): string[] {
  const code = text.split("\n").filter((line) => !/^\s*(\*|\/\/)/.test(line)).join("\n");
  const found: string[] = [];
  const patterns = [
    /^(?:import|export)\b[^;'"]*?\bfrom\s*"(\.[^"]+)"/gm,
    /^import\s*"(\.[^"]+)"/gm,
    /\bimport\(\s*"(\.[^"]+)"\s*\)/g,
    /\bnew URL\(\s*"(\.[^"]+\.ts)",\s*import\.meta\.url\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** A module's node in the map: its top folder (`git/`) or, directly in src/, its file (`errors.ts`). */
function nodeOf(file: string): string {
  const relative = path.relative(SRC, file);
  return relative.includes("/") ? `${relative.split("/")[0]}/` : relative;
}

interface Imports {
  /** Node → the nodes its non-test modules import. */
  edges: Map<string, Set<string>>;
  /** Imports of tests/ from anywhere in src/, and of testing/ from its non-test modules. */
  fromTests: string[];
}

async function actualImports(): Promise<Imports> {
  const edges = new Map<string, Set<string>>();
  const fromTests: string[] = [];
  for await (const file of sources(SRC)) {
    const from = nodeOf(file);
    const unitTest = file.endsWith("_test.ts");
    if (!unitTest && !edges.has(from)) edges.set(from, new Set());
    for (const specifier of specifiersOf(await Deno.readTextFile(file))) {
      const target = path.resolve(path.dirname(file), specifier);
      if (!target.startsWith(SRC + "/")) {
        const testing = !unitTest && target.startsWith(path.join(ROOT, "testing") + "/");
        if (testing || target.startsWith(path.join(ROOT, "tests") + "/")) {
          fromTests.push(`${path.relative(ROOT, file)}: ${specifier}`);
        }
        continue;
      }
      const to = nodeOf(target);
      if (to !== from && !unitTest) edges.get(from)!.add(to);
    }
  }
  return { edges, fromTests };
}

/** The map's entries: `### \`src/<node>\`` headings, each with one `Imports:` paragraph. */
async function documentedImports(): Promise<Map<string, Set<string>>> {
  const map = new Map<string, Set<string>>();
  let node: string | null = null;
  let paragraph: string[] | null = null;
  const close = () => {
    if (node === null || paragraph === null) return;
    const text = paragraph.join(" ");
    map.set(
      node,
      new Set(text === "Imports: nothing in src/." ? [] : [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1])),
    );
    node = paragraph = null;
  };
  for (const line of (await Deno.readTextFile(MAP)).split("\n")) {
    const heading = /^### `src\/([^`]+)`$/.exec(line);
    if (heading) {
      close();
      assert(!map.has(heading[1]), `docs/architecture.md: ${heading[1]} has two entries`);
      node = heading[1];
    } else if (node !== null && line.startsWith("Imports:")) paragraph = [line.trim()];
    else if (paragraph !== null && line.trim() !== "") paragraph.push(line.trim());
    else close();
  }
  close();
  return map;
}

/** The nodes of `edges` on a cycle, or [] when it is acyclic. */
function cycle(edges: Map<string, Set<string>>): string[] {
  const state = new Map<string, "open" | "done">();
  const trail: string[] = [];
  const visit = (node: string): string[] => {
    if (state.get(node) === "done") return [];
    if (state.get(node) === "open") return [...trail.slice(trail.indexOf(node)), node];
    state.set(node, "open");
    trail.push(node);
    for (const next of edges.get(node) ?? []) {
      const found = visit(next);
      if (found.length > 0) return found;
    }
    trail.pop();
    state.set(node, "done");
    return [];
  };
  for (const node of edges.keys()) {
    const found = visit(node);
    if (found.length > 0) return found;
  }
  return [];
}

/**
 * The `src/` paths a Markdown text names outside its code blocks (those hold example paths of a workspace, such
 * as a patch's `src/app.ts`): a path starts after white space, a backtick or an opening bracket (not inside
 * `~/src/app`) and runs to the first character no path here uses.
 */
function srcPathsOf(markdown: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) found.push(...[...line.matchAll(/(?<=^|[\s`(["])src\/[\w./*{},-]*/g)].map((m) => m[0]));
  }
  return found;
}

/**
 * Whether a named `src/` path exists: a file or folder, or for a glob (`src/image/*_test.ts`) the folder before
 * its first wildcard. A sentence's closing full stop is not part of the path.
 */
async function namesSomething(named: string): Promise<boolean> {
  const wild = named.search(/[*{]/);
  const target = wild < 0 ? named.replace(/[.,]+$/, "") : named.slice(0, named.lastIndexOf("/", wild) + 1);
  try {
    await Deno.stat(path.join(ROOT, target));
    return true;
  } catch {
    return false;
  }
}

const sorted = (set: Iterable<string>) => [...set].sort();

Deno.test("module map: every folder and root file of src/ has one entry in docs/architecture.md", async () => {
  const { edges } = await actualImports();
  assertEquals(sorted((await documentedImports()).keys()), sorted(edges.keys()));
});

Deno.test("module map: each entry's Imports line names exactly what its modules import", async () => {
  const { edges } = await actualImports();
  const documented = await documentedImports();
  const wrong = sorted(edges.keys()).flatMap((node) => {
    const actual = sorted(edges.get(node)!);
    const said = sorted(documented.get(node) ?? []);
    return actual.join() === said.join()
      ? []
      : [`${node}: imports ${actual.join(", ") || "nothing"}; map says ${said.join(", ") || "nothing"}`];
  });
  assertEquals(wrong, []);
});

Deno.test("module map: folders and root files import each other without a cycle", async () => {
  assertEquals(cycle((await actualImports()).edges), []);
});

Deno.test("module map: nothing in src/ imports from tests/, nor outside unit tests from testing/", async () => {
  assertEquals((await actualImports()).fromTests, []);
});

Deno.test("module map: every src/ path docs/ and README.md name exists", async () => {
  const documents = ["README.md"];
  for await (const entry of Deno.readDir(path.join(ROOT, "docs"))) {
    if (entry.name.endsWith(".md")) documents.push(path.join("docs", entry.name));
  }
  const missing: string[] = [];
  for (const document of documents.sort()) {
    for (const named of srcPathsOf(await Deno.readTextFile(path.join(ROOT, document)))) {
      if (!(await namesSomething(named))) missing.push(`${document}: ${named}`);
    }
  }
  assertEquals(missing, []);
});

Deno.test("module map: the doc path scanner skips code blocks and paths inside other paths", () => {
  const text = [
    "See `src/a.ts`, src/b/ (and [src/c.ts](x)) or `deno test src/d_test.ts`.",
    "```patch",
    "*** Update File: src/app.ts",
    "```",
    "workcell --workspace ~/src/app; lib/src/e.ts",
  ].join("\n");
  assertEquals(srcPathsOf(text), ["src/a.ts", "src/b/", "src/c.ts", "src/d_test.ts"]);
});

Deno.test("module map: the import scanner sees static, multi-line, dynamic and URL imports but not doc examples", () => {
  const text = [
    "/**",
    ' * import { x } from "./example.ts";',
    " */",
    'import { a } from "./a.ts";',
    "import {",
    "  b,",
    "  type c,",
    '} from "../b.ts";',
    'export { d } from "./d.ts";',
    'import "./side.ts";',
    'const e = await import("./e.ts");',
    'new Worker(new URL("./worker.ts", import.meta.url), { type: "module" });',
    '// import("./commented.ts")',
  ].join("\n");
  assertEquals(specifiersOf(text).sort(), ["../b.ts", "./a.ts", "./d.ts", "./e.ts", "./side.ts", "./worker.ts"]);
});
