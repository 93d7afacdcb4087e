import { assertEquals, assertRejects } from "../../testing/assert.ts";
import { eachLimited } from "./each_limited.ts";

/** A promise with its resolve, to hold a call in flight until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

Deno.test("eachLimited keeps at most `limit` calls in flight and starts them in order", async () => {
  let inFlight = 0;
  let peak = 0;
  const started: number[] = [];
  await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    started.push(n);
    peak = Math.max(peak, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
  });
  assertEquals(started, [1, 2, 3, 4, 5, 6, 7]);
  assertEquals(peak, 3);
});

Deno.test("eachLimited on no items calls nothing and resolves", async () => {
  let calls = 0;
  await eachLimited([], 4, () => Promise.resolve(calls++));
  assertEquals(calls, 0);
});

Deno.test("after a failure eachLimited starts no more, waits for the calls in flight, then throws the first", async () => {
  const slow = gate();
  const started: number[] = [];
  const finished: number[] = [];
  const run = eachLimited([1, 2, 3, 4], 2, async (n) => {
    started.push(n);
    if (n === 1) {
      await slow.promise;
      finished.push(n);
      return;
    }
    throw new Error(`fault ${n}`);
  });
  // Item 2 fails at once; item 1 is still in flight and must be waited for.
  setTimeout(slow.open, 5);
  const error = await assertRejects(() => run);
  assertEquals((error as Error).message, "fault 2");
  assertEquals(started, [1, 2]);
  assertEquals(finished, [1]);
});

Deno.test("a caller that catches inside fn gets every item tried", async () => {
  const tried: number[] = [];
  await eachLimited([1, 2, 3], 2, async (n) => {
    tried.push(n);
    await Promise.reject(new Error(`fault ${n}`)).catch(() => {});
  });
  assertEquals(tried, [1, 2, 3]);
});
