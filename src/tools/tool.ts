/** What a tool adapter is: name, annotations, zod schemas and a handler; the work lives in domain modules. */
import type { z } from "../zod.ts";
import type { Config } from "../config.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { RuntimeFacts, Services } from "../services.ts";
import type { WorkspaceBinding } from "../session/binding.ts";
import type { SessionInfo, SessionState } from "../session/info.ts";
import type { ProgramName } from "../exec/programs.ts";
import type { AuditTrail } from "../audit/trail.ts";
import type { ElicitRequestFormParams, ElicitResult } from "../sdk/mod.ts";
import type { Annotations, ToolSummary } from "../catalog_listing.ts";
import { dataBudget } from "../paging/budget.ts";
import { Cursors, type Paged, type PageRequest } from "../paging/cursor.ts";
import type { SnapshotSlot } from "../paging/snapshots.ts";
import { nextCall, type TextLayout } from "../paging/text_layout.ts";

/** Everything a handler may use besides its arguments. */
export interface ToolContext {
  config: Config;
  /** Facts about the machine, known with or without a workspace. */
  facts: RuntimeFacts;
  /** The workspace root; reading it without a workspace throws NO_WORKSPACE (only server_info runs then). */
  workspace: Workspace;
  services: Services;
  /** Where the workspace came from, or why there is none. */
  binding: WorkspaceBinding;
  /** The arguments exactly as the client sent them (validated), to repeat in a next-call line. */
  arguments: Readonly<Record<string, unknown>>;
  audit: AuditTrail | null;
  session: SessionInfo;
  catalog: readonly ToolSummary[];
  sessionState: SessionState;
  /** Aborted when the client cancels the request or disconnects. */
  signal: AbortSignal;
  /** A no-op unless the request carried a progressToken. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** elicitation/create in form mode; only valid when the client declared the capability. */
  elicit(form: ElicitRequestFormParams): Promise<ElicitResult>;
}

/** What a handler returns on success; the envelope adds `ok: true`. */
export interface ToolOutput<Data extends object = Record<string, unknown>> {
  /** Agent-readable summary or bounded preview (not a JSON dump). */
  text: string;
  /** The complete machine interface, without `ok`: the tool's output schema. */
  data: Data;
  /** The one `image` content block (view_image only). */
  image?: { data: string; mimeType: string };
}

/** A catalog entry. */
export interface ToolDefinition<
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodObject = z.ZodObject,
> {
  name: string;
  title: string;
  description: string;
  annotations: Annotations;
  /** Strict zod object: unknown properties are refused as INVALID_ARGUMENT. */
  input: Input;
  output: Output;
  /** Programs the tool runs; where one was not found at start-up the server answers PROGRAM_UNAVAILABLE. */
  requires?: readonly ProgramName[];
  handler(args: z.infer<Input>, ctx: ToolContext): Promise<ToolOutput<z.infer<Output>>>;
}

/**
 * Declares a tool with its handler typed from its schemas; a literal returned for an enum field needs `as const`.
 * @example
 * ```ts
 * import { z } from "zod";
 * export const pingTool = defineTool({
 *   name: "ping", title: "Ping", description: "Answers pong.",
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 *   input: z.strictObject({}), output: z.object({ answer: z.enum(["pong"]) }),
 *   handler: () => Promise.resolve({ text: "pong", data: { answer: "pong" as const } }),
 * });
 * ```
 */
export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

/**
 * What a paged domain module gets for one call of tool `name`: the page its cursor resumes, within the result
 * ceiling, and the query's snapshot slot, its values sized by `bytes`. `pageArgs` may change between pages.
 * @example
 * ```ts
 * import { z } from "zod";
 * declare const ctx: ToolContext;
 * const { page, keep } = pagedCall(ctx, "list_dir", { path: "." }, ["limit"], z.string(), (kept: string[]) => 8);
 * ```
 */
export function pagedCall<S extends z.ZodType, T>(
  ctx: ToolContext,
  name: string,
  args: Readonly<Record<string, unknown>>,
  pageArgs: readonly string[],
  position: S,
  bytes: (kept: T) => number,
): { page: PageRequest<z.infer<S>>; keep: SnapshotSlot<T> } {
  const cursors = new Cursors(name, args, pageArgs);
  return {
    page: cursors.request(position, dataBudget(ctx.config.maxResultChars)),
    keep: ctx.sessionState.snapshots.slot(cursors.query, bytes),
  };
}

/**
 * A paged text's next-call line after its first `shown` items: tool `name` with the `given` arguments and the cursor.
 * @example
 * ```ts
 * declare const page: import("../paging/cursor.ts").Paged<unknown>;
 * nextPageCall("git_log", { rev: "main" }, page)(5); // 'next: git_log {"rev":"main","cursor":"…"}', or null
 * ```
 */
export function nextPageCall(name: string, given: ToolContext["arguments"], page: Paged<unknown>): TextLayout["next"] {
  return (shown) => {
    const cursor = page.cursorAfter(shown);
    return cursor === null ? null : nextCall(name, given, { cursor });
  };
}
