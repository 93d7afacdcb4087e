/** The few assertions the tests use (jsr:@std/assert is unreachable here). */
import { deepStrictEqual } from "node:assert/strict";

/** Throws unless `condition` is truthy. */
export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

/** Deep structural equality (node:assert's strict deepEqual). */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  deepStrictEqual(actual, expected, message);
}

/** Awaits `fn` and returns the error it rejected with, failing if it resolved. */
export async function assertRejects(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Runs `fn` and returns what it threw, failing if it returned. */
export function assertThrows(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}
