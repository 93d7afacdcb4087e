/**
 * The portable backend: only what Deno offers on every POSIX system
 * (Deno.lstat, Deno.open, Deno.readDir, the path-taking acts), no FFI, no
 * /proc. Deno cannot open relative to a directory or refuse to follow a
 * symlink, so a handle holds a checked path and the identity (dev, ino) of
 * every directory on it, from the workspace root down:
 *
 * - **open**: each component is lstat'ed (a symlink or a non-directory on
 *   the way fails as the fd backend's O_NOFOLLOW walk does), then the whole
 *   path is walked again and must give the same identities;
 * - **read**: the file is opened by path (only once lstat said it is a
 *   regular file, so a FIFO is never opened), the opened file's own stat
 *   must be the identity that was checked, and the path is walked again;
 * - **every other act** (list, stat an entry, mkdir, create, link, rename,
 *   remove, fsync, a child's working directory) checks the path
 *   before and after, and an act found to have raced a swap is undone
 *   where it can be and reported ({@linkcode PathChanged}).
 *
 * So a swap between check and act is detected, not prevented: the act may
 * have reached the swapped-in place before the check after it. Deno has no
 * syncfs, so a large patch's temp files are fsynced one by one here
 * (src/patch/durability.ts).
 * docs/confinement.md has the table of what each backend closes.
 *
 * @example
 * ```ts
 * using root = PORTABLE_BACKEND.pinRoot("/repo");
 * using file = root.openBeneath("README.md", "any");
 * await file.readAll();
 * ```
 */
import * as path from "node:path";
import { tryUntil } from "../async/try_until.ts";
import { beneathParts, nameText } from "../os/fs_call.ts";
import { kindOfInfo } from "../os/fs_stat.ts";
import { PathChanged, resolutionError } from "./confine.ts";
import { type Checked, isAt, same, setAside, toStat, unlinkIfSame, walk } from "./path_identity.ts";
import {
  entryPath,
  type FileBackend,
  type FileStat,
  Handle,
  type Name,
  notAFile,
  type RawDirEntry,
  type Reach,
} from "./handle.ts";

const encoder = new TextEncoder();

/** The bytes of a name Deno decoded lossily: 0xFF (never valid UTF-8) where it put U+FFFD. */
function lossyBytes(name: string): Uint8Array {
  return encoder.encode(name.replaceAll("\uFFFD", "\x00")).map((byte) => byte === 0 ? 0xff : byte);
}

/** What a handle holds open: nothing (a checked path), the file for reading, or a file it created. */
type Held = { file: Deno.FsFile; writable: boolean } | null;

/** An object held by its checked path and the identities along it. */
class PathHandle extends Handle {
  readonly #rootAbs: string;
  /** Identities of the root and of each component of `rel`, as checked at the open. */
  readonly #chain: readonly Checked[];
  #held: Held;
  #opening: Promise<Deno.FsFile> | null = null;
  #closed = false;

  constructor(rootAbs: string, rel: string, abs: string, chain: readonly Checked[], held: Held = null) {
    super(rel, abs, chain[chain.length - 1]);
    this.#rootAbs = rootAbs;
    this.#chain = chain;
    this.#held = held;
  }

  restat(): FileStat {
    if (this.#held !== null) return toStat(this.#held.file.statSync());
    const now = toStat(Deno.lstatSync(this.abs));
    if (!same(now, this.#self)) throw new PathChanged(this.rel);
    return now;
  }

  async read(buffer: Uint8Array<ArrayBuffer>, position: number): Promise<number> {
    const file = await this.#reader();
    await file.seek(position, Deno.SeekMode.Start);
    return (await file.read(buffer)) ?? 0;
  }

  async readAll(): Promise<Uint8Array<ArrayBuffer>> {
    const file = await this.#reader();
    // One byte beyond the size: a file that did not grow is read into this one buffer.
    let bytes = new Uint8Array(file.statSync().size + 1);
    let length = 0;
    await file.seek(0, Deno.SeekMode.Start);
    for (;;) {
      if (length === bytes.length) {
        const grown = new Uint8Array(bytes.length * 2);
        grown.set(bytes);
        bytes = grown;
      }
      const n = await file.read(bytes.subarray(length));
      if (n === null) return bytes.subarray(0, length);
      length += n;
    }
  }

  entries(): RawDirEntry[] {
    this.#verify();
    const listed = [...Deno.readDirSync(this.abs)];
    this.#verify();
    // Each name is looked up again in the directory now checked: a listing made through a symlink swapped in and
    // out between the two checks would name what is not here, and such names are dropped with the ones removed
    // meanwhile. The kind comes from that lstat too.
    const entries: RawDirEntry[] = [];
    for (const entry of listed) {
      try {
        entries.push({
          name: encoder.encode(entry.name),
          kind: toStat(Deno.lstatSync(path.join(this.abs, entry.name))).kind,
        });
      } catch {
        // Deno gives a name that is not UTF-8 with U+FFFD for its bad bytes: it cannot be found again by that
        // string, and is kept with 0xFF there so that it reads as lossy.
        if (!entry.name.includes("\uFFFD")) continue;
        entries.push({ name: lossyBytes(entry.name), kind: kindOfInfo(entry) });
      }
    }
    this.#verify();
    return entries;
  }

  statEntry(name: Name): FileStat {
    const stat = toStat(Deno.lstatSync(path.join(this.abs, nameText(name))));
    this.#verify();
    return stat;
  }

  openEntry(name: Name, expect: Reach): Handle {
    return this.openBeneath(nameText(name), expect);
  }

  openBeneath(rel: string, expect: Reach): Handle {
    const parts = beneathParts(rel);
    const stats = walk(this.abs, parts, expect);
    const child = new PathHandle(
      this.#rootAbs,
      parts.reduce(entryPath, this.rel),
      path.join(this.abs, ...parts),
      [...this.#chain, ...stats],
    );
    // Walked again from the root: a component swapped while the walk went through it gives another identity.
    child.#verify();
    return child;
  }

  isCurrent(): boolean {
    try {
      const now = [toStat(Deno.lstatSync(this.#rootAbs)), ...walk(this.#rootAbs, beneathParts(this.rel), "any")];
      return now.length === this.#chain.length && now.every((stat, i) => same(stat, this.#chain[i]));
    } catch {
      return false;
    }
  }

  childCwd(): string {
    if (!this.isCurrent()) throw new PathChanged(this.rel);
    return this.abs;
  }

  childStarted(): void {
    // The child changed into the path: only a swap still in place now is seen.
    this.revalidate();
  }

  childStdin(): Promise<Uint8Array<ArrayBuffer>> {
    // No fd to hand over: the bytes, read from the checked inode, go through the child's stdin pipe.
    return this.readAll();
  }

  mkdir(name: string): void {
    const at = path.join(this.abs, name);
    let made: Checked;
    this.#act(() => {
      Deno.mkdirSync(at);
      made = toStat(Deno.lstatSync(at));
    }, () => unlinkIfSame(at, made, this.rel));
  }

  /**
   * `exact` cannot be honoured here: Deno has no fchmod, a chmod by path follows a symlink swapped in for the file
   * or its directory, and clearing the umask is process-wide (it raced file creation in other threads). The file
   * gets the permission bits the umask leaves of `mode` (docs/confinement.md).
   */
  create(name: string, mode: number, _exact: boolean): Handle {
    const at = path.join(this.abs, name);
    let file: Deno.FsFile | null = null;
    // createNew is O_CREAT | O_EXCL: a symlink already at `name` fails it instead of being followed.
    this.#act(() => {
      file = Deno.openSync(at, { write: true, createNew: true, mode });
    }, () => {
      const created = toStat(file!.statSync());
      file!.close();
      unlinkIfSame(at, created, this.rel);
    });
    const stat = toStat(file!.statSync());
    // Still empty, it must be the file at `at` in this directory: a swap put in and taken out again between the
    // checks around the act is unseen by them and sends the create elsewhere, where nothing is then written.
    if (!this.#holds(at, stat)) {
      file!.close();
      throw new PathChanged(this.rel);
    }
    return new PathHandle(this.#rootAbs, entryPath(this.rel, name), at, [...this.#chain, stat], {
      file: file!,
      writable: true,
    });
  }

  link(from: string, to: string): void {
    const [source, target] = [path.join(this.abs, from), path.join(this.abs, to)];
    let linked: Checked;
    this.#act(() => {
      linked = toStat(Deno.lstatSync(source));
      Deno.linkSync(source, target);
    }, () => unlinkIfSame(target, linked, this.rel));
  }

  rename(from: string, to: string): void {
    const [a, b] = [path.join(this.abs, from), path.join(this.abs, to)];
    let moved: Checked;
    this.#act(() => {
      moved = toStat(Deno.lstatSync(a));
      Deno.renameSync(a, b);
    }, () => Deno.renameSync(setAside(b, moved, this.rel), a));
  }

  remove(name: string, directory = false): void {
    const at = path.join(this.abs, name);
    this.#verify();
    const stat = toStat(Deno.lstatSync(at));
    if ((stat.kind === "dir") !== directory) {
      throw directory ? new Deno.errors.NotADirectory(at) : new Deno.errors.IsADirectory(`${at} is a directory`);
    }
    // The stat must be of the entry in this directory: seen there again, with the path leading here around it (a
    // swap that came and went around one lookup would have it name an outside object).
    if (!this.#holds(at, stat)) throw new PathChanged(this.rel);
    unlinkIfSame(at, stat, this.rel);
  }

  writeAll(bytes: Uint8Array): void {
    const file = this.#writable();
    for (let written = 0; written < bytes.length;) written += file.writeSync(bytes.subarray(written));
    // The file must still be at its path beneath the root: one created where an unseen swap sent it is emptied
    // through its fd (wherever it is, it keeps none of these bytes) and refused.
    if (!this.#holds(this.abs, this.#self)) {
      file.truncateSync(0);
      throw new PathChanged(this.rel);
    }
  }

  async sync(): Promise<void> {
    if (this.#held !== null) return await this.#held.file.sync();
    // A directory (or a file never opened): opened for the fsync, and it must be the object held. Checked right
    // before the open too: Deno cannot open with O_NONBLOCK, and a FIFO (or a symlink to one) put at the path
    // would hold the open until a writer came; this leaves it microseconds to land in.
    if (!this.#holds(this.abs, this.#self)) throw new PathChanged(this.rel);
    const file = await Deno.open(this.abs, { read: true });
    try {
      if (!same(toStat(file.statSync()), this.#self)) throw new PathChanged(this.rel);
      await file.sync();
    } finally {
      file.close();
    }
  }

  readonly syncsFileSystem = false;

  syncFileSystem(): Promise<void> {
    return Promise.reject(new Deno.errors.NotSupported("the portable backend cannot sync a whole file system"));
  }

  async lock(waitMs: number): Promise<void> {
    const file = await this.#reader();
    await tryUntil(() => file.tryLockSync(true), waitMs, "the lock");
  }

  [Symbol.dispose](): void {
    if (this.#closed) return;
    this.#closed = true;
    const opening = this.#opening;
    this.#opening = null;
    if (this.#held !== null) this.#held.file.close();
    // A read still being opened is closed once it is (a rejected one has nothing to close).
    else opening?.then((file) => file.close(), () => {});
    this.#held = null;
  }

  /** This object's own checked stat. */
  get #self(): Checked {
    return this.#chain[this.#chain.length - 1];
  }

  #verify(): void {
    if (!this.isCurrent()) throw new PathChanged(this.rel);
  }

  /**
   * Whether `stat`'s object is at `at` in this directory while its path leads here: checked on both sides of the
   * look at `at`, so that a swap must come and go twice within microseconds to pass.
   */
  #holds(at: string, stat: Checked): boolean {
    return this.isCurrent() && isAt(at, stat) && this.isCurrent();
  }

  /**
   * Runs `act` between two checks of this directory's path; when the second fails, `undo` is tried. Each undo
   * touches only the object the act made or moved, found by its identity (./path_identity.ts): by then a swap
   * may have sent the path elsewhere, where an object of the same name is not to be touched.
   */
  #act(act: () => void, undo: () => void): void {
    this.#verify();
    act();
    if (this.isCurrent()) return;
    try {
      undo();
    } catch {
      // Best effort: the change is reported either way.
    }
    throw new PathChanged(this.rel);
  }

  #writable(): Deno.FsFile {
    if (this.#held?.writable !== true) throw new TypeError(`${this.rel} was not created for writing`);
    return this.#held.file;
  }

  /** The file open for reading: opened once, by path, and only kept when it is the very file checked. */
  #reader(): Promise<Deno.FsFile> {
    if (this.stat.kind !== "file") return Promise.reject(notAFile(this.rel, this.stat.kind));
    if (this.#held !== null) return Promise.resolve(this.#held.file);
    return this.#opening ??= this.#openReader();
  }

  async #openReader(): Promise<Deno.FsFile> {
    // Checked right before the open too: Deno cannot open with O_NONBLOCK, so a FIFO renamed over the file since
    // the handle was opened would make the open wait for a writer; this leaves it microseconds to land in.
    if (!this.isCurrent()) throw new PathChanged(this.rel);
    let file: Deno.FsFile;
    try {
      // Async: were a FIFO swapped in even so, only this call would wait, never the event loop.
      file = await Deno.open(this.abs, { read: true });
    } catch (error) {
      throw resolutionError(this.rel, error);
    }
    if (!same(toStat(file.statSync()), this.#self) || !this.isCurrent()) {
      file.close();
      throw new PathChanged(this.rel);
    }
    this.#held = { file, writable: false };
    return file;
  }
}

/**
 * The portable backend (Deno's path APIs only; identities checked around every act).
 *
 * @example
 * ```ts
 * using root = PORTABLE_BACKEND.pinRoot(Deno.cwd());
 * root.childCwd(); // the root's path, checked
 * ```
 */
export const PORTABLE_BACKEND: FileBackend = {
  name: "portable",
  pinRoot(abs: string): Handle {
    const stat = toStat(Deno.statSync(abs));
    if (stat.kind !== "dir") throw new Deno.errors.NotADirectory(`${abs} is not a directory`);
    return new PathHandle(abs, ".", abs, [stat]);
  },
};
