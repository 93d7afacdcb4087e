/**
 * What the command gate no longer refuses, because the kernel does: each
 * attempt runs from a script file (which the gate does not read), in safe
 * and trusted mode, as root and as nobody (uid 65534, through setpriv), and
 * must fail in the sandbox — writes to a device or to /proc/sys, a write or
 * removal outside the workspace, mount, chroot, nsenter, chown — while the
 * harmless commands the gate used to refuse (`dd` and `find -delete` inside
 * the workspace, `sed -i`, inline code) run. docs/permission-modes.md lists
 * the refusals that stayed and why.
 */
import * as path from "node:path";
import { assertEquals } from "../testing/assert.ts";
import { NOBODY, startServer, tempWorkspace, unprivileged } from "./harness.ts";
import { parseProbe } from "./sandbox_probe.ts";

const LINUX_ONLY = Deno.build.os !== "linux";

function probeScript(outside: string): string {
  const attempt = (name: string, command: string) =>
    `if ${command} >/dev/null 2>&1; then echo ${name}=ok; else echo ${name}=denied; fi`;
  return [
    attempt("dd_inside", "dd if=a.txt of=b.txt"),
    attempt("find_delete_inside", "find . -name junk -delete"),
    attempt("sed_in_place", "sed -i s/one/two/ a.txt"),
    attempt("inline_code", 'python3 -c \'open("c.txt", "w").write("x")\''),
    // Opens a block device for writing and writes nothing (count=0), so it is harmless were it allowed.
    attempt("dd_to_device", "dd if=/dev/null of=/dev/loop7 count=0 conv=notrunc"),
    attempt("proc_sys", "cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname"),
    attempt("inline_write_outside", `python3 -c 'open("${outside}/new.txt", "w")'`),
    attempt("remove_outside", `rm -f ${outside}/keep.txt`),
    attempt("mount", "mkdir -p m && mount -t tmpfs none m"),
    attempt("chroot", "chroot / true"),
    attempt("nsenter", "nsenter -t 1 -m true"),
    attempt("chown", `chown ${NOBODY + 1} a.txt`),
    "",
  ].join("\n");
}

const EXPECTED = {
  dd_inside: "ok",
  find_delete_inside: "ok",
  sed_in_place: "ok",
  inline_code: "ok",
  dd_to_device: "denied",
  proc_sys: "denied",
  inline_write_outside: "denied",
  remove_outside: "denied",
  mount: "denied",
  chroot: "denied",
  nsenter: "denied",
  chown: "denied",
};

async function probe(mode: "safe" | "trusted", asNobody: boolean): Promise<void> {
  const ws = await tempWorkspace();
  const outside = await Deno.makeTempDir({ prefix: "workcell-outside-" });
  try {
    await Deno.writeTextFile(path.join(ws, "a.txt"), "one\n");
    await Deno.writeTextFile(path.join(ws, "junk"), "x\n");
    await Deno.writeTextFile(path.join(ws, "probe.sh"), probeScript(outside));
    await Deno.writeTextFile(path.join(outside, "keep.txt"), "keep\n");
    const nobody = asNobody ? await unprivileged() : null;
    if (nobody) {
      for (const dir of [ws, outside]) {
        await new Deno.Command("chown", { args: ["-R", `${NOBODY}:${NOBODY}`, dir] }).output();
      }
    }
    await using server = await startServer({ workspace: ws, args: ["--mode", mode], ...(nobody ?? {}) });
    // The command the gate used to refuse by name passes it now.
    const dd = await server.call("exec_command", { cmd: "dd if=a.txt of=d.txt" });
    assertEquals([dd.isError, dd.structured.exit_code], [false, 0], dd.text);
    const result = await server.call("exec_command", { cmd: "sh probe.sh", yield_time_ms: 20000 });
    assertEquals(parseProbe(result.structured.stdout), EXPECTED, result.text);
    assertEquals(await Deno.readTextFile(path.join(outside, "keep.txt")), "keep\n");
    assertEquals(await Deno.stat(path.join(outside, "new.txt")).then(() => true, () => false), false);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
}

for (const mode of ["safe", "trusted"] as const) {
  Deno.test({
    name: `kernel instead of gate (${mode}, as this user): devices, /proc/sys, outside, mount, chroot, chown fail`,
    ignore: LINUX_ONLY,
    fn: () => probe(mode, false),
  });
  Deno.test({
    name: `kernel instead of gate (${mode}, as nobody): the same attempts fail without privilege too`,
    ignore: LINUX_ONLY || Deno.uid() !== 0,
    fn: () => probe(mode, true),
  });
}
