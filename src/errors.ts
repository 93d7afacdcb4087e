/** Every code a tool failure carries, with its meaning and default hint; docs, schemas and CI read it from here. */
export const ERROR_CODES = {
  INVALID_ARGUMENT: {
    meaning: "An argument is missing, has the wrong type, is out of range, or is not a known property.",
    hint: "Fix the named field and call again; tools/list gives each tool's inputSchema.",
  },
  PATH_OUTSIDE_WORKSPACE: {
    meaning: "The path resolves (lexically or through symlinks) outside the workspace root.",
    hint: "Use a path under the workspace root; symlinks that leave the workspace are not followed.",
  },
  NO_WORKSPACE: {
    meaning:
      "The server has no workspace: it would have served / or the home directory without being asked, or the directory it was given cannot be opened.",
    hint:
      'Start the server with --workspace DIR (VS Code and Cursor: "args": ["--workspace", "${workspaceFolder}"]), set CLAUDE_PROJECT_DIR, or use a client that sends MCP roots; server_info.workspace says why there is none.',
  },
  NOT_FOUND: {
    meaning: "The file, directory or revision does not exist.",
    hint: "Check the path with list_dir or list_files.",
  },
  NOT_A_FILE: {
    meaning: "The path exists but is not a regular file.",
    hint: "Use list_dir for directories.",
  },
  NOT_A_DIRECTORY: {
    meaning: "The path exists but is not a directory.",
    hint: "Use read_file for files.",
  },
  NOT_UTF8: {
    meaning: "The content is not valid UTF-8 text.",
    hint: "The file is binary or in another encoding; inspect it with exec_command (e.g. `xxd`) instead.",
  },
  FILE_TOO_LARGE: {
    meaning: "The input is larger than this tool accepts.",
    hint: "Read it in ranges, or process it with a command.",
  },
  ALREADY_EXISTS: {
    meaning: "The target already exists and the operation would overwrite it.",
    hint: "Use *** Update File for existing files, or choose another destination.",
  },
  PATCH_PARSE_ERROR: {
    meaning: "The patch text does not follow the *** Begin Patch envelope grammar.",
    hint: "Fix the patch at the reported line; see the grammar in docs/apply-patch.md.",
  },
  PATCH_CONTEXT_NOT_FOUND: {
    meaning: "A hunk's context and removed lines do not occur in the file.",
    hint: "Re-read the file around the reported nearest lines and resend the hunk with exact context.",
  },
  PATCH_CONTEXT_AMBIGUOUS: {
    meaning: "A hunk's context occurs more than once in the file.",
    hint: "Add more context lines or an @@ anchor line so the hunk matches exactly one place.",
  },
  PATCH_ALREADY_APPLIED: {
    meaning: "A hunk's old lines are absent but its new lines are already in the file: the patch was applied before.",
    hint: "Nothing was written. Re-read the file; drop the hunks that are already in place and resend the rest.",
  },
  PATCH_CONFLICT: {
    meaning: "A file changed between matching and installing the patch; nothing was written.",
    hint: "Re-read the file and regenerate the patch.",
  },
  PATCH_WRITE_FAILED: {
    meaning: "Writing the patched files failed; every file was restored to its prior state.",
    hint: "Check disk space and permissions, then retry.",
  },
  WORKSPACE_READ_ONLY: {
    meaning: "The workspace (or the part of it being written) is on a read-only file system; nothing was written.",
    hint:
      "Read-only tools keep working. To change files, restart the server on a writable copy or mount (server_info.workspace.writable says which it has).",
  },
  PATH_PROTECTED: {
    meaning: "The path is protected from writes (for example inside .git/).",
    hint: "Change repository state through git commands, not by editing .git/.",
  },
  COMMAND_BLOCKED: {
    meaning: "The command gate of the current permission mode refused the command.",
    hint:
      "Use a dedicated tool, rewrite the command without the refused construct, call request_permissions, or restart in another --mode.",
  },
  COMMAND_NOT_FOUND: {
    meaning: "The program to run was not found on PATH or is not executable.",
    hint: "Check the program name; check_exec_environment shows PATH.",
  },
  COMMAND_LIMIT: {
    meaning: "A runtime limit (active commands, retained commands or output budget) is reached.",
    hint: "Kill or finish running commands with kill_command, or wait for retained ones to expire.",
  },
  UNKNOWN_COMMAND: {
    meaning: "No command with this command_id was started by this server.",
    hint: "Copy command_id exactly from the exec_command result.",
  },
  COMMAND_PRUNED: {
    meaning: "The command finished and its record was pruned after the retention time or limit.",
    hint: "Run it again; redirect long output to a file to keep it.",
  },
  COMMAND_EXITED: {
    meaning: "The command has already exited and cannot take input.",
    hint: "Poll with empty chars to read its final status, or start a new command.",
  },
  TTY_UNSUPPORTED: {
    meaning: "A pseudo-terminal cannot be created on this platform.",
    hint: "Run without tty:true.",
  },
  OUTPUT_REF_INVALID: {
    meaning: "The output_ref is malformed or names no retained stream.",
    hint: "Use the output_ref exactly as returned, of the form command:<id>:stdout or command:<id>:stderr.",
  },
  PROGRAM_UNAVAILABLE: {
    meaning: "A program this tool runs (git) was not found when the server started.",
    hint:
      "Install it, or start the server with a PATH that has it; check_exec_environment.dependencies shows what was found where.",
  },
  NOT_A_GIT_REPO: {
    meaning: "The path is not inside a git repository within the workspace.",
    hint: "Run git tools inside a repository; git_status on the workspace root shows whether it is one.",
  },
  GIT_FAILED: {
    meaning: "git exited with an error.",
    hint: "Read the stderr excerpt in details.",
  },
  UNSUPPORTED_IMAGE: {
    meaning: "The file is not a PNG, JPEG or GIF image, or it is corrupt.",
    hint: "Convert it to PNG first, or inspect it with read_file or exec_command.",
  },
  TOOL_DISABLED: {
    meaning: "The tool is disabled on this server by a capability flag.",
    hint: "Restart the server without the flag that disables it (see server_info.catalog).",
  },
  PERMISSION_DENIED: {
    meaning: "The operating system refused the operation.",
    hint: "Check the file's permissions; the server cannot change them for you.",
  },
  RESULT_TOO_LARGE: {
    meaning: "One item of the result (a path, a line) is larger than the result ceiling, so no page can hold it.",
    hint:
      "Restart the server with a larger --max-result-chars, or reach the item another way (read_file, exec_command).",
  },
  TIMEOUT: {
    meaning: "The operation did not finish within its time limit.",
    hint: "Narrow the request (a smaller path, fewer results) and retry.",
  },
  INTERNAL: {
    meaning: "An unexpected error inside the server.",
    hint: "Retry; if it persists, report it with the message.",
  },
} as const satisfies Record<string, { meaning: string; hint: string }>;

/** A code from the registry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Every registered code, in registry order. */
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/** A failure with a registry code, turned into the error envelope in one place; `hint` defaults to the code's. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ToolError";
    this.code = code;
    this.hint = options.hint ?? ERROR_CODES[code].hint;
    this.details = options.details ?? {};
  }
}

/**
 * Maps an OS error from a file operation to a ToolError naming `path`.
 * @example
 * ```ts
 * fromOsError(new Deno.errors.NotFound("gone"), "src/a.ts"); // NOT_FOUND: src/a.ts does not exist
 * ```
 */
export function fromOsError(error: unknown, path: string): ToolError {
  if (error instanceof ToolError) return error;
  const about = (code: ErrorCode, message: string) => new ToolError(code, message, { details: { path } });
  if (error instanceof Deno.errors.NotFound) return about("NOT_FOUND", `${path} does not exist`);
  if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable) {
    return about("PERMISSION_DENIED", `${path}: permission denied`);
  }
  if (error instanceof Deno.errors.IsADirectory) return about("NOT_A_FILE", `${path} is a directory`);
  if (error instanceof Deno.errors.NotADirectory) {
    return about("NOT_A_DIRECTORY", `${path}: a parent is not a directory`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError("INTERNAL", `${path}: ${message}`, { details: { path }, cause: error });
}
