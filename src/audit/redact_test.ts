import { assert, assertEquals } from "../../testing/assert.ts";
import { digest, isCredentialName, REDACTED, Redactor } from "./redact.ts";
import { AUDIT_LIMITS } from "./limits.ts";

const SECRET = "s3cr3t-value-0123456789";
const redactor = new Redactor(
  { MY_API_TOKEN: SECRET, GITHUB_SHA: "0123456789abcdef0123", PATH: "/usr/bin:/bin", SHORT_TOKEN: "abc" },
  ["http-bearer-token-0123456789"],
);

Deno.test("credential names come from the env rules: variables, options and keys", () => {
  for (const name of ["GITHUB_TOKEN", "--api-key", "--password", "db_password", "WORKCELL_AUTH_TOKEN", "PGPASSWORD"]) {
    assert(isCredentialName(name), name);
  }
  for (const name of ["PATH", "--verbose", "GITHUB_SHA", "AWS_REGION", "KEYBOARD", "--", ""]) {
    assert(!isCredentialName(name), name);
  }
});

Deno.test("text: each recognised form of a secret is redacted, the rest of the text is kept", () => {
  const cases: [string, string][] = [
    [`echo ${SECRET}`, `echo ${REDACTED}`],
    ["echo http-bearer-token-0123456789", `echo ${REDACTED}`],
    ["GITHUB_TOKEN=ghp_x make build", `GITHUB_TOKEN=${REDACTED} make build`],
    ["env 'DB_PASSWORD=hunter2 x' run", `env 'DB_PASSWORD=${REDACTED} x' run`],
    ["tool --api-key abc123 --verbose", `tool --api-key ${REDACTED} --verbose`],
    ['tool --password="a b c"', `tool --password=${REDACTED}`],
    ["curl https://user:pw@example.com/x", `curl https://user:${REDACTED}@example.com/x`],
    ["git clone https://ghp_abc@github.com/o/r", `git clone https://${REDACTED}@github.com/o/r`],
    ["curl 'https://h/x?access_token=abc&page=2'", `curl 'https://h/x?access_token=${REDACTED}&page=2'`],
    ['curl -H "Authorization: token abc" h', `curl -H "Authorization: ${REDACTED}" h`],
    ["send Bearer eyJhbGciOi.x-y", `send Bearer ${REDACTED}`],
    // Not credentials: provider values, short values, ordinary options and assignments.
    ["git show 0123456789abcdef0123", "git show 0123456789abcdef0123"],
    ["echo abc", "echo abc"],
    ["deno test --allow-env tests/ CI=1 NODE_ENV=test", "deno test --allow-env tests/ CI=1 NODE_ENV=test"],
    ["ssh git@github.com", "ssh git@github.com"],
  ];
  for (const [input, expected] of cases) assertEquals(redactor.text(input), expected, input);
});

Deno.test("arguments: content is digested, env values redacted, long strings digested, keys that name secrets redacted", async () => {
  const patch = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n";
  assertEquals(await redactor.arguments("apply_patch", { patch }), { patch: await digest(patch) });
  const sha = (await digest(patch)).sha256!;
  assertEquals(sha.length, 64);
  assertEquals(await redactor.arguments("write_stdin", { command_id: "c1", chars: "pw\n" }), {
    command_id: "c1",
    chars: { bytes: 3 },
  });
  assertEquals(
    await redactor.arguments("exec_command", { cmd: `echo ${SECRET}`, env: { MY_API_TOKEN: SECRET, CI: "1" } }),
    { cmd: `echo ${REDACTED}`, env: { MY_API_TOKEN: REDACTED, CI: REDACTED } },
  );
  const long = "x".repeat(AUDIT_LIMITS.maxInlineArgumentBytes + 1);
  assertEquals(await redactor.arguments("search_text", { pattern: long }), { pattern: await digest(long) });
  // A call that failed validation: anything, bounded.
  const wild = await redactor.arguments("nope", {
    token: SECRET,
    nested: { deeper: { list: Array.from({ length: AUDIT_LIMITS.maxListed + 3 }, (_, i) => i) } },
  }) as Record<string, unknown>;
  assertEquals(wild.token, REDACTED);
  const list = ((wild.nested as Record<string, Record<string, unknown>>).deeper.list) as unknown[];
  assertEquals(list.length, AUDIT_LIMITS.maxListed + 1);
  assertEquals(list.at(-1), "[3 more items]");
  assertEquals(await redactor.arguments("x", "not an object"), "not an object");
  assert(!JSON.stringify(wild).includes(SECRET));
});

Deno.test("digest: no SHA-256 for values too short to hide what they hold", async () => {
  assertEquals(await digest("short"), { bytes: 5 });
  const long = "a".repeat(AUDIT_LIMITS.minHashedBytes);
  assertEquals((await digest(long)).bytes, AUDIT_LIMITS.minHashedBytes);
  assert(/^[0-9a-f]{64}$/.test((await digest(long)).sha256!));
});
