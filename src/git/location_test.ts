import * as path from "node:path";
import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { git, initRepo, writeFiles } from "../../testing/git_fixtures.ts";
import type { ToolError } from "../errors.ts";
import { findRepository, locateRepository, trustedLocation } from "./location.ts";

Deno.test("location: a workspace inside a repository trusts that repository's git dir and the ignore files above it", async () => {
  const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-location-" }));
  try {
    await initRepo(top);
    await writeFiles(top, { ".gitignore": "x\n", "pkg/.gitignore": "y\n", "pkg/app/a.txt": "a\n" });
    const ws = path.join(top, "pkg/app");
    const trusted = trustedLocation(ws)!;
    assertEquals([trusted.top, trusted.gitDir, trusted.commonDir], [
      top,
      path.join(top, ".git"),
      path.join(top, ".git"),
    ]);
    assertEquals(trusted.readable.sort(), [
      path.join(top, ".git"),
      path.join(top, ".gitignore"),
      path.join(top, "pkg/.gitignore"),
    ]);
    assertEquals(locateRepository(ws, ws, trusted).readable, trusted.readable);
    // Without that trust (found by someone else), the same repository is refused.
    const refused = assertThrows(() => locateRepository(ws, ws, null)) as ToolError;
    assertEquals(refused.code, "PATH_OUTSIDE_WORKSPACE");
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});

Deno.test("location: a repository wholly inside the workspace needs no trust; none at all is NOT_A_GIT_REPO", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-location-" }));
  try {
    assertEquals(trustedLocation(ws), null);
    assertEquals((assertThrows(() => locateRepository(ws, ws, null)) as ToolError).code, "NOT_A_GIT_REPO");
    await initRepo(path.join(ws, "inner"));
    const inner = locateRepository(ws, path.join(ws, "inner"), null);
    assertEquals([inner.top, inner.readable], [path.join(ws, "inner"), []]);
    assert(findRepository(path.join(ws, "inner")) !== null);
    await git(ws, "init", "-q", "--bare", path.join(ws, "bare.git"));
    // A bare repository is not found by walking up (git itself needs safe.bareRepository=all for that).
    assertEquals(findRepository(path.join(ws, "bare.git")), null);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
