import type { Command, StreamName } from "./command.ts";
import type { OutputStream } from "./output_stream.ts";
import { decodeWhole, previewRange } from "./preview.ts";
import { signalName } from "../os/libc.ts";

/** The state of a command as one poll reports it. */
export type CommandPoll = ReturnType<typeof pollOf>;
/** A page of read_output. */
export type OutputPage = ReturnType<typeof outputPageOf>;
/** One command as the listing shows it (check_exec_environment, server_info). */
export type CommandListing = ReturnType<typeof listingOf>;

/**
 * The output since the last poll (bounded to `maxBytes` per stream), advancing the command's cursors.
 * @example
 * ```ts
 * import type { Command } from "./command.ts";
 * declare const command: Command;
 * pollOf(command, 4096).stdout; // the preview of what stdout wrote since the last poll
 * ```
 */
export function pollOf(command: Command, maxBytes: number) {
  const preview = (name: StreamName) => {
    const result = previewRange(command.streams[name], command.cursors[name], maxBytes);
    command.cursors[name] = result.end;
    return result;
  };
  const exit = command.status === "exited" ? command.exit : null;
  return {
    command_id: command.id,
    cmd: command.cmd,
    status: command.status,
    exit_code: exit?.code ?? null,
    signal: exit?.signal ? signalName(exit.signal) : null,
    duration_ms: command.durationMs,
    tty: command.tty,
    stdin_open: command.stdinOpen,
    stdout: preview("stdout"),
    stderr: preview("stderr"),
    stdout_total_bytes: command.streams.stdout.total,
    stderr_total_bytes: command.streams.stderr.total,
  };
}

/**
 * A page of `stream` from `offset` (at most `limit` bytes, whole UTF-8 characters), named `outputRef`.
 * @example
 * ```ts
 * import type { Command } from "./command.ts";
 * declare const command: Command;
 * outputPageOf(command, `command:${command.id}:stdout`, command.streams.stdout, 0, 65536).next_offset;
 * ```
 */
export function outputPageOf(
  command: Command,
  outputRef: string,
  stream: OutputStream,
  offset: number,
  limit: number,
) {
  const page = stream.read(offset, limit);
  const decoded = decodeWhole(page.bytes, stream.closed && page.start + page.bytes.length === stream.total);
  const next = page.start + decoded.to;
  return {
    output_ref: outputRef,
    data: decoded.text,
    offset: page.start + decoded.from,
    next_offset: next,
    eof: stream.closed && next === stream.total,
    total_bytes: stream.total,
    retained: stream.retained(),
    evicted_gap_bytes: page.skipped,
    omitted_bytes: stream.evictedBytes,
    command_status: command.status,
  };
}

/**
 * One command as the session's listing shows it.
 * @example
 * ```ts
 * import type { Command } from "./command.ts";
 * declare const command: Command;
 * listingOf(command).started_at; // "2026-12-03T16:00:00.000Z"
 * ```
 */
export function listingOf(command: Command) {
  const exit = command.status === "exited" ? command.exit : null;
  return {
    command_id: command.id,
    cmd: command.cmd,
    status: command.status,
    pid: command.pid,
    started_at: new Date(command.startedAtEpoch).toISOString(),
    exit_code: exit?.code ?? null,
    signal: exit?.signal ? signalName(exit.signal) : null,
    tty: command.tty,
    stdout_bytes: command.streams.stdout.total,
    stderr_bytes: command.streams.stderr.total,
  };
}
