import { assert, assertEquals } from "../../testing/assert.ts";
import {
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION as SDK_LATEST,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS as SDK_SUPPORTED,
} from "../sdk/mod.ts";
import { serverInfo } from "../metadata.ts";
import {
  initializeResult,
  LATEST_PROTOCOL_VERSION,
  plainInitialize,
  responseLine,
  SERVER_CAPABILITIES,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./initialize.ts";

Deno.test("initialize: the protocol versions are the SDK's, in its order", () => {
  assertEquals(LATEST_PROTOCOL_VERSION, SDK_LATEST);
  assertEquals([...SUPPORTED_PROTOCOL_VERSIONS], [...SDK_SUPPORTED]);
});

Deno.test("initialize: the result equals the SDK Server's own answer, key order included, for every version", async () => {
  const instructions = "workcell gives you one workspace: /repo.";
  const server = new Server(serverInfo(), { capabilities: SERVER_CAPABILITIES, instructions });
  const sdkAnswer = (server as unknown as { _oninitialize(request: unknown): Promise<unknown> })._oninitialize
    .bind(server);
  for (const version of [...SDK_SUPPORTED, "1999-01-01", "", "2025-11-25 "]) {
    const params = { protocolVersion: version, capabilities: {}, clientInfo: { name: "c", version: "1" } };
    assertEquals(
      JSON.stringify(initializeResult(version, instructions)),
      JSON.stringify(await sdkAnswer({ method: "initialize", params })),
      version,
    );
  }
});

const base = () => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {} as Record<string, unknown>,
    clientInfo: { name: "client", version: "1.0.0" } as Record<string, unknown>,
  },
});

/** Variations of a well-formed request: real clients' shapes and every near miss of each field. */
function corpus(): unknown[] {
  const values = [null, true, 0, 1.5, -1, "", "x", [], [{}], {}, { a: 1 }, { a: null }, { listChanged: true }];
  const cases: unknown[] = [];
  const variant = (edit: (message: ReturnType<typeof base>) => void) => {
    const message = base();
    edit(message);
    cases.push(message);
  };
  for (const value of values) {
    variant((m) => (m as Record<string, unknown>).id = value);
    variant((m) => (m as Record<string, unknown>).params = value);
    variant((m) => (m.params as Record<string, unknown>).protocolVersion = value);
    variant((m) => (m.params as Record<string, unknown>).capabilities = value);
    variant((m) => (m.params as Record<string, unknown>).clientInfo = value);
    variant((m) => (m.params as Record<string, unknown>)._meta = value);
    variant((m) => (m as Record<string, unknown>).extra = value);
    for (const key of ["experimental", "sampling", "elicitation", "roots", "tasks", "extensions", "other"]) {
      variant((m) => m.params.capabilities[key] = value);
      for (const inner of ["listChanged", "context", "tools", "form", "url", "applyDefaults", "x"]) {
        variant((m) => m.params.capabilities[key] = { [inner]: value });
        variant((m) => m.params.capabilities[key] = { form: { [inner]: value } });
      }
    }
    for (const key of ["name", "version", "title", "websiteUrl", "description", "icons", "other"]) {
      variant((m) => m.params.clientInfo[key] = value);
      variant((m) => m.params.clientInfo.icons = [{ src: "data:", [key]: value }]);
    }
    variant((m) => m.params.clientInfo.icons = [{ src: "a", sizes: [value] }]);
    variant((m) => m.params.clientInfo.icons = [{ src: "a", theme: value }]);
  }
  for (const id of [0, 2 ** 53, 2 ** 53 - 1, -5, "", "id"]) variant((m) => (m as Record<string, unknown>).id = id);
  for (const theme of ["light", "dark", "dim"]) variant((m) => m.params.clientInfo.icons = [{ src: "a", theme }]);
  variant((m) => (m as Record<string, unknown>).jsonrpc = "1.0");
  variant((m) => m.method = "ping");
  // What real clients send: Claude Code, the SDK's Client, VS Code.
  variant((m) => m.params.capabilities = { roots: {}, elicitation: {} });
  variant((m) => m.params.capabilities = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } });
  variant((m) =>
    m.params.clientInfo = {
      name: "vscode",
      title: "Visual Studio Code",
      version: "1.105.0",
      icons: [{ src: "https://x/y.png", mimeType: "image/png", sizes: ["48x48"] }],
    }
  );
  return cases;
}

Deno.test("plainInitialize: whatever it accepts, the transport's and the SDK's schemas accept too", () => {
  let accepted = 0;
  for (const message of corpus()) {
    const plain = plainInitialize(message);
    if (plain === null) continue;
    accepted++;
    const description = JSON.stringify(message);
    assert(JSONRPCMessageSchema.safeParse(message).success, `transport refuses ${description}`);
    const parsed = InitializeRequestSchema.safeParse(message);
    assert(parsed.success, `SDK refuses ${description}`);
    assertEquals(plain, {
      id: (message as { id: string | number }).id,
      protocolVersion: parsed.data.params.protocolVersion,
    });
  }
  assert(accepted > 100, `only ${accepted} accepted`);
});

Deno.test("plainInitialize: the requests of real clients are answered early; _meta and tasks wait for the SDK", () => {
  const claudeCode = base();
  claudeCode.params.capabilities = { roots: {}, elicitation: {} };
  assertEquals(plainInitialize(claudeCode), { id: 1, protocolVersion: "2025-06-18" });
  const withMeta = base();
  (withMeta.params as Record<string, unknown>)._meta = { progressToken: 1 };
  const withTasks = base();
  withTasks.params.capabilities = { tasks: {} };
  assertEquals([plainInitialize(withMeta), plainInitialize(withTasks), plainInitialize("x")], [null, null, null]);
});

Deno.test("responseLine: the line LineTransport writes for the SDK's initialize answer", () => {
  const line = new TextDecoder().decode(responseLine("a", initializeResult("2024-11-05", "hi")));
  assert(line.endsWith("}\n") && !line.slice(0, -1).includes("\n"));
  assertEquals(Object.keys(JSON.parse(line)), ["result", "jsonrpc", "id"]);
  assertEquals(JSON.parse(line).result, JSON.parse(JSON.stringify(initializeResult("2024-11-05", "hi"))));
});
