import { assert, assertEquals } from "../../testing/assert.ts";
import {
  DARWIN,
  DARWIN_LAYOUT,
  DARWIN_ONLY_SYMBOLS,
  LINUX_ONLY,
  packKevents,
  padVariadicArguments,
  pipe2Shim,
  ptsnameShim,
  unpackKevent,
  VARIADIC_FIXED_ARGUMENTS,
  variadicParameters,
} from "./darwin_abi.ts";
import { AT, ERRNO, errno, F, HOST_OS, libc, O, SIGNALS, SPAWN, symbolTable, WAIT } from "./libc.ts";

const ON_LINUX = HOST_OS === "linux";

Deno.test({
  name: "darwin table: every constant name of the Linux table, and nothing Linux lacks but what darwin code uses",
  ignore: !ON_LINUX,
  fn: () => {
    const keys = (table: object) => Object.keys(table).sort();
    assertEquals(keys(DARWIN.O), keys(O));
    assertEquals(keys(DARWIN.AT), keys(AT));
    assertEquals(keys(DARWIN.F), [...keys(F), "SETFD"].sort());
    assertEquals(keys(DARWIN.ERRNO), keys(ERRNO));
    assertEquals(keys(DARWIN.SPAWN), [...keys(SPAWN), "CLOEXEC_DEFAULT"].sort());
    assertEquals(keys(DARWIN.WAIT), keys(WAIT));
    for (const name of Object.keys(SIGNALS)) assert(name in DARWIN.SIGNALS, `darwin has SIG${name}`);
  },
});

Deno.test("darwin table: the values that differ from Linux, as the SDK headers define them", () => {
  assertEquals([DARWIN.ERRNO.EAGAIN, DARWIN.ERRNO.ELOOP], [35, 62]);
  assertEquals([DARWIN.O.CREAT, DARWIN.O.EXCL, DARWIN.O.NOCTTY, DARWIN.O.NONBLOCK], [0x200, 0x800, 0x20000, 0x4]);
  assertEquals([DARWIN.O.DIRECTORY, DARWIN.O.NOFOLLOW, DARWIN.O.CLOEXEC], [0x100000, 0x100, 0x1000000]);
  assertEquals(DARWIN.SPAWN.SETSID, 0x0400);
  assertEquals(DARWIN.WAIT.NOWAIT, 0x20);
  assertEquals([DARWIN.SIGNALS.CHLD, DARWIN.SIGNALS.USR1, DARWIN.SIGNALS.WINCH, DARWIN.SIGNALS.STOP], [20, 30, 28, 17]);
  // _IOW('t', 103, struct winsize): IOC_IN | sizeof(winsize) << 16 | 't' << 8 | 103.
  const IOC_IN = 0x80000000, WINSIZE_BYTES = 8;
  assertEquals(DARWIN.TIOCSWINSZ, (IOC_IN | (WINSIZE_BYTES << 16) | ("t".charCodeAt(0) << 8) | 103) >>> 0);
  assertEquals(DARWIN.KQUEUE.NOTE_EXIT, 0x80000000);
});

Deno.test("darwin table: distinct open flags and signal numbers; Linux-only entries are named and 0", () => {
  const flags = Object.entries(DARWIN.O).filter(([, value]) => value !== 0);
  for (const [name, value] of flags) {
    assertEquals(value & (value - 1), 0, `${name} is one bit`);
  }
  assertEquals(new Set(flags.map(([, value]) => value)).size, flags.length);
  assertEquals(new Set(Object.values(DARWIN.SIGNALS)).size, Object.keys(DARWIN.SIGNALS).length);
  assertEquals(new Set(Object.values(DARWIN.ERRNO)).size, Object.keys(DARWIN.ERRNO).length);
  const linuxOnly = [DARWIN.O, DARWIN.AT, DARWIN.F].flatMap((table) =>
    Object.entries(table).filter(([name, value]) => value === LINUX_ONLY && name !== "RDONLY").map(([name]) => name)
  );
  assertEquals(linuxOnly.sort(), ["ADD_SEALS", "EMPTY_PATH", "PATH", "SETPIPE_SZ"]);
});

Deno.test("darwin struct kevent: 32 bytes, fields in place, packed and read back", () => {
  const layout = DARWIN_LAYOUT.kevent;
  const ends = [[layout.ident, 8], [layout.filter, 2], [layout.flags, 2], [layout.fflags, 4], [layout.data, 8], [
    layout.udata,
    8,
  ]];
  let next = 0;
  for (const [offset, size] of ends) {
    assertEquals(offset, next, "fields follow each other without a gap");
    next = offset + size;
  }
  assertEquals(next, layout.bytes);
  const { KQUEUE } = DARWIN;
  const events = [
    { ident: 0, filter: KQUEUE.EVFILT_USER, flags: KQUEUE.EV_ADD | KQUEUE.EV_CLEAR, fflags: 0 },
    { ident: 99999, filter: KQUEUE.EVFILT_PROC, flags: KQUEUE.EV_ADD | KQUEUE.EV_RECEIPT, fflags: KQUEUE.NOTE_EXIT },
  ];
  const bytes = packKevents(events);
  assertEquals(bytes.length, 64);
  assertEquals(unpackKevent(bytes, 1), { ...events[1], data: 0 });
  assertEquals(unpackKevent(bytes, 0), { ...events[0], data: 0 });
  new DataView(bytes.buffer).setBigInt64(32 + layout.data, 3n, true);
  assertEquals(unpackKevent(bytes, 1).data, 3, "an EV_ERROR receipt's errno (ESRCH)");
});

Deno.test("darwin variadic calls: arm64 pads to the 8th register so the argument lands in the first stack slot", () => {
  assertEquals(variadicParameters(["i32", "i32"], ["i64"], "aarch64"), [
    "i32",
    "i32",
    "i64",
    "i64",
    "i64",
    "i64",
    "i64",
    "i64",
    "i64",
  ]);
  assertEquals(variadicParameters(["i32", "u64"], ["buffer"], "x86_64"), ["i32", "u64", "buffer"]);
  assertEquals(padVariadicArguments([7, 4, 0o4], 2, "aarch64"), [7, 4, 0, 0, 0, 0, 0, 0, 0o4]);
  assertEquals(padVariadicArguments([7, 4, 0o4], 2, "x86_64"), [7, 4, 0o4]);
  for (const arch of ["aarch64", "x86_64"]) {
    const symbols = symbolTable("darwin", arch);
    for (const [name, fixed] of Object.entries(VARIADIC_FIXED_ARGUMENTS)) {
      const parameters = symbols[name].parameters;
      assertEquals(parameters.length, arch === "aarch64" ? 9 : fixed + 1, `${name} on ${arch}`);
      const last = parameters.at(-1);
      assert(last === "i64" || last === "buffer", `${name}'s variadic slot is 8 bytes wide`);
      const padded = padVariadicArguments(Array(fixed + 1).fill(1), fixed, arch);
      assertEquals(padded.length, parameters.length, `${name}: arguments match the declaration`);
    }
  }
});

Deno.test({
  name: "darwin symbols: everything libc.ts binds, but the Linux-only calls and the two shims",
  ignore: !ON_LINUX,
  fn: () => {
    const darwin = new Set(Object.keys(symbolTable("darwin", "aarch64")));
    const missing = Object.keys(libc()).filter((name) => !darwin.has(name)).sort();
    assertEquals(missing, [
      // the launcher and its probes, memfds, the hand-off's re-exec
      "eventfd",
      "execve",
      // the Linux fd backend (fs_stat.ts: statx; fs_dir.ts: getdents64; syncfs for its large patches)
      "getdents64",
      // glibc's mmap threshold (allocator.ts; darwin's allocator maps large blocks apart already)
      "mallopt",
      "memfd_create",
      // built from ptsname and pipe on darwin (SHIMS in libc.ts)
      "pipe2",
      "posix_spawn_file_actions_addclosefrom_np",
      "prctl",
      "ptsname_r",
      "statvfs",
      "statx",
      "syncfs",
      "syscall",
      "syscall3",
    ]);
    for (const name of Object.keys(DARWIN_ONLY_SYMBOLS)) assert(darwin.has(name), name);
    assertEquals(symbolTable("darwin", "x86_64").__errno_location.name, "__error");
    // The 64-bit-inode structs fs_stat.ts and fs_dir.ts read: suffixed names on x86_64, the plain ones on arm64.
    for (const name of ["fstat", "fstatat", "fdopendir", "readdir", "rewinddir"]) {
      assertEquals(symbolTable("darwin", "x86_64")[name].name, `${name}$INODE64`);
      assertEquals(symbolTable("darwin", "aarch64")[name].name, name);
    }
    assertEquals(symbolTable("darwin", "x86_64").closedir.name, undefined, "closedir has one version");
  },
});

Deno.test("pipe2 on darwin: pipe, then close-on-exec on both ends; a failure closes both", () => {
  const calls: string[] = [];
  const pipe = (fds: Int32Array<ArrayBuffer>) => (fds.set([5, 6]), 0);
  const close = (fd: number) => (calls.push(`close ${fd}`), 0);
  const fds = new Int32Array(2);
  const ok = pipe2Shim(pipe, (fd, command, arg) => (calls.push(`fcntl ${fd} ${command} ${arg}`), 0), close);
  assertEquals(ok(fds, DARWIN.O.CLOEXEC), 0);
  assertEquals([...fds], [5, 6]);
  assertEquals(calls.splice(0), ["fcntl 5 2 1", "fcntl 6 2 1"]);
  assertEquals(ok(fds, 0), 0);
  assertEquals(calls.splice(0), [], "no flag, no fcntl");
  const failing = pipe2Shim(pipe, (fd) => (fd === 6 ? -1 : 0), close);
  assertEquals(failing(fds, DARWIN.O.CLOEXEC), -1);
  assertEquals(calls, ["close 5", "close 6"]);
  assertEquals(pipe2Shim(() => -1, () => 0, close)(fds, DARWIN.O.CLOEXEC), -1);
});

Deno.test("ptsname_r on darwin: the name copied with its NUL, ERANGE when it does not fit, errno when none", () => {
  const name = new TextEncoder().encode("/dev/ttys012\0");
  const shim = ptsnameShim(() => Deno.UnsafePointer.of(name), () => 0);
  const buffer = new Uint8Array(64).fill(0xff);
  assertEquals(shim(3, buffer, 64n), 0);
  assertEquals(new TextDecoder().decode(buffer.subarray(0, buffer.indexOf(0))), "/dev/ttys012");
  assertEquals(shim(3, new Uint8Array(8), 8n), 34);
  assertEquals(ptsnameShim(() => null, () => 25)(3, buffer, 64n), 25);
});

Deno.test({
  name: "darwin libc: libSystem binds, the variadic calls reach their argument, errno reads back",
  ignore: Deno.build.os !== "darwin",
  fn: () => {
    const c = libc();
    const fds = new Int32Array(2);
    assertEquals(c.pipe2(fds, O.CLOEXEC), 0);
    const F_GETFD = 1;
    assertEquals(c.fcntl(fds[0], F_GETFD, 0), DARWIN.FD_CLOEXEC, "the padded fcntl set and reads FD_CLOEXEC");
    const flags = c.fcntl(fds[0], F.GETFL, 0);
    assertEquals(c.fcntl(fds[0], F.SETFL, flags | O.NONBLOCK), 0);
    assertEquals(c.fcntl(fds[0], F.GETFL, 0) & O.NONBLOCK, O.NONBLOCK, "F_SETFL's argument arrived");
    assertEquals(Number(c.read(fds[0], new Uint8Array(1), 1n)), -1);
    assertEquals(errno(), ERRNO.EAGAIN);
    c.close(fds[0]);
    c.close(fds[1]);
  },
});
