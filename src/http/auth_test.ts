import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { UsageError } from "../config.ts";
import { AUTH_TOKEN_ENV, BearerGate, loadAuthToken, presentedToken } from "./auth.ts";

const TOKEN = "0123456789abcdef0123";

Deno.test("presentedToken: only a well-formed Bearer header counts", () => {
  assertEquals(presentedToken(`Bearer ${TOKEN}`), TOKEN);
  assertEquals(presentedToken(`bearer ${TOKEN}`), TOKEN);
  assertEquals(presentedToken(`Basic ${TOKEN}`), null);
  assertEquals(presentedToken(`Bearer ${TOKEN} extra`), null);
  assertEquals(presentedToken(null), null);
});

Deno.test("BearerGate: accepts the token, refuses others, and challenges with WWW-Authenticate", async () => {
  const gate = new BearerGate(TOKEN);
  const with_ = (value?: string) =>
    new Request("http://127.0.0.1/mcp", { headers: value === undefined ? {} : { authorization: value } });
  assert(await gate.accepts(with_(`Bearer ${TOKEN}`)));
  assert(!(await gate.accepts(with_(`Bearer ${TOKEN.slice(0, -1)}`))));
  assert(!(await gate.accepts(with_(`Bearer ${TOKEN}0`))));
  assert(!(await gate.accepts(with_())));
  const challenge = gate.challenge(with_("Bearer nope"));
  assertEquals(challenge.status, 401);
  assert(/error="invalid_token"/.test(challenge.headers.get("www-authenticate")!));
  assertEquals(gate.challenge(with_()).headers.get("www-authenticate"), 'Bearer realm="workcell"');
});

Deno.test("loadAuthToken: env token is taken and removed from the environment; no token is refused", async () => {
  const http = { host: "127.0.0.1" };
  Deno.env.set(AUTH_TOKEN_ENV, ` ${TOKEN}\n`);
  assertEquals(await loadAuthToken({ authTokenFile: null, httpNoAuth: false, http }, "/"), TOKEN);
  assertEquals(Deno.env.get(AUTH_TOKEN_ENV), undefined);
  const error = await assertRejects(() => loadAuthToken({ authTokenFile: null, httpNoAuth: false, http }, "/"));
  assert(error instanceof UsageError);
  Deno.env.set(AUTH_TOKEN_ENV, TOKEN);
  assertEquals(await loadAuthToken({ authTokenFile: null, httpNoAuth: true, http }, "/"), null);
  assertEquals(Deno.env.get(AUTH_TOKEN_ENV), undefined, "removed even when unused");
});
