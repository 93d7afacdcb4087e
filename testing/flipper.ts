/**
 * Flips `dir` with a symlink to `outside` every `phaseMicros` (busy-waited: timers are too coarse), from a process of
 * its own so it flips during the test's synchronous calls; disposing leaves `dir` a directory again.
 * @example
 * ```ts
 * await using flips = await startFlipper("/tmp/ws/race", "/tmp/outside", 1000);
 * ```
 */
export async function startFlipper(dir: string, outside: string, phaseMicros: number): Promise<AsyncDisposable> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", import.meta.filename!, dir, outside, String(phaseMicros)],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read(); // its first flip is done
  reader.releaseLock();
  return {
    async [Symbol.asyncDispose]() {
      child.kill("SIGKILL");
      await child.status;
      await child.stdout.cancel();
      const parked = `${dir}-parked`;
      if ((await Deno.lstat(dir).catch(() => null))?.isDirectory) return;
      await Deno.remove(dir).catch(() => {});
      await Deno.rename(parked, dir);
    },
  };
}

function flip(dir: string, outside: string, phaseMicros: number): never {
  const parked = `${dir}-parked`;
  const hold = () => {
    for (const end = performance.now() + phaseMicros / 1000; performance.now() < end;);
  };
  for (let first = true;; first = false) {
    Deno.renameSync(dir, parked);
    Deno.symlinkSync(outside, dir);
    if (first) Deno.stdout.writeSync(new Uint8Array([0x0a]));
    hold();
    Deno.removeSync(dir);
    Deno.renameSync(parked, dir);
    hold();
  }
}

if (import.meta.main) flip(Deno.args[0], Deno.args[1], Number(Deno.args[2]));
