/**
 * The client's MCP roots, asked after initialize and on each list_changed when the command line left the workspace
 * open. A change never moves a running session's workspace (root pinned, sandbox built); server_info reports it.
 */
import { RootsListChangedNotificationSchema, type Server } from "../sdk/mod.ts";
import { type ClientRoot, pickRoot, type RootsPick } from "../workspace/resolve.ts";

/** How long the client may take to answer roots/list before the working directory is used instead. */
export const ROOTS_TIMEOUT_MS = 5000;

/** What the client said about its roots, as server_info reports it. */
export interface RootsReport {
  uris: string[];
  /** The other `file://` roots, not served. */
  others: string[];
  ignored: { uri: string; reason: string }[];
  /** Why roots/list gave nothing usable (failed, timed out), or null. */
  error: string | null;
  /** Set once a roots/list_changed named another first root than the served workspace. */
  changed_to: string | null;
}

/**
 * Asks the client for its roots (bounded by ROOTS_TIMEOUT_MS); a failure is reported, not thrown.
 * @example
 * ```ts
 * declare const server: import("../sdk/mod.ts").Server;
 * const { pick } = await askRoots(server);
 * ```
 */
export async function askRoots(server: Server): Promise<{ pick: RootsPick; report: RootsReport }> {
  let roots: ClientRoot[] = [];
  let error: string | null = null;
  try {
    ({ roots } = await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS }));
  } catch (failure) {
    error = `roots/list failed: ${(failure as Error).message}`;
  }
  const pick = pickRoot(roots);
  const uris = roots.map((root) => root.uri);
  return { pick, report: { uris, others: pick.others, ignored: pick.ignored, error, changed_to: null } };
}

/**
 * On `notifications/roots/list_changed`, asks again and updates `report` in place; `servedRoot` never changes.
 * @example
 * ```ts
 * declare const server: import("../sdk/mod.ts").Server;
 * const { pick, report } = await askRoots(server);
 * if (pick.choice) watchRootChanges(server, report, pick.choice.dir);
 * ```
 */
export function watchRootChanges(server: Server, report: RootsReport, servedRoot: string): void {
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    const { pick, report: fresh } = await askRoots(server);
    Object.assign(report, fresh, {
      changed_to: pick.choice && pick.choice.dir !== servedRoot ? pick.choice.dir : null,
    });
  });
}
