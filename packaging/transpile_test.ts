import { assertEquals } from "../testing/assert.ts";
import { jsSpecifiers } from "./transpile.ts";

Deno.test("jsSpecifiers: relative .ts imports, dynamic imports and URLs become .js; the rest stays", () => {
  const code = [
    'import { a } from "./a.ts";',
    "export * from '../b/c.ts';",
    'const m = await import("./render.ts");',
    'new Worker(new URL("./render_worker.ts", import.meta.url));',
    'import { z } from "zod";',
    'const note = "see src/x.ts";',
  ].join("\n");
  assertEquals(
    jsSpecifiers(code),
    [
      'import { a } from "./a.js";',
      "export * from '../b/c.js';",
      'const m = await import("./render.js");',
      'new Worker(new URL("./render_worker.js", import.meta.url));',
      'import { z } from "zod";',
      'const note = "see src/x.ts";',
    ].join("\n"),
  );
});
