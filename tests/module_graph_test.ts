/**
 * The shape of the module graph that start-up time depends on (measured in
 * bench/startup_bench.ts; docs/runtime-contract.md#start-up says where the
 * time goes), from `deno info --json`:
 * - main.ts's imports (what `--version`, `--help` and the early initialize
 *   answer load) reach no npm package and stay a handful of modules, and
 *   no literal `import()` makes Deno build the server's graph up front: the
 *   server comes in by a computed specifier;
 * - only a few funnel modules import npm specifiers: Deno 2.9.6 re-checks
 *   the node_modules set-up for each local module that does (about 3 ms
 *   each, while it builds the graph before anything runs).
 */
import { assert, assertEquals } from "../src/testing/assert.ts";

const ROOT = new URL("..", import.meta.url);

interface Dependency {
  specifier: string;
  code?: { specifier: string };
}
interface Graph {
  modules: { specifier: string; dependencies?: Dependency[] }[];
}

async function graphOf(entry: string): Promise<Graph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", new URL("deno.json", ROOT).pathname, new URL(entry, ROOT).pathname],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert(out.success, `deno info ${entry} failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const local = (specifier: string) => specifier.replace(ROOT.href, "");

/** The modules Deno loads before `entry` runs: code imports, literal dynamic ones included, type-only ones not. */
function loadedUpFront(graph: Graph, entry: string): string[] {
  const byName = new Map(graph.modules.map((module) => [module.specifier, module]));
  const seen = new Set<string>();
  const visit = (specifier: string) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    for (const dependency of byName.get(specifier)?.dependencies ?? []) {
      if (dependency.code) visit(dependency.code.specifier);
    }
  };
  visit(new URL(entry, ROOT).href);
  return [...seen].map(local).sort();
}

Deno.test("module graph: main.ts loads no npm package and few modules before it runs; the server comes later", async () => {
  const graph = await graphOf("main.ts");
  const loaded = loadedUpFront(graph, "main.ts");
  assertEquals(loaded.filter((specifier) => !specifier.startsWith("src/") && !specifier.startsWith("node:")), [
    "deno.json",
    "main.ts",
  ]);
  // 31 since the workspace pins its root through a file backend chosen at start-up (workspace.ts, handle.ts and
  // both backends): measured at +0.3-0.7 ms to the initialize answer, median of 30 interleaved starts. 32 since
  // libc.ts picks its constants by system while it loads (os/darwin_abi.ts, a table: Linux loads it and uses none
  // of it): a dynamic import of it alone takes 0.37 ms, median of 30 processes, an upper bound of the static cost.
  assert(loaded.length <= 32, `main.ts loads ${loaded.length} modules up front: ${loaded.join(", ")}`);
  assert(!loaded.includes("src/serve.ts") && !loaded.includes("src/server.ts"), loaded.join(", "));
});

Deno.test("module graph: npm specifiers are imported by a few funnel modules only (zod through src/zod.ts)", async () => {
  const graph = await graphOf("src/serve.ts");
  const importers = graph.modules
    .filter((module) =>
      module.specifier.startsWith(ROOT.href) &&
      (module.dependencies ?? []).some((dependency) => dependency.code?.specifier.startsWith("npm:"))
    )
    .map((module) => local(module.specifier))
    .sort();
  assertEquals(importers, [
    "src/image/decode.ts",
    "src/image/encode.ts",
    "src/patch/preview.ts",
    "src/sdk/http_server.ts",
    "src/sdk/mod.ts",
    "src/search/ripgrep_binary.ts",
    "src/zod.ts",
  ]);
});
