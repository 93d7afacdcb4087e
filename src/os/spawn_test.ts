import { assert, assertEquals, assertThrows } from "../../testing/assert.ts";
import { execProgram, findOnPath, isProgramNotFound, spawnChild, SpawnError } from "./spawn.ts";
import { closeFd, makePipe, reap } from "./fd.ts";
import { ERRNO, libc } from "./libc.ts";
import { openPty } from "./pty.ts";
import { memfdExecutable } from "./executable.ts";

const ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

/** Reads a blocking fd to EOF. */
function drain(fd: number): string {
  const chunks: Uint8Array[] = [];
  const buffer = new Uint8Array(65536);
  for (;;) {
    const n = Number(libc().read(fd, buffer, BigInt(buffer.length)));
    if (n <= 0) break;
    chunks.push(buffer.slice(0, n));
  }
  return new TextDecoder().decode(new Uint8Array(chunks.flatMap((chunk) => [...chunk])));
}

async function waitExit(pid: number) {
  for (;;) {
    const status = reap(pid);
    if (status) return status;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function run(argv: string[], cwd = "/tmp") {
  const [inR, inW] = makePipe();
  const [outR, outW] = makePipe();
  const pid = spawnChild({ argv, env: ENV, cwd, stdio: { stdin: inR, stdout: outW, stderr: outW } });
  closeFd(inR);
  closeFd(outW);
  closeFd(inW);
  const output = drain(outR);
  closeFd(outR);
  return { pid, output };
}

/** The tests that read /proc or run a memfd: darwin_test.ts has darwin's own. */
const LINUX_ONLY = Deno.build.os !== "linux";

Deno.test("spawnChild: a new session, only fds 0-2, the given cwd", { ignore: LINUX_ONLY }, async () => {
  const { pid, output } = run(["sh", "-c", "ps -o sid= -o pgid= -p $$; ls /proc/$$/fd; pwd"], "/usr");
  const lines = output.trim().split("\n").map((line) => line.trim());
  assertEquals(lines[0].split(/\s+/), [String(pid), String(pid)]);
  assertEquals(lines.slice(1, -1).sort(), ["0", "1", "2"]);
  assertEquals(lines.at(-1), "/usr");
  assertEquals(await waitExit(pid), { code: 0, signal: null });
});

Deno.test("spawnChild: the child starts with an empty signal mask and no ignored signals", {
  ignore: LINUX_ONLY,
}, async () => {
  // The child reads its own status: a shell would race with the mask dash sets around its own vfork.
  const { pid, output } = run(["cat", "/proc/self/status"]);
  const field = (name: string) => output.split("\n").find((line) => line.startsWith(`${name}:`))!.split("\t")[1];
  assertEquals(field("SigBlk"), "0000000000000000");
  // Signals 1-31 are not ignored (32 and 33 are glibc's internal signals, outside sigfillset).
  assertEquals(BigInt(`0x${field("SigIgn")}`) & 0x7fffffffn, 0n);
  assertEquals(await waitExit(pid), { code: 0, signal: null });
});

Deno.test("spawnChild: SIGPIPE is the default (yes | head -1 exits quietly)", async () => {
  const { pid, output } = run(["sh", "-c", "yes | head -1"]);
  assertEquals(output, "y\n");
  assertEquals(await waitExit(pid), { code: 0, signal: null });
});

Deno.test("spawnChild: a missing program is ENOENT", () => {
  const error = assertThrows(() => run(["definitely-not-a-program-xyz"]));
  assert(error instanceof SpawnError && isProgramNotFound(error));
});

Deno.test("spawnChild: a PTY slave becomes the controlling terminal", async () => {
  const pty = openPty();
  const pid = spawnChild({
    argv: ["sh", "-c", "test -t 0 && test -t 1 && stty size && tty"],
    env: ENV,
    cwd: "/tmp",
    stdio: { stdin: -1, stdout: -1, stderr: -1 },
    ttySlave: pty.slavePath,
  });
  const status = await waitExit(pid);
  closeFd(pty.slave);
  const output = drain(pty.master);
  closeFd(pty.master);
  assertEquals(status, { code: 0, signal: null });
  assertEquals(output.replaceAll("\r", ""), `24 80\n${pty.slavePath}\n`);
});

Deno.test("spawnChild: programFd runs a close-on-exec memfd (the compiled binary's rg) after every other fd closed", {
  ignore: LINUX_ONLY,
}, async () => {
  const fd = memfdExecutable("echo", await Deno.readFile("/bin/echo"));
  try {
    const [inR, inW] = makePipe();
    const [outR, outW] = makePipe();
    const pid = spawnChild({
      argv: ["echo", "from a memfd"],
      env: ENV,
      cwd: "/tmp",
      stdio: { stdin: inR, stdout: outW, stderr: outW },
      programFd: fd,
    });
    for (const end of [inR, inW, outW]) closeFd(end);
    const output = drain(outR);
    closeFd(outR);
    assertEquals([output, await waitExit(pid)], ["from a memfd\n", { code: 0, signal: null }]);
  } finally {
    closeFd(fd);
  }
});

Deno.test("findOnPath: the first executable file in an absolute PATH entry", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "workcell-path-" }));
  try {
    await Deno.mkdir(`${dir}/a`);
    await Deno.mkdir(`${dir}/b`);
    await Deno.writeTextFile(`${dir}/a/tool`, "not executable");
    await Deno.writeTextFile(`${dir}/b/tool`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.mkdir(`${dir}/a/dir-tool`);
    assertEquals(findOnPath("tool", `relative:${dir}/a:${dir}/b`), `${dir}/b/tool`);
    assertEquals(findOnPath("dir-tool", `${dir}/a`), null);
    assertEquals(findOnPath("tool", ""), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("execProgram: a program that cannot be run throws its errno and this process goes on", () => {
  const missing = assertThrows(() => execProgram("/nonexistent/program", ["program"], {})) as SpawnError;
  assert(missing instanceof SpawnError && missing.errno === ERRNO.ENOENT, String(missing));
  const directory = assertThrows(() => execProgram("/tmp", ["tmp"], {})) as SpawnError;
  assertEquals(directory.errno, ERRNO.EACCES);
});
