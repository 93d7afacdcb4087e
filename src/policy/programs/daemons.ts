/**
 * Programs that ask a system daemon to act (systemd, container engines), refused in safe and trusted mode: the daemon
 * acts outside the client's sandbox with its own rights (a container can mount `/`). What the kernel refuses itself
 * is left to it: without capabilities and with `no_new_privs`, `sudo`, `su`, `chroot`, `nsenter`, `mount`, `iptables`
 * and `reboot(2)` fail; Landlock refuses writes to block devices and `/proc/sys`. tests/gate_kernel_test.ts tries them.
 */
import { type Call, type Finding, named, pathWords, type ProgramRules, refusal } from "./program.ts";

const POWER = new Set(["shutdown", "reboot", "halt", "poweroff", "init", "telinit"]);
const CONTAINERS = new Set(["docker", "podman", "nerdctl", "lxc", "systemd-run", "machinectl"]);
/** systemctl/service subcommands that only read. */
const READS = new Set(["status", "show", "cat", "list-units", "list-unit-files", "is-active", "is-enabled", "--help"]);

/** The daemon-backed programs. */
export const DAEMONS: ProgramRules = {
  covers: named([...POWER, ...CONTAINERS, "systemctl", "service"]),
  check({ program, name, args }: Call): Finding[] {
    if (CONTAINERS.has(name)) {
      return [refusal("destructive.privilege", program, `${program} asks a daemon that acts outside the sandbox`)];
    }
    const sub = args.find((arg) => !arg.startsWith("-")) ?? "";
    const reads = (name === "systemctl" && READS.has(sub)) || (name === "service" && READS.has(args[1] ?? ""));
    if (POWER.has(name) || !reads) {
      return [refusal("destructive.system", program, `${program} ${args.join(" ")} changes system state`.trim())];
    }
    return [pathWords(args)];
  },
  examples: {
    refused: [["podman run x", "destructive.privilege"], ["service ssh restart", "destructive.system"]],
    allowed: ["systemctl status ssh", "service ssh status"],
  },
  corpus: [
    ["shutdown -h now", "destructive.system", "destructive.system"],
    ["reboot", "destructive.system", "destructive.system"],
    ["systemctl stop sshd", "destructive.system", "destructive.system"],
    ["docker run --rm -v /:/host alpine", "destructive.privilege", "destructive.privilege"],
    ["systemd-run --user x", "destructive.privilege", "destructive.privilege"],
    ["systemctl status sshd", null, null],
  ],
};
