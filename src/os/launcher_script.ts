/**
 * The launcher's script, pure data at its fixed data address (launcher_x86_64.s): a u64 step count, an 80-byte record
 * per step, then what the steps point at (strings, structs, pointer arrays, 8-byte slots), each 8-byte aligned.
 */
import { cString } from "./libc.ts";

/** Bytes of one step record. */
export const STEP_BYTES = 80;
/** Flag bits of a step record: what a failure does (bit 0 tolerated, bit 1 skips the next), then one per deref. */
const FAILURE_FLAGS: Readonly<Record<OnFailure, number>> = { stop: 0, continue: 1, "skip-next": 2 };
const FLAG_DEREF_FIRST_BIT = 8;
const TWO_32 = 2 ** 32;

/** Writes `value` (a safe integer) at `offset` as a little-endian u64, two's complement when negative. */
function setU64(view: DataView, offset: number, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer (pass a bigint)`);
  view.setUint32(offset, value >>> 0, true);
  view.setUint32(offset + 4, Math.floor(value / TWO_32) >>> 0, true);
}

/** An address inside the script's data: an item, plus an offset into it. */
export interface DataRef {
  readonly item: number;
  readonly offset: number;
}

/** An argument that the launcher reads from memory when the step runs (a slot another step stored into). */
export interface Deref {
  readonly deref: DataRef;
}

/** What a step's argument may be: a number, the address of data, or the value stored at an address. */
export type StepArg = number | bigint | DataRef | Deref;

/** What a failing step does: stop the launch (default), carry on, or carry on without the next step. */
export type OnFailure = "stop" | "continue" | "skip-next";

/** Options of LauncherScript.step. */
export interface StepOptions {
  /** Where the launcher writes the call's result (an fd, say), for later steps to read. */
  store?: DataRef;
  onFailure?: OnFailure;
}

interface Step {
  label: string;
  nr: number;
  args: StepArg[];
  options: StepOptions;
}

interface Item {
  bytes: Uint8Array;
  /** 8-byte fields of `bytes` that hold the address of other data. */
  pointers: { offset: number; target: DataRef }[];
}

/** The address of `offset` bytes into `ref`. */
export function at(ref: DataRef, offset: number): DataRef {
  return { item: ref.item, offset: ref.offset + offset };
}

/** The value stored at `ref` when the step runs. */
export function deref(ref: DataRef): Deref {
  return { deref: ref };
}

function isDataRef(arg: StepArg): arg is DataRef {
  return typeof arg === "object" && "item" in arg;
}

/** A script under construction; serialize lays it out. */
export class LauncherScript {
  readonly #steps: Step[] = [];
  readonly #items: Item[] = [];
  #execStep: number | null = null;

  /** The id of the step exec added, or null. */
  get execStep(): number | null {
    return this.#execStep;
  }

  /** Labels of the steps, by step id (the id a failure report names). */
  get labels(): readonly string[] {
    return this.#steps.map((step) => step.label);
  }

  /** Adds `bytes` (with `pointers`: fields holding the address of other data) and returns their address. */
  data(bytes: Uint8Array, pointers: { offset: number; target: DataRef }[] = []): DataRef {
    this.#items.push({ bytes, pointers });
    return { item: this.#items.length - 1, offset: 0 };
  }

  /** A NUL-terminated copy of `text`; a NUL inside it is refused (it would cut the string). */
  string(text: string): DataRef {
    return this.data(cString(text));
  }

  /** A NULL-terminated array of pointers to copies of `items` (an argv or envp). */
  stringArray(items: readonly string[]): DataRef {
    const strings = items.map((item) => this.string(item));
    return this.data(
      new Uint8Array(8 * (items.length + 1)),
      strings.map((target, index) => ({ offset: 8 * index, target })),
    );
  }

  /** Eight zero bytes a step can store a result into. */
  slot(): DataRef {
    return this.data(new Uint8Array(8));
  }

  /** Appends the system call `nr(args)`; at most six arguments. */
  step(label: string, nr: number, args: StepArg[], options: StepOptions = {}): void {
    if (args.length > 6) throw new RangeError(`${label}: a system call takes at most six arguments`);
    this.#steps.push({ label, nr, args, options });
  }

  /** Ends the script with `execve(path, argv, envp)`: on success the command replaces the launcher. */
  exec(nr: number, path: string, argv: readonly string[], env: Readonly<Record<string, string>>): void {
    this.#execStep = this.#steps.length;
    const envp = Object.entries(env).map(([name, value]) => `${name}=${value}`);
    this.step(`execve ${path}`, nr, [this.string(path), this.stringArray(argv), this.stringArray(envp)]);
  }

  /** The bytes for data at `base`, in 32-bit halves of plain numbers (a BigInt a field cost ~130 µs for 130 steps). */
  serialize(base: bigint): Uint8Array<ArrayBuffer> {
    const stepsEnd = 8 + STEP_BYTES * this.#steps.length;
    const itemOffsets: number[] = [];
    let size = stepsEnd;
    for (const item of this.#items) {
      itemOffsets.push(size);
      size += Math.ceil(item.bytes.length / 8) * 8;
    }
    const start = Number(base);
    if (!Number.isSafeInteger(start + size)) throw new RangeError(`script base ${base} is beyond 2^53`);
    const address = (ref: DataRef) => start + itemOffsets[ref.item] + ref.offset;
    const bytes = new Uint8Array(size);
    const view = new DataView(bytes.buffer);
    setU64(view, 0, this.#steps.length);
    for (let id = 0; id < this.#steps.length; id++) {
      const step = this.#steps[id];
      const record = 8 + STEP_BYTES * id;
      let flags = FAILURE_FLAGS[step.options.onFailure ?? "stop"];
      setU64(view, record, step.nr);
      for (let index = 0; index < step.args.length; index++) {
        const arg = step.args[index];
        const field = record + 8 + 8 * index;
        if (typeof arg === "number") setU64(view, field, arg);
        else if (typeof arg === "bigint") view.setBigUint64(field, BigInt.asUintN(64, arg), true);
        else if (isDataRef(arg)) setU64(view, field, address(arg));
        else {
          setU64(view, field, address(arg.deref));
          flags |= 1 << (FLAG_DEREF_FIRST_BIT + index);
        }
      }
      setU64(view, record + 56, step.options.store ? address(step.options.store) : 0);
      setU64(view, record + 64, flags);
      view.setUint32(record + 72, id, true);
    }
    for (let index = 0; index < this.#items.length; index++) {
      const item = this.#items[index];
      bytes.set(item.bytes, itemOffsets[index]);
      for (const pointer of item.pointers) setU64(view, itemOffsets[index] + pointer.offset, address(pointer.target));
    }
    return bytes;
  }
}
