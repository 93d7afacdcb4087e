import { assertEquals } from "../../testing/assert.ts";
import { ancestorIgnoreFiles } from "./ignore_files.ts";

Deno.test("ancestorIgnoreFiles: the regular ignore files of every ancestor, not the root's own nor symlinks", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-ignore-" }));
  try {
    const root = `${base}/repo/ws`;
    await Deno.mkdir(`${base}/repo/.git/info`, { recursive: true });
    await Deno.mkdir(root, { recursive: true });
    await Deno.writeTextFile(`${base}/repo/.gitignore`, "dist/\n");
    await Deno.writeTextFile(`${base}/repo/.git/info/exclude`, "*.log\n");
    await Deno.writeTextFile(`${base}/.rgignore`, "x\n");
    await Deno.writeTextFile(`${base}/secret`, "outside\n");
    await Deno.symlink(`${base}/secret`, `${base}/repo/.ignore`);
    await Deno.mkdir(`${base}/.ignore`); // a directory, not an ignore file
    await Deno.writeTextFile(`${root}/.gitignore`, "inside\n");
    const found = ancestorIgnoreFiles(root).filter((file) => file.startsWith(base));
    assertEquals(found.sort(), [`${base}/.rgignore`, `${base}/repo/.git/info/exclude`, `${base}/repo/.gitignore`]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
