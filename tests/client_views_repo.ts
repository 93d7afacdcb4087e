/**
 * The repository of the client-views issue, generated in about a second
 * with one `git fast-import` stream: 1,500 TypeScript-like source files in
 * 15 directories, a 5,000-line `big.ts`, 1,200 commits by 8 authors (the
 * first adds everything, then each changes one file, every 40th also
 * `big.ts`), and a 300-file unstaged diff in the work tree.
 *
 * @example
 * const repo = await createClientViewsRepo(await Deno.makeTempDir());
 * repo.sourceFiles.length; // 1500
 */
import * as path from "node:path";
import { fastImport, fastImportData, initRepo } from "../testing/git_fixtures.ts";
import { seededRandom } from "../testing/random.ts";

/** What was generated. */
export interface ClientViewsRepo {
  dir: string;
  /** Every tracked file, sorted (code-unit order). */
  files: string[];
  /** The 1,500 source files. */
  sourceFiles: string[];
  /** The files with unstaged changes. */
  modified: string[];
  commits: number;
  bigFile: string;
  bigLines: number;
}

const AREAS = 15;
const FILES_PER_AREA = 100;
const COMMITS = 1200;
const BIG_LINES = 5000;
const MODIFIED = 300;
const AUTHORS = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Ken Thompson"]
  .concat(["Margaret Hamilton", "Donald Knuth"]);

/** Source-like lines: imports, functions, indented bodies with tabs, quotes and comments. */
function sourceText(name: string, lines: number, version: number): string {
  const next = seededRandom(name.length * 7919 + version);
  const out = [`// ${name} (version ${version})`, `import { helper } from "../shared/helper.ts";`, ""];
  let fn = 0;
  while (out.length < lines) {
    const kind = next();
    if (kind < 0.12) {
      out.push(`export function ${name.replace(/\W/g, "_")}_${fn++}(input: string, count = ${out.length}): string {`);
    } else if (kind < 0.2) out.push("}", "");
    else if (kind < 0.35) out.push(`\t// step ${out.length}: keep the "${name}" state consistent with the cache`);
    else if (kind < 0.7) out.push(`\tconst value${out.length} = helper(input, ${Math.floor(next() * 1000)});`);
    else out.push(`\tif (value${out.length - 1} !== "${name}") return \`\${input}-${out.length}\`;`);
  }
  return out.slice(0, lines).join("\n") + "\n";
}

function bigText(version: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= BIG_LINES; i++) {
    // Every version rewrites a different band of 20 lines, so blame spreads over many commits.
    const touched = Math.floor((i - 1) / 20) % 250 === version % 250 && version > 0;
    lines.push(
      i % 50 === 1
        ? `export function section${i}(data: Record<string, number>): number {`
        : `\tconst row${i} = data["key_${i}"] ?? ${touched ? version : i}; // line ${i}${
          touched ? ` v${version}` : ""
        }`,
    );
  }
  return lines.join("\n") + "\n";
}

/**
 * Builds the repository in `dir` (created), with HEAD checked out and the unstaged changes made.
 *
 * @example
 * await createClientViewsRepo("/tmp/cv");
 */
export async function createClientViewsRepo(dir: string): Promise<ClientViewsRepo> {
  await initRepo(dir);
  const next = seededRandom(42);
  const sourceFiles: string[] = [];
  const lineCounts = new Map<string, number>();
  for (let a = 0; a < AREAS; a++) {
    for (let f = 0; f < FILES_PER_AREA; f++) {
      const file = `src/area_${String(a).padStart(2, "0")}/module_${String(f).padStart(3, "0")}.ts`;
      sourceFiles.push(file);
      lineCounts.set(file, 20 + Math.floor(next() * next() * 400));
    }
  }
  const data = fastImportData;
  const versions = new Map<string, number>();
  await fastImport(dir, async (write) => {
    for (let i = 1; i <= COMMITS; i++) {
      const author = AUTHORS[i % AUTHORS.length];
      const email = `${author.split(" ")[0].toLowerCase()}@example.org`;
      const when = 1_700_000_000 + i * 3600;
      let changes = "";
      let subject: string;
      if (i === 1) {
        subject = "Initial import of every module";
        changes += `M 100644 inline big.ts\n${data(bigText(0))}`;
        changes += `M 100644 inline README.md\n${data("# client views fixture\n")}`;
        changes += `M 100644 inline package.json\n${data('{ "name": "fixture", "version": "1.0.0" }\n')}`;
        for (const file of sourceFiles) {
          changes += `M 100644 inline ${file}\n${data(sourceText(file, lineCounts.get(file)!, 0))}`;
        }
      } else {
        const file = sourceFiles[Math.floor(next() * sourceFiles.length)];
        const version = (versions.get(file) ?? 0) + 1;
        versions.set(file, version);
        subject = `${path.basename(file, ".ts")}: revise step ${i} in ${path.dirname(file)}`;
        changes += `M 100644 inline ${file}\n${data(sourceText(file, lineCounts.get(file)!, version))}`;
        if (i % 40 === 0) changes += `M 100644 inline big.ts\n${data(bigText(i / 40))}`;
      }
      const message = `${subject}\n\nCommit ${i} of the fixture, by ${author}.\nIt keeps the modules consistent.\n`;
      await write(
        `commit refs/heads/main\nmark :${i}\n` +
          `author ${author} <${email}> ${when} +0200\ncommitter ${author} <${email}> ${when} +0200\n` +
          data(message) + (i > 1 ? `from :${i - 1}\n` : "") + changes + "\n",
      );
    }
  });

  const modified = sourceFiles.filter((_, i) => i % 5 === 2).slice(0, MODIFIED);
  for (const file of modified) {
    const abs = path.join(dir, file);
    const lines = (await Deno.readTextFile(abs)).split("\n");
    lines.splice(1, 0, `// unstaged edit of ${file}`);
    lines.splice(Math.floor(lines.length / 2), 1, `\tconst edited = "${file}"; // changed in the work tree`);
    await Deno.writeTextFile(abs, lines.join("\n"));
  }
  const files = ["README.md", "big.ts", "package.json", ...sourceFiles].sort();
  return { dir, files, sourceFiles, modified, commits: COMMITS, bigFile: "big.ts", bigLines: BIG_LINES };
}
