import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { Launcher, LAUNCHER_DATA_ADDRESS, LAUNCHER_FDS, launcherImage, LaunchStepError } from "./launcher.ts";
import { deref, LauncherScript } from "./launcher_script.ts";
import { SYSCALLS, syscallTable } from "./syscalls.ts";
import { memfdExecutable, memfdWith } from "./executable.ts";
import { spawnChild } from "./spawn.ts";
import { closeFd, type ExitStatus, makePipe, reap } from "./fd.ts";
import { cString, libc, O } from "./libc.ts";

/** Linux-only: the launcher is a static ELF making Linux syscalls; macOS confines children with sandbox-exec (src/os/seatbelt.ts). */
const LINUX_ONLY = Deno.build.os !== "linux";

const SYS = syscallTable();
const AT_FDCWD = -100;
const launcher = await Launcher.create();

/** Runs `script` with stdout and stderr captured; resolves once the child has exited. */
async function run(script: LauncherScript): Promise<{ status: ExitStatus; stdout: string }> {
  const [outRead, outWrite] = makePipe();
  const stdin = libc().open(cString("/dev/null"), O.RDONLY | O.CLOEXEC, 0);
  try {
    const pid = await launcher.spawn(script, {
      env: {},
      cwd: "/",
      stdio: { stdin, stdout: outWrite, stderr: outWrite },
    });
    closeFd(outWrite);
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = Number(await libc().read_wait(outRead, buffer, BigInt(buffer.length)));
      if (n <= 0) break;
      chunks.push(buffer.slice(0, n));
    }
    let status: ExitStatus | null;
    while ((status = reap(pid)) === null) await new Promise((resolve) => setTimeout(resolve, 1));
    const stdout = new TextDecoder().decode(new Uint8Array(chunks.flatMap((chunk) => [...chunk])));
    return { status, stdout };
  } finally {
    closeFd(outRead);
    closeFd(stdin);
  }
}

Deno.test("launcher: runs its steps in order, then execve's the command with its own argv and environment", {
  ignore: LINUX_ONLY,
}, async () => {
  const script = new LauncherScript();
  script.step("greet", SYS.write, [1, script.string("step\n"), 5]);
  script.exec(SYS.execve, "/bin/sh", ["sh", "-c", 'echo "$0 $GREETING"'], { GREETING: "hello" });
  const { status, stdout } = await run(script);
  assertEquals(status, { code: 0, signal: null });
  assertEquals(stdout, "step\nsh hello\n");
});

Deno.test(
  "launcher: a stored result feeds a later step (an fd opened, written, closed)",
  { ignore: LINUX_ONLY },
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      const script = new LauncherScript();
      const fd = script.slot();
      const flags = O.WRONLY | O.CREAT | O.CLOEXEC;
      script.step("open", SYS.openat, [AT_FDCWD, script.string(`${dir}/out`), flags, 0o600], { store: fd });
      script.step("write", SYS.write, [deref(fd), script.string("stored"), 6]);
      script.step("close", SYS.close, [deref(fd)]);
      assertEquals((await run(script)).status, { code: 0, signal: null }); // no execve: the launcher exits 0
      assertEquals(await Deno.readTextFile(`${dir}/out`), "stored");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "launcher: a failing step stops the launch, names itself, and the command never runs",
  { ignore: LINUX_ONLY },
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      const script = new LauncherScript();
      script.step("open a missing file", SYS.openat, [AT_FDCWD, script.string(`${dir}/missing/x`), O.RDONLY, 0]);
      script.exec(SYS.execve, "/bin/touch", ["touch", `${dir}/ran`], {});
      const error = await assertRejects(() => run(script)) as LaunchStepError;
      assert(error instanceof LaunchStepError, String(error));
      assertEquals([error.step, error.code, error.exec], ["open a missing file", 2, false]);
      assert(!(await Deno.stat(`${dir}/ran`).then(() => true, () => false)), "the command ran");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("launcher: tolerated failures and skip-next", { ignore: LINUX_ONLY }, async () => {
  const script = new LauncherScript();
  script.step("tolerated", SYS.close, [999], { onFailure: "continue" });
  script.step("skips the next step", SYS.close, [998], { onFailure: "skip-next" });
  script.step("skipped", SYS.write, [1, script.string("skipped\n"), 8]);
  script.step("runs", SYS.write, [1, script.string("runs\n"), 5]);
  const { status, stdout } = await run(script);
  assertEquals(status, { code: 0, signal: null });
  assertEquals(stdout, "runs\n");
});

Deno.test(
  "launcher: a program that cannot be executed is an exec failure with its errno",
  { ignore: LINUX_ONLY },
  async () => {
    const script = new LauncherScript();
    script.exec(SYS.execve, "/nonexistent/program", ["program"], {});
    const error = await assertRejects(() => run(script)) as LaunchStepError;
    assert(error instanceof LaunchStepError, String(error));
    assertEquals([error.code, error.exec], [2, true]);
    assert(error.step.includes("/nonexistent/program"), error.step);
  },
);

Deno.test(
  "launcher: the command inherits only stdio (no image, script or failure-pipe fd)",
  { ignore: LINUX_ONLY },
  async () => {
    const script = new LauncherScript();
    script.exec(SYS.execve, "/bin/ls", ["ls", "/proc/self/fd"], {});
    const { stdout } = await run(script);
    // 0, 1, 2 and the directory fd ls itself opened to list.
    assertEquals(stdout.trim().split(/\s+/).map(Number).filter((fd) => fd > 3), []);
  },
);

/** qemu's user-mode emulator for aarch64, where installed (.ci/run installs it). */
const QEMU_AARCH64 = ["/usr/bin/qemu-aarch64-static", "/usr/bin/qemu-aarch64"].find((candidate) => {
  try {
    return Deno.statSync(candidate).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name: "launcher: the aarch64 build runs the same script (under qemu's aarch64 emulation)",
  ignore: LINUX_ONLY || Deno.build.arch === "aarch64" || QEMU_AARCH64 === undefined,
  fn: async () => {
    const sys = SYSCALLS.aarch64;
    const script = new LauncherScript();
    const fd = script.slot();
    script.step("dup stdout", sys.fcntl, [1, 1030, /* F_DUPFD_CLOEXEC */ 10], { store: fd });
    script.step("greet", sys.write, [deref(fd), script.string("from aarch64\n"), 13]);
    script.step("tolerated", sys.close, [999], { onFailure: "continue" });
    script.step("fails", sys.close, [998]);
    const image = memfdExecutable("launcher-aarch64", launcherImage("aarch64"));
    const data = memfdWith("script", script.serialize(LAUNCHER_DATA_ADDRESS));
    libc().lseek(data, 0n, 0);
    const [failRead, failWrite] = makePipe();
    const [outRead, outWrite] = makePipe();
    const stdin = libc().open(cString("/dev/null"), O.RDONLY | O.CLOEXEC, 0);
    try {
      const pid = spawnChild({
        argv: [QEMU_AARCH64!, `/proc/self/fd/${LAUNCHER_FDS.image}`],
        env: {},
        cwd: "/",
        stdio: { stdin, stdout: outWrite, stderr: outWrite },
        executable: QEMU_AARCH64,
        fds: { [LAUNCHER_FDS.image]: image, [LAUNCHER_FDS.failure]: failWrite, [LAUNCHER_FDS.script]: data },
      });
      closeFd(outWrite);
      closeFd(failWrite);
      const report = new Uint8Array(8);
      assertEquals(Number(await libc().read_wait(failRead, report, 8n)), 8);
      const view = new DataView(report.buffer);
      assertEquals([view.getUint32(0, true), view.getUint32(4, true)], [3, 9 /* EBADF */]);
      let status: ExitStatus | null;
      while ((status = reap(pid)) === null) await new Promise((resolve) => setTimeout(resolve, 5));
      assertEquals(status, { code: 127, signal: null });
      const out = new Uint8Array(256);
      const n = Number(libc().read(outRead, out, 256n));
      assertEquals(new TextDecoder().decode(out.subarray(0, n)), "from aarch64\n");
    } finally {
      for (const open of [image, data, failRead, outRead, stdin]) closeFd(open);
    }
  },
});
