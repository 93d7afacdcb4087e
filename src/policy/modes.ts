/**
 * What each permission mode enforces, as data that server_info,
 * check_exec_environment and docs all read.
 */
import type { Mode } from "../config.ts";

/** The gates one mode keeps in force. */
export interface ModePolicy {
  /** Command gates applied before any spawn. */
  gates: readonly string[];
  /** How `cmd` is executed. */
  execution: "argv" | "shell";
  /** Whether children are sandboxed with Landlock (where the kernel has it). */
  landlock: boolean;
  /** Whether children may make TCP connections (where Landlock can deny it). */
  network: boolean;
  /** A one-line summary; loud for dangerous. */
  summary: string;
}

/** The policy table, one row per mode. */
export const MODE_POLICIES: Record<Mode, ModePolicy> = {
  safe: {
    gates: ["network", "shell_syntax", "inline_script", "destructive", "outside_path", "secret_env"],
    execution: "argv",
    landlock: true,
    network: false,
    summary: "safe: commands run as plain argv without a shell; network, shell syntax, inline scripts, " +
      "destructive commands, outside paths and secret/loader env are refused; children may write only in the workspace and a private temp dir.",
  },
  trusted: {
    gates: ["destructive", "secret_env"],
    execution: "shell",
    landlock: true,
    network: true,
    summary:
      "trusted: commands run through the shell with local network; destructive commands and secret/loader env are refused; " +
      "children may write only in the workspace and a private temp dir.",
  },
  dangerous: {
    gates: [],
    execution: "shell",
    landlock: false,
    network: true,
    summary:
      "DANGEROUS: no command gates and no sandbox: commands can read, write and connect anywhere the server's user can. " +
      "Use only inside an isolated container or VM. Direct path tools stay confined to the workspace.",
  },
};
