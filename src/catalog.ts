/**
 * The fixed catalog: these 18 tools in this order, in every mode (--disable-view-image drops view_image). Modules
 * load on first call, so an idle server holds none (issue 31); literal imports let `deno compile` and npm see them all.
 */
import type { ToolDefinition } from "./tools/tool.ts";

const LOADERS = {
  server_info: async () => (await import("./tools/server_info.ts")).serverInfoTool,
  check_exec_environment: async () => (await import("./tools/check_exec_environment.ts")).checkExecEnvironmentTool,
  read_file: async () => (await import("./tools/read_file.ts")).readFileTool,
  list_dir: async () => (await import("./tools/list_dir.ts")).listDirTool,
  list_files: async () => (await import("./tools/list_files.ts")).listFilesTool,
  search_text: async () => (await import("./tools/search_text.ts")).searchTextTool,
  apply_patch: async () => (await import("./tools/apply_patch.ts")).applyPatchTool,
  exec_command: async () => (await import("./tools/exec_command.ts")).execCommandTool,
  write_stdin: async () => (await import("./tools/write_stdin.ts")).writeStdinTool,
  kill_command: async () => (await import("./tools/kill_command.ts")).killCommandTool,
  read_output: async () => (await import("./tools/read_output.ts")).readOutputTool,
  git_status: async () => (await import("./tools/git_status.ts")).gitStatusTool,
  git_diff: async () => (await import("./tools/git_diff.ts")).gitDiffTool,
  git_log: async () => (await import("./tools/git_log.ts")).gitLogTool,
  git_show: async () => (await import("./tools/git_show.ts")).gitShowTool,
  git_blame: async () => (await import("./tools/git_blame.ts")).gitBlameTool,
  request_permissions: async () => (await import("./tools/request_permissions.ts")).requestPermissionsTool,
  view_image: async () => (await import("./tools/view_image.ts")).viewImageTool,
} satisfies Record<string, () => Promise<ToolDefinition>>;

/** A catalog tool's name. */
export type ToolName = keyof typeof LOADERS;

/** All 18 tool names in contract order. */
export const TOOL_NAMES = Object.keys(LOADERS) as readonly ToolName[];

/** Whether `name` is one of the catalog's tools. */
export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(LOADERS, name);
}

/** The tool's definition, its module loaded on the first call for it (the module cache keeps it). */
export function loadTool(name: ToolName): Promise<ToolDefinition> {
  return LOADERS[name]();
}

/** Every tool's definition, in contract order: for the build steps (schemas, docs, bundle) and tests. */
export function loadCatalog(): Promise<ToolDefinition[]> {
  return Promise.all(TOOL_NAMES.map(loadTool));
}
