/**
 * The body of a sandbox Web Worker: it restricts its own thread with the
 * Landlock ruleset it is sent first, then spawns every child it is asked
 * for with spawnChild (posix_spawnp, pipes or PTY), so each child starts
 * inside the domain. Started only by sandbox.ts.
 *
 * Protocol: `{kind:"restrict", ruleset}` → `{kind:"restricted"}` or
 * `{kind:"failed", message}`; then `{kind:"spawn", id, request}` →
 * `{kind:"spawned", id, pid}` or `{kind:"spawn_failed", id, message, errno}`.
 */
/// <reference lib="deno.worker" />
import { type LandlockRuleset, restrictCurrentThread } from "./landlock.ts";
import { spawnChild } from "../exec/spawn.ts";
import { dropChildPrivileges } from "./thread_privileges.ts";
import type { SpawnRequest } from "../exec/spawn_request.ts";

/** Messages the worker accepts. */
export type SandboxRequest =
  | { kind: "restrict"; ruleset: LandlockRuleset }
  | { kind: "spawn"; id: number; request: SpawnRequest };

/** Messages the worker sends. */
export type SandboxReply =
  | { kind: "restricted" }
  | { kind: "failed"; message: string }
  | { kind: "spawned"; id: number; pid: number }
  | { kind: "spawn_failed"; id: number; message: string; errno: number | null };

let restricted = false;

function reply(message: SandboxReply): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<SandboxRequest>) => {
  const message = event.data;
  if (message.kind === "restrict") {
    try {
      dropChildPrivileges();
      restrictCurrentThread(message.ruleset);
      restricted = true;
      reply({ kind: "restricted" });
    } catch (error) {
      reply({ kind: "failed", message: (error as Error).message });
    }
    return;
  }
  if (!restricted) {
    // Never spawn from an unrestricted sandbox thread.
    reply({ kind: "spawn_failed", id: message.id, message: "the sandbox thread is not restricted", errno: null });
    return;
  }
  try {
    reply({ kind: "spawned", id: message.id, pid: spawnChild(message.request) });
  } catch (error) {
    const errno = (error as { errno?: unknown }).errno;
    reply({
      kind: "spawn_failed",
      id: message.id,
      message: (error as Error).message,
      errno: typeof errno === "number" ? errno : null,
    });
  }
};
