import { COMMAND_LIMITS } from "../exec/limits.ts";
import { SETTLE_MS } from "../exec/registry.ts";
import { ROOTS_TIMEOUT_MS } from "../session/roots.ts";
import { MAX_COMPONENT_BYTES, MAX_PATH_BYTES } from "../workspace/confine.ts";
import { EXCERPT_BYTES } from "../project/context.ts";
import { DEFAULT_MAX_DIMENSION, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS } from "../image/view.ts";
import { MAX_IMAGE_BASE64_CHARS, MAX_OUTPUT_BYTES } from "../image/render.ts";
import { MAX_STATUS_ENTRIES } from "../git/status.ts";
import { MAX_DIFF_FILES } from "../git/diff_stream.ts";
import { MAX_LOG_COUNT, MAX_MESSAGE_CHARS } from "../git/log.ts";
import { MAX_BLAME_LINE_CHARS, MAX_BLAME_LINES } from "../git/blame.ts";
import { GIT_TIMEOUT_MS } from "../git/runner.ts";
import { MAX_PATCH_FILE_BYTES } from "../patch/lookup.ts";
import {
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_PAGE_TARGET_CHARS,
  MAX_MAX_RESULT_CHARS,
  MAX_TEXT_BYTES,
  MIN_MAX_RESULT_CHARS,
} from "../paging/budget.ts";
import { MAX_INSTRUCTIONS_BYTES } from "../instructions.ts";
import { MAX_PATCH_LINE_CHARS } from "../git/diff_page.ts";
import { MAX_CMD_ECHO_CHARS } from "../tools/command_result.ts";
import { MAX_DIFF_BYTES } from "../patch/preview.ts";
import { LOCK_WAIT_MS } from "../patch/commit.ts";
import { AUDIT_LIMITS } from "../audit/limits.ts";

/** [what, value, enforced in]. */
const LIMITS: readonly [string, string, string][] = [
  ["model-facing `content` text per result", `${MAX_TEXT_BYTES} bytes`, "src/envelope.ts"],
  [
    '`structuredContent` JSON per result (`--max-result-chars`, declared as `_meta["anthropic/maxResultSizeChars"]`)',
    `${DEFAULT_MAX_RESULT_CHARS} characters (${MIN_MAX_RESULT_CHARS}-${MAX_MAX_RESULT_CHARS})`,
    "src/paging/budget.ts",
  ],
  [
    "what default arguments aim at, on the client-views repository",
    `${DEFAULT_PAGE_TARGET_CHARS} characters`,
    "src/paging/budget.ts",
  ],
  ["`instructions` at initialize", `under ${MAX_INSTRUCTIONS_BYTES} bytes`, "src/instructions.ts"],
  ["path length", `${MAX_PATH_BYTES} bytes`, "src/workspace/confine.ts"],
  ["path component length", `${MAX_COMPONENT_BYTES} bytes`, "src/workspace/confine.ts"],
  ["instruction file excerpt in server_info", `${EXCERPT_BYTES} bytes each`, "src/project/context.ts"],
  ["git_status entries per page", `${MAX_STATUS_ENTRIES}`, "src/git/status.ts"],
  ["git_diff / git_show files per page", `${MAX_DIFF_FILES}`, "src/git/diff_stream.ts"],
  ["git_log commits per page", `${MAX_LOG_COUNT}`, "src/git/log.ts"],
  ["git_log commit body", `${MAX_MESSAGE_CHARS} characters`, "src/git/log.ts"],
  ["git_blame lines per page", `${MAX_BLAME_LINES}`, "src/git/blame.ts"],
  ["git_blame line text", `${MAX_BLAME_LINE_CHARS} characters`, "src/git/blame.ts"],
  ["git_diff / git_show patch line", `${MAX_PATCH_LINE_CHARS} characters`, "src/git/diff_page.ts"],
  ["one git invocation", `${GIT_TIMEOUT_MS / 1000} s`, "src/git/runner.ts"],
  ["file read or written by apply_patch", `${MAX_PATCH_FILE_BYTES} bytes`, "src/patch/lookup.ts"],
  ["apply_patch diff preview", `${MAX_DIFF_BYTES} bytes`, "src/patch/preview.ts"],
  [
    "apply_patch: wait for a file another process holds locked (then TIMEOUT)",
    `${LOCK_WAIT_MS / 1000} s`,
    "src/patch/commit.ts",
  ],
  ["command echoed in a command result", `${MAX_CMD_ECHO_CHARS} characters`, "src/tools/command_result.ts"],
  ["active commands", `${COMMAND_LIMITS.maxActiveCommands}`, "src/exec/limits.ts"],
  ["retained completed commands", `${COMMAND_LIMITS.maxRetainedCommands}`, "src/exec/limits.ts"],
  ["retained output per stream", `${COMMAND_LIMITS.perStreamBytes} bytes`, "src/exec/limits.ts"],
  ["retained output in total", `${COMMAND_LIMITS.totalOutputBytes} bytes`, "src/exec/limits.ts"],
  ["retention after exit", `${COMMAND_LIMITS.retentionMs / 60000} min`, "src/exec/limits.ts"],
  ["write_stdin settle interval (quiet after new output)", `${SETTLE_MS} ms`, "src/exec/registry.ts"],
  [
    "the client's answer to roots/list (then the working directory is used)",
    `${ROOTS_TIMEOUT_MS / 1000} s`,
    "src/session/roots.ts",
  ],
  ["view_image file size", `${MAX_IMAGE_BYTES} bytes`, "src/image/view.ts"],
  ["view_image decoded size (from the header)", `${MAX_IMAGE_PIXELS} pixels`, "src/image/view.ts"],
  ["view_image default max_width / max_height", `${DEFAULT_MAX_DIMENSION} pixels`, "src/image/view.ts"],
  [
    "view_image image sent",
    `${MAX_OUTPUT_BYTES} bytes (${MAX_IMAGE_BASE64_CHARS} characters of base64)`,
    "src/image/render.ts",
  ],
  [
    "audit log size before rotation (default of `--audit-log-max-bytes`)",
    `${AUDIT_LIMITS.defaultMaxBytes} bytes`,
    "src/audit/limits.ts",
  ],
  ["audit log: smallest `--audit-log-max-bytes`", `${AUDIT_LIMITS.minMaxBytes} bytes`, "src/audit/limits.ts"],
  ["audit log: rotated files kept", `${AUDIT_LIMITS.keptFiles}`, "src/audit/limits.ts"],
  [
    "audit log: wait for another process's rotation",
    `${AUDIT_LIMITS.rotationLockWaitMs / 1000} s`,
    "src/audit/limits.ts",
  ],
  ["audit event line", `${AUDIT_LIMITS.maxEventBytes} bytes`, "src/audit/limits.ts"],
  [
    "audit: a string argument logged as text (longer: size and SHA-256)",
    `${AUDIT_LIMITS.maxInlineArgumentBytes} bytes`,
    "src/audit/limits.ts",
  ],
  ["audit: items listed per list in an event", `${AUDIT_LIMITS.maxListed}`, "src/audit/limits.ts"],
];

/** The limits table, quoted from the constants of the modules that enforce them. */
export function renderLimits(): string {
  return [
    "| limit | value | enforced in |",
    "| --- | --- | --- |",
    ...LIMITS.map(([what, value, where]) => `| ${what} | ${value} | \`${where}\` |`),
  ].join("\n");
}
