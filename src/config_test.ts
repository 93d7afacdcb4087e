import { assert, assertEquals, assertThrows } from "../testing/assert.ts";
import { parseArgs, parseHttpAddress, parseSize, UsageError } from "./config.ts";
import { AUDIT_LIMITS } from "./audit/limits.ts";

Deno.test("parseArgs: defaults", () => {
  assertEquals(parseArgs([]), {
    kind: "run",
    config: {
      workspace: null,
      mode: "safe",
      http: null,
      authTokenFile: null,
      httpNoAuth: false,
      viewImageEnabled: true,
      fakeReadonlyAnnotations: false,
      maxResultChars: 48_000,
      auditLog: null,
      auditLogMaxBytes: AUDIT_LIMITS.defaultMaxBytes,
      auditRequired: false,
    },
  });
});

Deno.test("parseArgs: every flag, in both spellings", () => {
  const parsed = parseArgs([
    "--workspace=/ws",
    "--mode",
    "trusted",
    "--http",
    ":8080",
    "--auth-token-file",
    "/t",
    "--disable-view-image",
    "--dangerously-fake-readonly-annotations",
    "--max-result-chars",
    "100000",
  ]);
  assert(parsed.kind === "run");
  assertEquals(parsed.config.workspace, "/ws");
  assertEquals(parsed.config.mode, "trusted");
  assertEquals(parsed.config.http, { host: "127.0.0.1", port: 8080 });
  assertEquals(parsed.config.authTokenFile, "/t");
  assertEquals(parsed.config.viewImageEnabled, false);
  assertEquals(parsed.config.fakeReadonlyAnnotations, true);
  assertEquals(parsed.config.maxResultChars, 100_000);
  assertEquals(parseArgs(["--help", "--mode", "bogus"]).kind, "help");
  assertEquals(parseArgs(["--version"]).kind, "version");
});

Deno.test("parseArgs: malformed command lines are UsageErrors naming the flag", () => {
  const cases: [string[], RegExp][] = [
    [["--bogus"], /unknown flag --bogus/],
    [["-w", "x"], /unknown flag -w/],
    [["stray"], /unexpected argument/],
    [["--mode"], /--mode needs a value/],
    [["--mode", "--http-no-auth"], /--mode needs a value/],
    [["--mode", "yolo"], /--mode must be one of/],
    [["--mode=safe", "--mode=safe"], /given more than once/],
    [["--workspace="], /non-empty/],
    [["--disable-view-image=1"], /takes no value/],
    [["--http", "nope"], /HOST:PORT/],
    [["--http", "1.2.3.4:99999"], /port must be/],
    [["--http-no-auth"], /only applies with --http/],
    [["--auth-token-file", "/t"], /only applies with --http/],
    [["--http", "0.0.0.0:8080", "--http-no-auth"], /refused on non-loopback/],
    [["--http", ":1", "--http-no-auth", "--auth-token-file", "x"], /exclude each other/],
    [["--max-result-chars", "19999"], /--max-result-chars must be an integer from 20000 to 500000/],
    [["--max-result-chars=500001"], /--max-result-chars must be/],
    [["--max-result-chars", "4e4"], /--max-result-chars must be/],
    [["--audit-required"], /needs --audit-log FILE/],
    [["--audit-log-max-bytes", "1M"], /only applies with --audit-log/],
    [["--audit-log", "/l", "--audit-log-max-bytes", "lots"], /expects a size/],
    [["--audit-log", "/l", "--audit-log-max-bytes", "1K"], /at least 64K/],
    [["--audit-required=yes"], /takes no value/],
  ];
  for (const [args, pattern] of cases) {
    const error = assertThrows(() => parseArgs(args));
    assert(error instanceof UsageError, `${args.join(" ")}: ${error}`);
    assert(pattern.test(error.message), `${args.join(" ")}: ${error.message}`);
  }
});

Deno.test("parseHttpAddress: hosts, IPv6 and ports", () => {
  assertEquals(parseHttpAddress("localhost:1"), { host: "localhost", port: 1 });
  assertEquals(parseHttpAddress("[::1]:8443"), { host: "::1", port: 8443 });
  assertEquals(parseHttpAddress("0.0.0.0:80"), { host: "0.0.0.0", port: 80 });
});

Deno.test("parseArgs: --print-server-card asks for the card with the rest of the configuration", () => {
  const parsed = parseArgs(["--print-server-card", "--disable-view-image"]);
  assertEquals(parsed.kind, "card");
  assert(parsed.kind === "card");
  assertEquals(parsed.config.viewImageEnabled, false);
  const http = parseArgs(["--print-server-card", "--http", ":9000", "--http-no-auth"]);
  assert(http.kind === "card" && http.config.http?.port === 9000 && http.config.httpNoAuth);
  assertEquals(parseArgs(["--print-server-card", "--help"]).kind, "help");
  assertThrows(() => parseArgs(["--print-server-card=yes"]));
});

Deno.test("parseArgs: the audit log from the flag, else WORKCELL_AUDIT_LOG; its size and --audit-required", () => {
  const flag = parseArgs(["--audit-log", "/a.jsonl", "--audit-log-max-bytes=2M", "--audit-required"], {
    WORKCELL_AUDIT_LOG: "/env.jsonl",
  });
  assert(flag.kind === "run");
  assertEquals([flag.config.auditLog, flag.config.auditLogMaxBytes, flag.config.auditRequired], [
    "/a.jsonl",
    2 << 20,
    true,
  ]);
  const env = parseArgs(["--audit-required"], { WORKCELL_AUDIT_LOG: "/env.jsonl" });
  assert(env.kind === "run" && env.config.auditLog === "/env.jsonl");
  const empty = parseArgs([], { WORKCELL_AUDIT_LOG: "" });
  assert(empty.kind === "run" && empty.config.auditLog === null);
  assertEquals(parseArgs(["--audit-summary", "/a.jsonl"]), { kind: "audit-summary", file: "/a.jsonl" });
  assertEquals([parseSize("65536"), parseSize("64k"), parseSize("1G")], [65536, 65536, 1 << 30]);
});
