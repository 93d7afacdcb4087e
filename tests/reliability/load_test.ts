/**
 * Mixed load on ONE server process: 8 Streamable HTTP sessions at once, each
 * cycling through every read-only tool plus exec_command, read_output and
 * apply_patch in its own subdirectory, 400 calls in all (10,000 under
 * RELIABILITY_FULL=1). Every call must come back, well-formed (the SDK
 * client validates structuredContent against each outputSchema) and
 * correct; the server's RSS, sampled from /proc/<pid>/status, stays bounded.
 */
import { assert, assertEquals } from "../../testing/assert.ts";
import { type HttpClient, startHttpServer, TEST_TOKEN } from "../http_harness.ts";
import { type CallResult, tempWorkspace } from "../harness.ts";
import { rssMiB } from "./proc.ts";
import { FULL, scale } from "../../testing/scale.ts";

const CLIENTS = 8;
const CALLS_PER_CLIENT = scale(25, 1250);
/** Peak RSS the server may reach under this load (it idles near 100 MiB). */
const RSS_LIMIT_MIB = 400;
/** Growth allowed from the first to the last tenth of the run (full form only: a leak shows as a steady climb). */
const RSS_GROWTH_LIMIT_MIB = 96;
const RSS_SAMPLE_MS = 100;
const NOTE_LINES = 50;
/** A 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const note = (client: number) =>
  Array.from({ length: NOTE_LINES }, (_, line) => `client ${client} line ${line} marker-${client}\n`).join("");

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
}

/** A repository with one committed subdirectory per client: notes.txt and a PNG. */
async function workspace(): Promise<string> {
  const root = await tempWorkspace();
  for (let client = 0; client < CLIENTS; client++) {
    await Deno.mkdir(`${root}/c${client}/gen`, { recursive: true });
    await Deno.writeTextFile(`${root}/c${client}/notes.txt`, note(client));
    await Deno.writeFile(`${root}/c${client}/dot.png`, Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)));
  }
  await git(root, "init", "-q");
  await git(root, "add", "-A");
  await git(root, "commit", "-qm", "seed");
  return root;
}

/** One step of a client's cycle: makes its call(s), checks the answers, returns how many calls it made. */
type Step = (session: HttpClient, client: number, round: number) => Promise<number>;

function ok(result: CallResult, label: string): CallResult {
  assert(!result.isError && result.structured?.ok === true, `${label}: ${result.text.slice(0, 500)}`);
  return result;
}

const STEPS: Step[] = [
  async (s) => (ok(await s.call("server_info"), "server_info"), 1),
  async (s, c) => {
    const read = ok(await s.call("read_file", { path: `c${c}/notes.txt` }), "read_file");
    assertEquals(read.structured.text, note(c), "read_file text");
    return 1;
  },
  async (s, c) => {
    const listing = ok(await s.call("list_dir", { path: `c${c}` }), "list_dir");
    assert(listing.structured.entries.some((e: { name: string }) => e.name === "notes.txt"), "list_dir entries");
    return 1;
  },
  async (s, c) => {
    const files = ok(await s.call("list_files", { path: `c${c}`, glob: "*.txt" }), "list_files");
    assert(files.structured.files.some((f: { path: string }) => f.path === `c${c}/notes.txt`), "list_files files");
    return 1;
  },
  async (s, c) => {
    const found = ok(await s.call("search_text", { pattern: `marker-${c}`, path: `c${c}/notes.txt` }), "search_text");
    assertEquals(found.structured.matches.length, NOTE_LINES, "search_text matches");
    return 1;
  },
  async (s, c) => (ok(await s.call("git_status", { path: `c${c}` }), "git_status"), 1),
  async (s) => (ok(await s.call("git_log", { max_count: 5 }), "git_log"), 1),
  async (s, c) => (ok(await s.call("git_diff", { paths: [`c${c}`] }), "git_diff"), 1),
  async (s, c) => {
    const shown = ok(await s.call("git_show", { rev: "HEAD", path: `c${c}/notes.txt` }), "git_show");
    assert(shown.text.includes(`marker-${c}`), "git_show content");
    return 1;
  },
  async (
    s,
    c,
  ) => (ok(await s.call("git_blame", { path: `c${c}/notes.txt`, start_line: 1, end_line: 3 }), "git_blame"), 1),
  async (s, c) => (ok(await s.call("view_image", { path: `c${c}/dot.png` }), "view_image"), 1),
  async (s, c, round) => {
    const expected = `c${c}-r${round}\n`;
    const run = ok(await s.call("exec_command", { cmd: `echo c${c}-r${round}`, workdir: `c${c}` }), "exec_command");
    assertEquals([run.structured.status, run.structured.stdout], ["exited", expected], "exec_command");
    const page = ok(
      await s.call("read_output", { output_ref: `command:${run.structured.command_id}:stdout` }),
      "read_output",
    );
    assertEquals(page.structured.data, expected, "read_output data");
    return 2;
  },
  async (s, c, round) => {
    const file = `c${c}/gen/r${round}.txt`;
    const patch = `*** Begin Patch\n*** Add File: ${file}\n+round ${round}\n*** End Patch\n`;
    ok(await s.call("apply_patch", { patch }), "apply_patch add");
    const update = `*** Begin Patch\n*** Update File: ${file}\n@@\n-round ${round}\n+patched ${round}\n*** End Patch\n`;
    ok(await s.call("apply_patch", { patch: update }), "apply_patch update");
    const read = ok(await s.call("read_file", { path: file }), "read_file patched");
    assertEquals(read.structured.text, `patched ${round}\n`, "patched file");
    return 3;
  },
];

Deno.test(`${CLIENTS} HTTP sessions, ${CLIENTS * CALLS_PER_CLIENT} mixed calls on one server: all answered, RSS bounded`, async () => {
  const root = await workspace();
  await using server = await startHttpServer({ token: TEST_TOKEN, workspace: root });
  const pid = server.child.pid;
  const samples: number[] = [rssMiB(pid)];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), RSS_SAMPLE_MS);
  const failures: string[] = [];
  let answered = 0;
  try {
    const sessions = await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) => server.connect({ name: `load-${c}` })),
    );
    await Promise.all(sessions.map(async (session, client) => {
      let calls = 0;
      for (let round = 0; calls < CALLS_PER_CLIENT; round++) {
        const step = STEPS[(round + client) % STEPS.length];
        try {
          const made = await step(session, client, round);
          calls += made;
          answered += made;
        } catch (error) {
          calls++;
          failures.push(`client ${client} round ${round}: ${(error as Error).message.slice(0, 300)}`);
        }
      }
    }));
    await Promise.all(sessions.map((session) => session.close()));
  } finally {
    clearInterval(sampler);
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  samples.push(rssMiB(pid));
  assertEquals(failures, []);
  assert(answered >= CLIENTS * CALLS_PER_CLIENT, `${answered} answers`);
  const peak = Math.max(...samples);
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const first = Math.max(...samples.slice(0, tenth));
  const last = Math.max(...samples.slice(-tenth));
  console.error(
    `load: ${answered} calls, RSS first tenth ${first.toFixed(0)} MiB, last ${last.toFixed(0)}, peak ${
      peak.toFixed(0)
    }`,
  );
  assert(peak < RSS_LIMIT_MIB, `peak RSS ${peak.toFixed(0)} MiB`);
  if (FULL) assert(last - first < RSS_GROWTH_LIMIT_MIB, `RSS grew from ${first.toFixed(0)} to ${last.toFixed(0)} MiB`);
});
