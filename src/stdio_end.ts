/**
 * Ends a stdio session when the client closes stdin, once every request it
 * sent has been answered. The SDK's StdioServerTransport does not watch for
 * end of input; the process used to exit only because its event loop
 * drained, which never happens while the sandbox worker (src/policy/) or a
 * command is alive.
 *
 * @example
 * const transport = new StdioServerTransport();
 * await server.connect(transport);
 * closeAtEndOfInput(server, transport, process.stdin);
 */
import type { Server, StdioServerTransport } from "./sdk/mod.ts";

type MessageId = string | number;

/** Closes `server` after `input` ended and no request read from `transport` is still unanswered. */
export function closeAtEndOfInput(
  server: Server,
  transport: StdioServerTransport,
  input: { once(event: "end", listener: () => void): unknown },
): void {
  const pending = new Set<MessageId>();
  let ended = false;
  const settle = () => {
    if (ended && pending.size === 0) void server.close();
  };
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ("method" in message && "id" in message) pending.add(message.id as MessageId);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    await send(message);
    if (!("method" in message) && "id" in message) {
      pending.delete(message.id as MessageId);
      settle();
    }
  };
  input.once("end", () => {
    ended = true;
    settle();
  });
}
