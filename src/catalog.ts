/**
 * The fixed catalog: exactly these 18 tools, in this order, always.
 * Modes never change it; only --disable-view-image removes view_image.
 */
import type { ToolDefinition } from "./tools/tool.ts";
import { serverInfoTool } from "./tools/server_info.ts";
import { checkExecEnvironmentTool } from "./tools/check_exec_environment.ts";
import { readFileTool } from "./tools/read_file.ts";
import { listDirTool } from "./tools/list_dir.ts";
import { listFilesTool } from "./tools/list_files.ts";
import { searchTextTool } from "./tools/search_text.ts";
import { applyPatchTool } from "./tools/apply_patch.ts";
import { execCommandTool } from "./tools/exec_command.ts";
import { writeStdinTool } from "./tools/write_stdin.ts";
import { killCommandTool } from "./tools/kill_command.ts";
import { readOutputTool } from "./tools/read_output.ts";
import { gitStatusTool } from "./tools/git_status.ts";
import { gitDiffTool } from "./tools/git_diff.ts";
import { gitLogTool } from "./tools/git_log.ts";
import { gitShowTool } from "./tools/git_show.ts";
import { gitBlameTool } from "./tools/git_blame.ts";
import { requestPermissionsTool } from "./tools/request_permissions.ts";
import { viewImageTool } from "./tools/view_image.ts";

/** All 18 tools in contract order. */
export const CATALOG: readonly ToolDefinition[] = [
  serverInfoTool,
  checkExecEnvironmentTool,
  readFileTool,
  listDirTool,
  listFilesTool,
  searchTextTool,
  applyPatchTool,
  execCommandTool,
  writeStdinTool,
  killCommandTool,
  readOutputTool,
  gitStatusTool,
  gitDiffTool,
  gitLogTool,
  gitShowTool,
  gitBlameTool,
  requestPermissionsTool,
  viewImageTool,
];

/** The tools a server with these capability flags advertises. */
export function advertisedTools(options: { viewImageEnabled: boolean }): readonly ToolDefinition[] {
  return options.viewImageEnabled ? CATALOG : CATALOG.filter((tool) => tool.name !== "view_image");
}
