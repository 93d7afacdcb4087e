/**
 * zod through this one module: Deno 2.9.6 (`nodeModulesDir: "auto"`) re-checks node_modules (~3 ms) per local module
 * importing an npm specifier, so 29 direct importers cost ~90 ms per start (tests/module_graph_test.ts keeps it so).
 */
export { z } from "zod";
