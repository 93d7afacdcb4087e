import { assertEquals, assertRejects } from "../../testing/assert.ts";
import { SerialQueue } from "./serial.ts";

Deno.test("SerialQueue runs tasks one at a time in call order, and a failure does not stop the queue", async () => {
  const queue = new SerialQueue();
  const log: string[] = [];
  let running = 0;
  const task = (name: string, ms: number) => async () => {
    running++;
    log.push(`${name}:${running}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    running--;
    return name;
  };
  const failing = queue.run(() => Promise.reject(new Error("boom")));
  const results = Promise.all([queue.run(task("a", 20)), queue.run(task("b", 1)), queue.run(task("c", 5))]);
  await assertRejects(() => failing);
  assertEquals(await results, ["a", "b", "c"]);
  assertEquals(log, ["a:1", "b:1", "c:1"]);
});
