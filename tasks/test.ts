/**
 * `deno task test [deno test args]`: runs the whole suite once with each
 * file backend the system has (src/workspace/: on Linux the fd-pinned one,
 * the POSIX fd-pinned one and the portable one, the last two selected by
 * WORKCELL_FILE_BACKEND for the tests and every server they start; on macOS
 * the POSIX one, its default, and the portable one), prints one line per run
 * and then one line `tests: N passed, M failed` over all of them, each
 * computed from the JUnit report of that very run; exits non-zero on any
 * failure.
 *
 * With WORKCELL_FILE_BACKEND set (`deno task test-portable` sets it to
 * `portable`) only that backend's run is made.
 */
import { LEFT_OUT } from "../src/testing/backend.ts";
import { FILE_BACKEND_ENV } from "../src/workspace/workspace.ts";

const root = new URL("..", import.meta.url).pathname;
const reportDir = `${root}.test-report/`;
await Deno.mkdir(reportDir, { recursive: true });

const extra = Deno.args.length > 0 ? Deno.args : ["src/", "packaging/", "tasks/", "tests/"];

/** One run of the suite with `backend` ("" for the default, the fd backend). */
interface Run {
  label: string;
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
  /** `file > test name: first line of the failure`, for each failed test case. */
  failures: string[];
}

async function runSuite(backend: string): Promise<Run> {
  const label = backend === "" ? "fd backend" : `${backend} backend`;
  const report = `${reportDir}junit${backend === "" ? "" : `-${backend}`}.xml`;
  await Deno.remove(report).catch(() => {});
  const env: Record<string, string> = { DENO_JOBS: "2" };
  if (backend !== "") env[FILE_BACKEND_ENV] = backend;
  console.log(`== ${label}: deno test ${extra.join(" ")}`);
  const started = performance.now();
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--allow-all", "--parallel", `--junit-path=${report}`, ...extra],
    cwd: root,
    env,
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
  return { label, passed, failed, skipped, seconds, failures };
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

const chosen = Deno.env.get(FILE_BACKEND_ENV);
const runs: Run[] = [];
// On macOS the default ("") is the POSIX fd backend (src/workspace/workspace.ts).
const backends = chosen !== undefined
  ? [chosen]
  : Deno.build.os === "darwin"
  ? ["", "portable"]
  : ["", "posix-fd", "portable"];
for (const backend of backends) runs.push(await runSuite(backend));
for (const [what, { backends: leftOutBy, why }] of Object.entries(LEFT_OUT)) {
  const runsLeavingOut = runs.filter((run) => leftOutBy.some((name) => run.label === `${name} backend`));
  if (runsLeavingOut.length === 0) continue;
  console.log(`Left out by the ${runsLeavingOut.map((run) => run.label).join(" and ")} (src/testing/backend.ts):`);
  console.log(`- ${what}: ${why}`);
}
for (const run of runs) {
  for (const failure of run.failures) console.log(`FAILED (${run.label}): ${failure}`);
}
for (const run of runs) {
  const skipped = run.skipped > 0 ? `, ${run.skipped} skipped` : "";
  console.log(
    `tests with the ${run.label}: ${run.passed} passed, ${run.failed} failed${skipped} (${run.seconds.toFixed(0)} s)`,
  );
}
const passed = runs.reduce((sum, run) => sum + run.passed, 0);
const failed = runs.reduce((sum, run) => sum + run.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
Deno.exit(failed > 0 ? 1 : 0);
