/**
 * `deno task test [deno test args]`: runs the suite once (src/, packaging/,
 * tasks/, tests/ unless paths are given), with the system's own file backend
 * (src/workspace/workspace.ts); the POSIX fd backend's own tests run in it
 * as focused modules (src/workspace/posix_fd_backend_test.ts,
 * tests/posix_fd_backend_test.ts). Prints each failed test case and then
 * one line `tests: N passed, M failed`, computed from the JUnit report of
 * that very run; exits non-zero on any failure.
 */
const root = new URL("..", import.meta.url).pathname;
const reportDir = `${root}.test-report/`;
await Deno.mkdir(reportDir, { recursive: true });

/**
 * The longest test files go first (deno test runs files in the order given, a path named twice once): the npm
 * package's test is a ~70 s chain of pack, install and start, and started last it alone would set the run's end.
 */
const LONGEST_FIRST = ["tests/packages_test.ts", "tests/client_views_test.ts"];
const extra = Deno.args.length > 0 ? Deno.args : [...LONGEST_FIRST, "src/", "packaging/", "tasks/", "tests/"];

/** One run of the suite. */
interface Run {
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  /** `file > test name: first line of the failure`, for each failed test case. */
  failures: string[];
}

async function runSuite(): Promise<Run> {
  const report = `${reportDir}junit.xml`;
  await Deno.remove(report).catch(() => {});
  console.log(`== deno test ${extra.join(" ")}`);
  const started = performance.now();
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--parallel", `--junit-path=${report}`, ...extra],
    cwd: root,
    env: { DENO_JOBS: "2" },
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: string[] = [];
  try {
    const xml = await Deno.readTextFile(report);
    for (const match of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
      const body = match[3] ?? "";
      if (/<(failure|error)\b/.test(body)) {
        failed++;
        failures.push(describeFailure(match[1], body));
      } else if (/<skipped\b/.test(body)) skipped++;
      else passed++;
    }
  } catch (error) {
    console.error(`tasks/test.ts: cannot read the JUnit report: ${(error as Error).message}`);
    failed++;
    failures.push(`the JUnit report ${report}`);
  }
  if (!run.success && failed === 0) {
    failed = 1; // the runner failed outside any test case
    failures.push(`deno test itself (exit ${run.code}), outside any test case`);
  }
  return { passed, failed, skipped, seconds, failures };
}

/** Names a failed test case from its JUnit attributes and body, so the last lines of a CI log say what failed. */
function describeFailure(attributes: string, body: string): string {
  const attribute = (name: string) => attributes.match(new RegExp(`\\b${name}="([^"]*)"`))?.[1] ?? "";
  const message = body.match(/<(?:failure|error)\b[^>]*?message="([^"]*)"/)?.[1] ??
    body.match(/<(?:failure|error)\b[^>]*>([^<]*)/)?.[1] ?? "";
  const firstLine = unescapeXml(message).split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
  return `${unescapeXml(attribute("classname"))} > ${unescapeXml(attribute("name"))}: ${firstLine.slice(0, 300)}`;
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, entity: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[entity] ?? "",
  );
}

const run = await runSuite();
for (const failure of run.failures) console.log(`FAILED: ${failure}`);
const skipped = run.skipped > 0 ? `, ${run.skipped} skipped` : "";
console.log(`(${run.seconds.toFixed(0)} s${skipped})`);
console.log(`tests: ${run.passed} passed, ${run.failed} failed`);
Deno.exit(run.failed > 0 ? 1 : 0);
