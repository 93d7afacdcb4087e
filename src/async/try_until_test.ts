import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { tryUntil } from "./try_until.ts";

Deno.test("tryUntil: resolves once the attempt succeeds, rejects with TimedOut when the time is up, stops on a throw", async () => {
  let calls = 0;
  await tryUntil(() => ++calls === 4, 1000, "the fourth call");
  assertEquals(calls, 4);
  const started = performance.now();
  const error = await assertRejects(() => tryUntil(() => false, 60, "the lock"));
  assert(
    error instanceof Deno.errors.TimedOut && /the lock was not free within 0.06 s/.test(error.message),
    String(error),
  );
  assert(performance.now() - started >= 60, "it waited the whole time");
  const thrown = await assertRejects(() =>
    tryUntil(
      () => {
        throw new RangeError("no");
      },
      1000,
      "x",
    )
  );
  assert(thrown instanceof RangeError);
});
