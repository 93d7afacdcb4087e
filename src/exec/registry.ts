import { ToolError } from "../errors.ts";
import type { CommandPolicy, CommandRequest } from "../policy/policy.ts";
import { COMMAND_LIMITS } from "./limits.ts";
import { Command, type StreamName } from "./command.ts";
import type { Reactor } from "../os/reactor.ts";
import { isArgumentListTooLong, isProgramNotFound } from "../os/spawn.ts";
import { SIGNALS } from "../os/libc.ts";
import { type CommandListing, listingOf, type OutputPage, outputPageOf, pollOf } from "./views.ts";

/** The kernel's limit on one argument or environment string (MAX_ARG_STRLEN: 32 pages). */
const MAX_ARG_STRLEN = 131072;

/** The limits a registry enforces (SPEC defaults: COMMAND_LIMITS). */
export type CommandLimits = { [K in keyof typeof COMMAND_LIMITS]: number };

/** How a registry is set up. */
export interface RegistryOptions {
  policy: CommandPolicy;
  /** Whether PTYs can be made here (probed once at start-up). */
  tty: { supported: boolean; reason: string | null };
  /** The process's one reactor, shared with rg and git (their pipes and exits are read through it too). */
  reactor: Reactor;
  limits?: CommandLimits;
}

/** The signals kill_command may send. */
export const KILL_SIGNALS = { TERM: SIGNALS.TERM, KILL: SIGNALS.KILL, INT: SIGNALS.INT, HUP: SIGNALS.HUP } as const;

const KILL_WAIT_MS = 3000;
const CLOSE_WAIT_MS = 2000;
const PROGRESS_INTERVAL_MS = 1000;
/** Quiet ms after new output before a settling wait returns; why 200: docs/commands.md (bench/settle_bench.ts). */
export const SETTLE_MS = 200;

/** Options of `CommandRegistry.wait`. */
export interface WaitOptions {
  signal?: AbortSignal;
  /** Called about once a second with the elapsed milliseconds. */
  onProgress?: (elapsedMs: number, command: Command) => void;
  /** Also return once unpolled output is followed by this many quiet ms (the program answered and waits again). */
  settleMs?: number;
}

const OUTPUT_REF = /^command:([^:]+):(stdout|stderr)$/;

function sleep(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
  return { promise, cancel: () => clearTimeout(timer) };
}

function hasUnreturnedOutput(command: Command): boolean {
  return command.streams.stdout.total > command.cursors.stdout || command.streams.stderr.total > command.cursors.stderr;
}

/** Owns every command of one server process; starts them through its CommandPolicy, never deciding policy itself. */
export class CommandRegistry {
  readonly limits: CommandLimits;
  readonly #options: RegistryOptions;
  /** In start order. */
  readonly #commands = new Map<string, Command>();
  /** Commands whose shell plan can report a missing program as exit 127. */
  readonly #viaShell = new WeakSet<Command>();
  #counter = 0;
  #closed = false;

  constructor(options: RegistryOptions) {
    this.#options = options;
    this.limits = options.limits ?? { ...COMMAND_LIMITS };
  }

  /** Starts `request` for `owner` (the session's id set), after the policy planned it. */
  async start(request: CommandRequest, owner: Set<string>): Promise<Command> {
    if (this.#closed) throw new ToolError("COMMAND_LIMIT", "the server is shutting down; no new commands start");
    if (request.tty && !this.#options.tty.supported) {
      throw new ToolError("TTY_UNSUPPORTED", `tty:true is not available: ${this.#options.tty.reason}`);
    }
    const withNul = [["cmd", request.cmd], ...Object.entries(request.env).flat().map((text) => ["env", text])]
      .find(([, text]) => text.includes("\0"));
    if (withNul) {
      throw new ToolError("INVALID_ARGUMENT", `${withNul[0]} contains a NUL byte, which no command can receive`, {
        details: { field: withNul[0] },
      });
    }
    this.#makeRoom(owner);
    const plan = await this.#options.policy.plan(request);
    const id = `c${++this.#counter}-${crypto.randomUUID().slice(0, 4)}`;
    let command: Command;
    try {
      command = await Command.launch(this.#options.reactor, plan, {
        id,
        cmd: request.cmd,
        tty: request.tty,
        perStreamBytes: this.limits.perStreamBytes,
      });
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (isArgumentListTooLong(error)) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          "the command line and environment are too long for the kernel (E2BIG): each argument and variable may " +
            `have at most ${MAX_ARG_STRLEN} bytes, all of them together about a quarter of the stack limit`,
          {
            hint: "Pass large inputs in a file (write it with apply_patch) or on stdin instead of the command line.",
            details: { field: "cmd", max_arg_bytes: MAX_ARG_STRLEN },
          },
        );
      }
      if (isProgramNotFound(error)) {
        throw new ToolError("COMMAND_NOT_FOUND", `${plan.argv[0]}: command not found`, {
          details: { program: plan.argv[0] },
        });
      }
      throw new ToolError("INTERNAL", `cannot start the command: ${(error as Error).message}`, { cause: error });
    }
    if (/(^|\/)(ba|da)?sh$/.test(plan.argv[0]) && plan.argv[1] === "-c") this.#viaShell.add(command);
    this.#commands.set(id, command);
    owner.add(id);
    command.done.then(() => this.#enforceRetention(this.running().length));
    return command;
  }

  /** The command `id` of `owner`; UNKNOWN_COMMAND for another session's or a made-up id, COMMAND_PRUNED once pruned. */
  get(id: string, owner: ReadonlySet<string>): Command {
    this.#pruneExpired();
    if (!owner.has(id)) {
      throw new ToolError("UNKNOWN_COMMAND", `no command ${JSON.stringify(id)} was started in this session`, {
        details: { command_id: id },
      });
    }
    const command = this.#commands.get(id);
    if (!command) {
      throw new ToolError(
        "COMMAND_PRUNED",
        `command ${id} finished and was pruned (retention ${this.limits.retentionMs / 60000} min, ` +
          `at most ${this.limits.maxRetainedCommands} finished commands kept)`,
        { details: { command_id: id } },
      );
    }
    return command;
  }

  /** Waits until `command` exited, `ms` passed, the signal aborted, or unpolled output was quiet for `settleMs`. */
  async wait(command: Command, ms: number, options: WaitOptions = {}): Promise<void> {
    if (command.status === "exited" || ms <= 0 || options.signal?.aborted) return;
    const started = performance.now();
    const deadline = started + ms;
    let ticker: ReturnType<typeof setInterval> | undefined;
    if (options.onProgress) {
      ticker = setInterval(() => options.onProgress!(performance.now() - started, command), PROGRESS_INTERVAL_MS);
    }
    let onAbort = () => {};
    const aborted = new Promise<void>((resolve) => onAbort = resolve);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      while (command.status === "running" && !options.signal?.aborted) {
        const now = performance.now();
        let until = deadline;
        if (options.settleMs !== undefined && hasUnreturnedOutput(command)) {
          until = Math.min(until, command.lastOutputAt! + options.settleMs);
        }
        if (until <= now) break;
        const timer = sleep(until - now);
        await Promise.race([command.done, command.nextOutput(), timer.promise, aborted]);
        timer.cancel();
      }
    } finally {
      clearInterval(ticker);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** The output since the last poll, bounded per stream, advancing the cursors (views.ts). */
  readonly poll = pollOf;

  /** Writes to stdin (and closes it when asked); COMMAND_EXITED once the command is done. */
  write(command: Command, chars: string, closeStdin: boolean): void {
    if (chars.length === 0 && !closeStdin) return;
    if (command.status === "exited") {
      throw new ToolError("COMMAND_EXITED", `command ${command.id} has exited; it takes no more input`, {
        details: { command_id: command.id, exit_code: command.exit?.code ?? null },
      });
    }
    if (!command.stdinOpen) {
      throw new ToolError("INVALID_ARGUMENT", `stdin of command ${command.id} is already closed`, {
        hint: "Poll with empty chars to read its output and status.",
        details: { field: "chars", command_id: command.id },
      });
    }
    command.write(chars);
    if (closeStdin) command.closeStdin();
  }

  /** Signals the process group and waits up to KILL_WAIT_MS for it to exit. */
  async kill(command: Command, signal: keyof typeof KILL_SIGNALS): Promise<void> {
    command.signal(KILL_SIGNALS[signal]);
    await this.wait(command, KILL_WAIT_MS);
  }

  /** COMMAND_NOT_FOUND when a shell plan ended with exit 127 and the shell's "not found" for `cmd`'s first word. */
  notFoundError(command: Command): ToolError | null {
    if (!this.#viaShell.has(command) || command.status !== "exited" || command.exit?.code !== 127) return null;
    const program = command.cmd.trim().split(/\s+/)[0];
    const { bytes } = command.streams.stderr.read(0, 4096);
    const firstLine = new TextDecoder().decode(bytes).split("\n")[0];
    const escaped = program.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (!new RegExp(`^\\S*sh: (?:\\d+: )?(?:line \\d+: )?${escaped}: (?:command )?not found$`).test(firstLine)) {
      return null;
    }
    return new ToolError("COMMAND_NOT_FOUND", `${program}: command not found`, {
      details: { program, exit_code: 127, stderr: firstLine },
    });
  }

  read(outputRef: string, offset: number, limit: number, owner: ReadonlySet<string>): OutputPage {
    const match = OUTPUT_REF.exec(outputRef);
    if (!match) {
      throw new ToolError("OUTPUT_REF_INVALID", `output_ref ${JSON.stringify(outputRef)} is malformed`, {
        details: { output_ref: outputRef },
      });
    }
    if (!owner.has(match[1])) {
      throw new ToolError("OUTPUT_REF_INVALID", `output_ref ${outputRef} names no command of this session`, {
        details: { output_ref: outputRef },
      });
    }
    const command = this.get(match[1], owner);
    const stream = command.streams[match[2] as StreamName];
    if (offset > stream.total) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        `offset ${offset} is past the end of ${outputRef} (${stream.total} bytes)`,
        { details: { field: "offset", total_bytes: stream.total } },
      );
    }
    return outputPageOf(command, outputRef, stream, offset, limit);
  }

  list(owner: ReadonlySet<string>): CommandListing[] {
    this.#pruneExpired();
    return [...this.#commands.values()].filter((command) => owner.has(command.id)).map(listingOf);
  }

  running(): Command[] {
    return [...this.#commands.values()].filter((command) => command.status === "running");
  }

  /** Kills every running command of `owner` (its session closed). */
  release(owner: ReadonlySet<string>): Promise<void> {
    return this.#killAndWait(this.running().filter((command) => owner.has(command.id)));
  }

  /** Kills every running command, waits for them to be reaped, and refuses new ones. */
  close(): Promise<void> {
    this.#closed = true;
    return this.#killAndWait(this.running());
  }

  /** Kills `commands` and waits up to CLOSE_WAIT_MS for them to be reaped, leaving no timer behind. */
  async #killAndWait(commands: Command[]): Promise<void> {
    for (const command of commands) command.signal(SIGNALS.KILL);
    const timeout = sleep(CLOSE_WAIT_MS);
    await Promise.race([Promise.all(commands.map((command) => command.done)), timeout.promise]);
    timeout.cancel();
  }

  #finished(): Command[] {
    return [...this.#commands.values()]
      .filter((command) => command.status === "exited")
      .sort((a, b) => a.exitedAtEpoch! - b.exitedAtEpoch!);
  }

  #pruneExpired(): void {
    const cutoff = Date.now() - this.limits.retentionMs;
    for (const command of this.#finished()) {
      if (command.exitedAtEpoch! <= cutoff) this.#commands.delete(command.id);
    }
  }

  /** Prunes finished commands for a new one, or throws COMMAND_LIMIT naming what to free. */
  #makeRoom(owner: ReadonlySet<string>): void {
    this.#pruneExpired();
    const running = this.running();
    const reservation = 2 * this.limits.perStreamBytes;
    const overBudget = (running.length + 1) * reservation > this.limits.totalOutputBytes;
    if (running.length >= this.limits.maxActiveCommands || overBudget) {
      const mine = running.filter((command) => owner.has(command.id));
      const list = mine.slice(0, 10).map((command) => `${command.id} (${command.cmd.slice(0, 60)})`).join(", ");
      throw new ToolError(
        "COMMAND_LIMIT",
        `${running.length} commands are running, the limit is ${this.limits.maxActiveCommands}` +
          (overBudget
            ? ` (each reserves ${reservation} bytes of the ${this.limits.totalOutputBytes}-byte output budget)`
            : "") +
          (mine.length > 0 ? `; this session's: ${list}` : ""),
        {
          hint: "Stop one with kill_command, or wait for one to finish (poll it with write_stdin), then retry.",
          details: {
            limit: this.limits.maxActiveCommands,
            running: running.length,
            this_session: mine.map((command) => ({ command_id: command.id, cmd: command.cmd })),
          },
        },
      );
    }
    this.#enforceRetention(running.length + 1);
  }

  /** Prunes oldest finished commands while over maxRetainedCommands or the budget minus `activeSlots` reservations. */
  #enforceRetention(activeSlots: number): void {
    const finished = this.#finished();
    const budget = this.limits.totalOutputBytes - activeSlots * 2 * this.limits.perStreamBytes;
    let retainedBytes = finished.reduce((sum, command) => sum + command.retainedBytes, 0);
    let count = finished.length;
    for (const command of finished) {
      if (count <= this.limits.maxRetainedCommands && retainedBytes <= budget) break;
      this.#commands.delete(command.id);
      retainedBytes -= command.retainedBytes;
      count--;
    }
  }
}
