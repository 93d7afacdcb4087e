import { assertEquals } from "../../testing/assert.ts";
import {
  childEnvironment,
  CLIENT_DENO_DIR_ENV,
  envRule,
  inheritedEnvironment,
  sensitiveEnvKind,
} from "./child_environment.ts";

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
      "GIT_CONFIG_COUNT",
      "GIT_EXEC_PATH",
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
      "npm_config_//registry.npmjs.org/:_authToken",
      "SSH_AUTH_SOCK",
    ]
  ) {
    assertEquals(sensitiveEnvKind(name), "secret", name);
  }
  for (const name of ["PATH", "HOME", "LANG", "CI", "NODE_ENV", "GIT_AUTHOR_NAME", "KEYBOARD", "FOO"]) {
    assertEquals(sensitiveEnvKind(name), null, name);
  }
  // The server's own variables are stripped from children, but naming one in a request is not a secret.
  assertEquals(sensitiveEnvKind("WORKCELL_AUTH_TOKEN"), null);
  assertEquals(envRule("WORKCELL_AUTH_TOKEN")?.id, "server.own");
});

Deno.test("inheritedEnvironment: proxies, CA bundles and toolchains pass; secrets and loaders are stripped by rule", () => {
  const toolchain = {
    PATH: "/bin",
    HOME: "/root",
    LC_ALL: "C",
    JAVA_HOME: "/opt/jdk",
    HTTPS_PROXY: "http://proxy:3128",
    NO_PROXY: "localhost",
    NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
    SSL_CERT_FILE: "/etc/ca.pem",
    REQUESTS_CA_BUNDLE: "/etc/ca.pem",
    VIRTUAL_ENV: "/venv",
    GOPATH: "/go",
    CARGO_HOME: "/cargo",
    RANDOM_VAR: "1",
  };
  const inherited = {
    ...toolchain,
    AWS_SECRET_ACCESS_KEY: "s",
    GITHUB_TOKEN: "t",
    LD_PRELOAD: "x",
    TMPDIR: "/unusable",
  };
  assertEquals(inheritedEnvironment(inherited, { tmpdir: "/tmp/w", inheritAll: false }), {
    env: { ...toolchain, TMPDIR: "/tmp/w" },
    stripped: ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "LD_PRELOAD"],
    strippedBy: {
      AWS_SECRET_ACCESS_KEY: "secret.name",
      GITHUB_TOKEN: "secret.name",
      LD_PRELOAD: "loader.dynamic_linker",
    },
    added: { TMPDIR: "/tmp/w" },
  });
  // Without a private temp dir the server's (unusable) TMPDIR is not passed on either.
  const none = inheritedEnvironment(inherited, { tmpdir: null, inheritAll: false });
  assertEquals([none.env.TMPDIR, none.added], [undefined, {}]);
  // dangerous mode inherits everything but the server's own variables (the HTTP bearer token).
  assertEquals(inheritedEnvironment(inherited, { tmpdir: "/tmp/w", inheritAll: true }).stripped, []);
  const withToken = { ...inherited, WORKCELL_AUTH_TOKEN: "t" };
  assertEquals(inheritedEnvironment(withToken, { tmpdir: "/tmp/w", inheritAll: true }).strippedBy, {
    WORKCELL_AUTH_TOKEN: "server.own",
  });
});

Deno.test("inheritedEnvironment: children get back the DENO_DIR the npm launcher replaced, or none", () => {
  const server = { PATH: "/bin", DENO_DIR: "/home/u/.cache/workcell/deno-0.1.0-abc" };
  const options = { tmpdir: null, inheritAll: false };
  assertEquals(inheritedEnvironment({ ...server, [CLIENT_DENO_DIR_ENV]: "/home/u/deno" }, options).env, {
    PATH: "/bin",
    DENO_DIR: "/home/u/deno",
  });
  assertEquals(inheritedEnvironment({ ...server, [CLIENT_DENO_DIR_ENV]: "" }, options).env, { PATH: "/bin" });
  assertEquals(inheritedEnvironment({ ...server, [CLIENT_DENO_DIR_ENV]: "" }, { ...options, inheritAll: true }).env, {
    PATH: "/bin",
  });
  assertEquals(inheritedEnvironment(server, options).env, server);
});

Deno.test("childEnvironment: the anti-hang variables override the plan's, TERM by terminal kind, ssh never prompts", () => {
  const env = childEnvironment({ PAGER: "less", GIT_SSH_COMMAND: "ssh -i k", FOO: "1" }, false);
  assertEquals([env.PAGER, env.GIT_SSH_COMMAND, env.FOO, env.TERM], ["cat", "ssh -i k", "1", "dumb"]);
  assertEquals(childEnvironment({}, true).GIT_SSH_COMMAND, "ssh -o BatchMode=yes");
  assertEquals(childEnvironment({}, true).TERM, "xterm-256color");
});
