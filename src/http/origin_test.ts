import { assertEquals } from "../../testing/assert.ts";
import { OriginCheck } from "./origin.ts";

function request(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:8080/mcp", { headers });
}

Deno.test("OriginCheck: loopback bind accepts loopback Host/Origin on its port and refuses everything else", () => {
  const check = new OriginCheck({ host: "127.0.0.1", port: 8080 });
  const cases: [Record<string, string>, boolean][] = [
    [{ host: "127.0.0.1:8080" }, true],
    [{ host: "localhost:8080" }, true],
    [{ host: "[::1]:8080" }, true],
    [{ host: "LOCALHOST:8080", origin: "http://localhost:3000" }, true],
    [{ host: "127.0.0.1:8080", origin: "http://[::1]:8080" }, true],
    [{ host: "evil.example:8080" }, false],
    [{ host: "127.0.0.1:9090" }, false],
    [{ host: "127.0.0.1" }, false],
    [{ host: "127.0.0.1.evil.example:8080" }, false],
    [{ host: "127.0.0.1:8080", origin: "http://evil.example" }, false],
    [{ host: "127.0.0.1:8080", origin: "http://localhost.evil.example:8080" }, false],
    [{ host: "127.0.0.1:8080", origin: "null" }, false],
    [{ host: "127.0.0.1:8080", origin: "file://" }, false],
    [{ host: "a:b:c" }, false],
  ];
  for (const [headers, allowed] of cases) {
    assertEquals(check.problem(request(headers)) === null, allowed, JSON.stringify(headers));
  }
});

Deno.test("OriginCheck: a specific bind wants its own address; a wildcard bind wants a same-origin Origin", () => {
  const specific = new OriginCheck({ host: "192.0.2.7", port: 443 });
  assertEquals(specific.problem(request({ host: "192.0.2.7:443" })), null);
  assertEquals(specific.problem(request({ host: "localhost:443" })) !== null, true);
  const wildcard = new OriginCheck({ host: "0.0.0.0", port: 8080 });
  assertEquals(wildcard.problem(request({ host: "box.lan:8080" })), null);
  assertEquals(wildcard.problem(request({ host: "box.lan:8080", origin: "http://box.lan:8080" })), null);
  assertEquals(wildcard.problem(request({ host: "box.lan:8080", origin: "http://evil.example" })) !== null, true);
});
