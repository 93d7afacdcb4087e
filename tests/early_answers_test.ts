/**
 * The answers main.ts sends before the server has loaded
 * (src/session/early_initialize.ts) are the server's own: a client that
 * sends initialize, then notifications/initialized and tools/list at once
 * (answered early), reads the same tools/list as one that asks after the
 * server is up (answered by the server, from the same stored listing), for
 * the options that change the listing; and the session goes on as usual.
 */
import { assertEquals } from "../testing/assert.ts";
import { type RawMessage, type RawServer, startRawServer } from "./harness.ts";

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "early-test", version: "1" },
};

/** initialize, then the notification and tools/list in one write as soon as initialize is answered. */
async function listAtOnce(server: RawServer): Promise<RawMessage> {
  await server.request("initialize", INITIALIZE, { id: 1 });
  const listed = server.request("tools/list", undefined, { id: 2 });
  await server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return await listed;
}

/** initialize, then tools/list only once a ping shows the server itself answers. */
async function listLater(server: RawServer): Promise<RawMessage> {
  await server.request("initialize", INITIALIZE, { id: 1 });
  await server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  await server.request("ping", undefined, { id: 2 });
  const { id: _, ...answer } = await server.request("tools/list", undefined, { id: 3 });
  return { ...answer, id: 2 };
}

for (
  const args of [[], ["--disable-view-image", "--dangerously-fake-readonly-annotations", "--max-result-chars", "20000"]]
) {
  Deno.test(`early answers: tools/list sent at once equals the server's own answer (${args.join(" ") || "defaults"})`, async () => {
    await using early = await startRawServer(args);
    await using late = await startRawServer(args);
    const [soon, later] = await Promise.all([listAtOnce(early), listLater(late)]);
    assertEquals(JSON.stringify(soon), JSON.stringify(later));
    // The session goes on: the server, loaded meanwhile, answers the next call (and nothing twice).
    const info = await early.request("tools/call", { name: "server_info", arguments: {} }, { id: 3 });
    assertEquals(info.result.isError ?? false, false);
    assertEquals(early.nonJsonOutput(), []);
  });
}
