import { assertEquals } from "../testing/assert.ts";
import { Termination } from "./termination.ts";

Deno.test("Termination runs the shutdown set last, once", async () => {
  const termination = new Termination();
  const ran: string[] = [];
  termination.set(() => Promise.resolve(void ran.push("first")));
  termination.set(() => Promise.resolve(void ran.push("second")));
  await termination.run();
  await termination.run();
  assertEquals(ran, ["second"]);
});
