/**
 * The shape of the module graph that start-up time depends on (measured in
 * bench/startup_bench.ts; docs/runtime-contract.md#start-up says where the
 * time goes), from `deno info --json`:
 * - main.ts's imports (what `--version`, `--help` and the early initialize
 *   and tools/list answers load) reach no npm package and stay a handful of
 *   modules, and no literal `import()` makes Deno build the server's graph
 *   up front: the server comes in by a computed specifier;
 * - the tools/list answer is the stored listing (schemas/tools.json through
 *   src/catalog_listing.ts): no tool module, no zod, no catalog;
 * - only a few funnel modules import npm specifiers: Deno 2.9.6 re-checks
 *   the node_modules set-up for each local module that does (about 3 ms
 *   each, while it builds the graph before anything runs).
 */
import { assert, assertEquals } from "../testing/assert.ts";

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
    "schemas/tools.json",
  ]);
  // 31 since the workspace pins its root through a file backend chosen at start-up (workspace.ts, handle.ts and
  // both backends): measured at +0.3-0.7 ms to the initialize answer, median of 30 interleaved starts. 33 with the
  // stored listing main.ts answers an early tools/list from (schemas/tools.json, catalog_listing.ts): spawn -> first
  // tools/list 218-242 -> 40 ms over raw JSON lines (961a297). 35 since src/os/fs_at.ts became three modules by
  // what the calls do (fs_call.ts, fs_change.ts): the same code, two more module records. 36 since libc.ts picks
  // its constants by system while it loads (os/darwin_abi.ts, a table: Linux loads it and uses none of it): a
  // dynamic import of it alone takes 0.37 ms, median of 30 processes, an upper bound of the static cost. 37 since
  // the portable backend's by-path identity acts are a module of their own (workspace/path_identity.ts): the same
  // code, one more module record. 38 with the allocator's setting (os/allocator.ts), made before anything large is
  // allocated. 41 with the POSIX fd backend (macOS's: workspace/posix_fd_backend.ts, the handle it shares with
  // Linux's, fd_handle.ts, and os/fs_posix.ts's fstat and readdir), which workspace.ts can choose at start. 42 since
  // fs_at.ts's stat calls are a module of their own (os/fs_stat.ts): the same code, one more module record. 43 with
  // the bounded wait for a lock (async/try_until.ts). 41 since the portable backend is gone (its module and
  // workspace/path_identity.ts); still 41 with src/os/ by concept (fs_posix.ts's stat calls in fs_stat.ts, its
  // readdir with getdents64 in fs_dir.ts: no cycle). Fewer since the workspace is bound in-process: no relaunch
  // (compiled/relaunch.ts) and no hand-off (session/handoff.ts).
  assert(loaded.length <= 41, `main.ts loads ${loaded.length} modules up front: ${loaded.join(", ")}`);
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
  // src/search/glob.ts wraps picomatch. src/image/codecs.ts reads imagescript's .wasm files, found through node's resolution, and imports none of it.
  assertEquals(importers, [
    "src/image/encode.ts",
    "src/patch/preview.ts",
    "src/sdk/http_server.ts",
    "src/sdk/mod.ts",
    "src/search/glob.ts",
    "src/search/ripgrep_binary.ts",
    "src/zod.ts",
  ]);
});

Deno.test("module graph: the tools/list answer (src/catalog_listing.ts) loads the stored listing, no tool, zod or SDK", async () => {
  const graph = await graphOf("src/catalog_listing.ts");
  assertEquals(loadedUpFront(graph, "src/catalog_listing.ts"), ["schemas/tools.json", "src/catalog_listing.ts"]);
  const early = loadedUpFront(await graphOf("main.ts"), "main.ts");
  assert(early.includes("src/catalog_listing.ts"), early.join(", "));
  const heavy = early.filter((specifier) =>
    specifier.startsWith("src/tools/") || specifier.startsWith("npm:") ||
    ["src/catalog.ts", "src/zod.ts", "src/sdk/mod.ts", "src/tool_schemas.ts"].includes(specifier)
  );
  assertEquals(heavy, []);
});
