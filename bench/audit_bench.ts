/**
 * What the audit trail adds to a call: the same calls through the SDK client
 * over stdio to a server without `--audit-log` and one with it (the log in a
 * temp dir outside the workspace), interleaved round by round in one run.
 * Calls: `list_dir` (the fixed cost of a cheap call), `read_file`,
 * `exec_command true` (the event also carries the session's sandbox report)
 * and `apply_patch` (the patch text is hashed). Then, at domain level, one
 * event built and appended (SessionAudit.call). Target: ≤ 1.1× per call.
 */
import * as path from "node:path";
import { startServer, type TestServer } from "../tests/harness.ts";
import { AuditTrail } from "../src/audit/trail.ts";
import { AUDIT_LIMITS } from "../src/audit/limits.ts";
import { formatMs, latencyStats } from "./latency.ts";

const ROUNDS = 300;
const WARMUP = 30;

type Call = [string, (round: number) => Record<string, unknown>];
const CALLS: Call[] = [
  ["list_dir", () => ({})],
  ["read_file", () => ({ path: "notes.txt" })],
  ["exec_command", () => ({ cmd: "true" })],
  ["apply_patch", (round) => ({ patch: `*** Begin Patch\n*** Add File: f${round}.txt\n+line\n*** End Patch\n` })],
];

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-bench-audit-" }));
const log = path.join(dir, "audit.jsonl");
const servers: Record<"off" | "on", TestServer | null> = { off: null, on: null };
try {
  servers.off = await startServer();
  servers.on = await startServer({ args: ["--audit-log", log] });
  for (const server of Object.values(servers)) await Deno.writeTextFile(`${server!.workspace}/notes.txt`, "a\nb\nc\n");
  const samples: Record<string, Record<"off" | "on", number[]>> = {};
  for (const [tool] of CALLS) samples[tool] = { off: [], on: [] };
  console.error(`audit bench: ${ROUNDS} rounds of ${CALLS.length} calls, log off and on`);
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    // Alternate which server goes first, so neither always follows the other's work.
    const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
    for (const [tool, args] of CALLS) {
      for (const which of order) {
        const start = performance.now();
        const result = await servers[which]!.call(tool, args(round));
        const elapsed = performance.now() - start;
        if (result.isError) throw new Error(`${which} ${tool}: ${result.text}`);
        if (round >= WARMUP) samples[tool][which].push(elapsed);
      }
    }
  }
  const written = (await Deno.readTextFile(log)).split("\n").length - 1;
  const expected = 1 + (WARMUP + ROUNDS) * CALLS.length;
  if (written !== expected) throw new Error(`the log has ${written} lines, not ${expected}`);
  const bytes = (await Deno.stat(log)).size;

  // Domain level: one list_dir event built, redacted and appended.
  const trail = new AuditTrail({
    file: path.join(dir, "domain.jsonl"),
    maxBytes: AUDIT_LIMITS.defaultMaxBytes,
    required: false,
    mode: "safe",
    env: Deno.env.toObject(),
    secrets: [],
    onFatal: () => {},
  });
  const session = trail.session({ id: "bench", transport: "stdio" });
  const begin = { client: null, protocolVersion: null, workspace: dir };
  const domain: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const start = performance.now();
    await session.call({
      tool: "list_dir",
      requestId: i,
      arguments: { path: "src", depth: 2 },
      parsed: { path: "src", depth: 2, limit: 1000, include_hidden: false },
      structured: { ok: true, path: "src", entries: [], truncated: false },
      startedAt: Date.now(),
      durationMs: 0.3,
      cancelled: false,
      grants: [],
      sandbox: () => null,
    }, begin);
    domain.push(performance.now() - start);
  }
  await trail.close();

  const rows = CALLS.flatMap(([tool]) => {
    const off = latencyStats(samples[tool].off);
    const on = latencyStats(samples[tool].on);
    return [
      [`${tool} median`, formatMs(off.median), formatMs(on.median), (on.median / off.median).toFixed(2)],
      [`${tool} p90`, formatMs(off.p90), formatMs(on.p90), (on.p90 / off.p90).toFixed(2)],
    ];
  });
  const all = (which: "off" | "on") =>
    CALLS.reduce((sum, [tool]) => sum + latencyStats(samples[tool][which]).median, 0);
  rows.push([
    "sum of the four medians",
    formatMs(all("off")),
    formatMs(all("on")),
    (all("on") / all("off")).toFixed(2),
  ]);
  rows.push(["one event built and appended (domain level, median)", "—", formatMs(latencyStats(domain).median), "—"]);
  console.log([
    "## Audit trail: added cost per call (--audit-log on vs off)",
    "",
    `${ROUNDS} rounds after ${WARMUP} warm-up; a server without and one with \`--audit-log\` (safe mode, the log in a ` +
    "temp dir outside the workspace) called alternately through the SDK client over stdio, which goes first " +
    `alternating per round. The log ended with ${written} lines, ${Math.round(bytes / written)} bytes per event on ` +
    "average. Target: ≤ 1.1×.",
    "",
    "| call | log off | log on | ratio |",
    "|---|---|---|---|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n"));
} finally {
  for (const server of Object.values(servers)) await server?.close();
  await Deno.remove(dir, { recursive: true });
}
