/**
 * zod, imported by the server through this one module. Deno 2.9.6 with
 * `nodeModulesDir: "auto"` re-checks the node_modules set-up (a file lock,
 * then a marker file of every installed package: about 3 ms here) for each
 * local module that imports an npm specifier, while it builds the module
 * graph before anything runs: the 29 modules that imported "zod" directly
 * cost about 90 ms of every start, one costs 3 ms
 * (tests/module_graph_test.ts keeps it so).
 *
 * @example
 * ```ts
 * import { z } from "./zod.ts";
 * const schema = z.object({ path: z.string() });
 * ```
 */
export { z } from "zod";
