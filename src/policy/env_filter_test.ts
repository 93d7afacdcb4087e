import { assertEquals } from "../../tests/assert.ts";
import { childEnvironment, sensitiveEnvKind } from "./env_filter.ts";

Deno.test("sensitiveEnvKind: loaders and secret-looking names, not ordinary ones", () => {
  for (
    const name of [
      "LD_PRELOAD",
      "LD_LIBRARY_PATH",
      "DYLD_INSERT_LIBRARIES",
      "NODE_OPTIONS",
      "BASH_ENV",
      "ENV",
      "GIT_SSH_COMMAND",
      "PYTHONSTARTUP",
      "BASH_FUNC_x%%",
    ]
  ) {
    assertEquals(sensitiveEnvKind(name), "loader", name);
  }
  for (
    const name of [
      "GITHUB_TOKEN",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_PROFILE",
      "OPENAI_API_KEY",
      "DB_PASSWORD",
      "MY_SECRET_VALUE",
      "SSH_KEY",
      "npm_token",
    ]
  ) {
    assertEquals(sensitiveEnvKind(name), "secret", name);
  }
  for (const name of ["PATH", "HOME", "LANG", "CI", "NODE_ENV", "GIT_AUTHOR_NAME", "KEYBOARD", "FOO"]) {
    assertEquals(sensitiveEnvKind(name), null, name);
  }
});

Deno.test("childEnvironment: the allowlist passes, everything else is stripped and named, TMPDIR is added", () => {
  const inherited = {
    PATH: "/bin",
    HOME: "/root",
    LC_ALL: "C",
    AWS_SECRET_ACCESS_KEY: "s",
    LD_PRELOAD: "x",
    RANDOM_VAR: "1",
  };
  assertEquals(childEnvironment(inherited, { tmpdir: "/tmp/w", inheritAll: false }), {
    env: { PATH: "/bin", HOME: "/root", LC_ALL: "C", TMPDIR: "/tmp/w" },
    stripped: ["AWS_SECRET_ACCESS_KEY", "LD_PRELOAD", "RANDOM_VAR"],
    added: { TMPDIR: "/tmp/w" },
  });
  // dangerous mode inherits everything but the server's own variables (the HTTP bearer token).
  assertEquals(childEnvironment(inherited, { tmpdir: "/tmp/w", inheritAll: true }).stripped, []);
  const withToken = { ...inherited, WORKCELL_AUTH_TOKEN: "t" };
  assertEquals(childEnvironment(withToken, { tmpdir: "/tmp/w", inheritAll: true }).stripped, ["WORKCELL_AUTH_TOKEN"]);
});
