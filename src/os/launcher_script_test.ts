import { assertEquals, assertThrows } from "../../testing/assert.ts";
import { at, deref, LauncherScript, STEP_BYTES } from "./launcher_script.ts";

const BASE = 0x10000000n;

Deno.test("LauncherScript: count, 80-byte steps, then 8-aligned data at absolute addresses", () => {
  const script = new LauncherScript();
  const text = script.string("hi"); // 3 bytes, padded to 8
  const slot = script.slot();
  script.step("write", 1, [1, text, 2], { store: slot });
  script.step("close", 3, [deref(slot)], { onFailure: "continue" });
  script.step("skip", 3, [at(slot, 4)], { onFailure: "skip-next" });
  const bytes = script.serialize(BASE);
  const view = new DataView(bytes.buffer);
  const data = 8 + 3 * STEP_BYTES;
  assertEquals(view.getBigUint64(0, true), 3n);
  const step = (index: number, offset: number) => view.getBigUint64(8 + index * STEP_BYTES + offset, true);
  assertEquals([step(0, 0), step(0, 8), step(0, 16), step(0, 24)], [1n, 1n, BASE + BigInt(data), 2n]);
  assertEquals(step(0, 56), BASE + BigInt(data + 8)); // the slot follows the padded string
  assertEquals(step(0, 64), 0n); // a failure stops the launch
  // deref: the argument is the slot's address, flagged to be read at run time (bit 8 + argument index).
  assertEquals([step(1, 8), step(1, 64)], [BASE + BigInt(data + 8), 1n | (1n << 8n)]);
  assertEquals([step(2, 8), step(2, 64)], [BASE + BigInt(data + 12), 2n]);
  assertEquals(view.getUint32(8 + 2 * STEP_BYTES + 72, true), 2); // the step id
  assertEquals(new TextDecoder().decode(bytes.subarray(data, data + 2)), "hi");
  assertEquals(bytes.length, data + 16);
  assertEquals(script.labels, ["write", "close", "skip"]);
});

Deno.test("LauncherScript: pointer arrays (argv) point at their strings; exec is remembered", () => {
  const script = new LauncherScript();
  script.exec(59, "/bin/echo", ["echo", "a"], { K: "v" });
  assertEquals(script.execStep, 0);
  const bytes = script.serialize(BASE);
  const view = new DataView(bytes.buffer);
  const argv = Number(view.getBigUint64(8 + 16, true) - BASE);
  const first = Number(view.getBigUint64(argv, true) - BASE);
  assertEquals(new TextDecoder().decode(bytes.subarray(first, first + 4)), "echo");
  assertEquals(view.getBigUint64(argv + 16, true), 0n); // NULL-terminated
  const envp = Number(view.getBigUint64(8 + 24, true) - BASE);
  const entry = Number(view.getBigUint64(envp, true) - BASE);
  assertEquals(new TextDecoder().decode(bytes.subarray(entry, entry + 3)), "K=v");
});

Deno.test("LauncherScript: a NUL in a string and a seventh argument are refused", () => {
  const script = new LauncherScript();
  assertThrows(() => script.string("a\0b"));
  assertThrows(() => script.step("many", 1, [1, 2, 3, 4, 5, 6, 7]));
});

Deno.test("LauncherScript: numbers are written as u64 exactly as BigInt.asUintN(64) gives them, bigints too", () => {
  const values = [0, 1, -1, -100, 2 ** 31, -(2 ** 31), 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, -(2 ** 53 - 1), 0x7ffc0000];
  const script = new LauncherScript();
  for (let i = 0; i < values.length; i += 6) script.step(`n${i}`, 1, values.slice(i, i + 6));
  script.step("big", 2, [2n ** 64n - 1n, -5n, 2n ** 63n]);
  const view = new DataView(script.serialize(BASE).buffer);
  const arg = (step: number, index: number) => view.getBigUint64(8 + step * STEP_BYTES + 8 + 8 * index, true);
  values.forEach((value, i) =>
    assertEquals(arg(Math.floor(i / 6), i % 6), BigInt.asUintN(64, BigInt(value)), `${value}`)
  );
  assertEquals([arg(2, 0), arg(2, 1), arg(2, 2)], [2n ** 64n - 1n, 2n ** 64n - 5n, 2n ** 63n]);
  const unsafe = new LauncherScript();
  unsafe.step("unsafe", 1, [2 ** 53]);
  assertThrows(() => unsafe.serialize(BASE));
});
