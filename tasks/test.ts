/**
 * `deno task test [deno test args]`: runs the whole suite and prints one
 * line `tests: N passed, M failed` computed from the JUnit report of this
 * very run; exits non-zero on any failure.
 */
const reportDir = new URL("../.test-report/", import.meta.url).pathname;
await Deno.mkdir(reportDir, { recursive: true });
const report = `${reportDir}junit.xml`;
await Deno.remove(report).catch(() => {});

const extra = Deno.args.length > 0 ? Deno.args : ["src/", "packaging/", "tests/"];
const run = await new Deno.Command(Deno.execPath(), {
  args: ["test", "--allow-all", "--parallel", `--junit-path=${report}`, ...extra],
  cwd: new URL("..", import.meta.url).pathname,
  env: { DENO_JOBS: "2" },
  stdin: "null",
  stdout: "inherit",
  stderr: "inherit",
}).output();

let passed = 0;
let failed = 0;
try {
  const xml = await Deno.readTextFile(report);
  for (const match of xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = match[2] ?? "";
    if (/<(failure|error)\b/.test(body)) failed++;
    else if (!/<skipped\b/.test(body)) passed++;
  }
} catch (error) {
  console.error(`tasks/test.ts: cannot read the JUnit report: ${(error as Error).message}`);
  failed++;
}
if (!run.success && failed === 0) failed = 1; // the runner failed outside any test case
console.log(`tests: ${passed} passed, ${failed} failed`);
Deno.exit(failed > 0 || !run.success ? 1 : 0);
