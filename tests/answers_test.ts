/**
 * Rough edges in answers (issue 32), each seen through the SDK client against the real server.
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { startServer } from "./harness.ts";

Deno.test("exec_command: an empty or blank cmd is INVALID_ARGUMENT 'cmd is empty', before the gate", async () => {
  await using server = await startServer();
  for (const cmd of ["", "   ", "\t\n"]) {
    const result = await server.call("exec_command", { cmd });
    assert(result.isError, result.text);
    assertEquals(result.structured.error.code, "INVALID_ARGUMENT", result.text);
    assert(result.text.includes("cmd is empty"), result.text);
    assert(!result.text.includes("runs nothing"), result.text);
    assert(result.structured.error.hint.includes('"cmd"'), result.text);
  }
});
