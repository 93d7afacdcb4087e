import type { Command, StreamName } from "./command.ts";
import type { ByteRange, OutputStream } from "./output_stream.ts";
import { decodeWhole, previewRange, type StreamPreview } from "./preview.ts";
import { signalName } from "../os/libc.ts";

/** The state of a command as one poll reports it. */
export interface CommandPoll {
  command_id: string;
  cmd: string;
  status: "running" | "exited";
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  tty: boolean;
  stdin_open: boolean;
  stdout: StreamPreview;
  stderr: StreamPreview;
  stdout_total_bytes: number;
  stderr_total_bytes: number;
}

/** A page of read_output. */
export interface OutputPage {
  output_ref: string;
  data: string;
  offset: number;
  next_offset: number;
  eof: boolean;
  total_bytes: number;
  retained: ByteRange[];
  evicted_gap_bytes: number;
  omitted_bytes: number;
  command_status: "running" | "exited";
}

/** One command as the listing shows it (check_exec_environment, server_info). */
export interface CommandListing {
  command_id: string;
  cmd: string;
  status: "running" | "exited";
  pid: number;
  started_at: string;
  exit_code: number | null;
  signal: string | null;
  tty: boolean;
  stdout_bytes: number;
  stderr_bytes: number;
}

/**
 * The output since the last poll (bounded to `maxBytes` per stream), advancing the command's cursors.
 * @example
 * ```ts
 * import type { Command } from "./command.ts";
 * declare const command: Command;
 * pollOf(command, 4096).stdout; // the preview of what stdout wrote since the last poll
 * ```
 */
export function pollOf(command: Command, maxBytes: number): CommandPoll {
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
): OutputPage {
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
export function listingOf(command: Command): CommandListing {
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
