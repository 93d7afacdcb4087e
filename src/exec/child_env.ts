/**
 * The environment every command gets on top of what the policy planned, so
 * that nothing waits for a terminal, a pager, a password or a prompt.
 *
 * @example
 * ```ts
 * childEnvironment({ PATH: "/usr/bin" }, false).PAGER; // "cat"
 * ```
 */

/** Variables set for every child, whatever the plan says. */
export const ANTI_HANG_ENV: Readonly<Record<string, string>> = {
  NO_COLOR: "1",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  GCM_INTERACTIVE: "never",
  CI: "1",
  DEBIAN_FRONTEND: "noninteractive",
  PIP_NO_INPUT: "1",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
};

/** ssh never prompts (git over ssh included); kept when the plan sets its own. */
const SSH_COMMAND = "ssh -o BatchMode=yes";

/** The child's environment: the plan's, then the anti-hang variables, TERM by terminal kind. */
export function childEnvironment(planEnv: Record<string, string>, tty: boolean): Record<string, string> {
  return {
    GIT_SSH_COMMAND: SSH_COMMAND,
    ...planEnv,
    ...ANTI_HANG_ENV,
    TERM: tty ? "xterm-256color" : "dumb",
  };
}
