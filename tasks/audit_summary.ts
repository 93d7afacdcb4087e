/**
 * `deno task audit-summary FILE`: prints the summary of an audit log (and its
 * rotated files), the same as `workcell --audit-summary FILE`.
 */
import * as path from "node:path";
import { printAuditSummary } from "../src/audit/summary.ts";

if (Deno.args.length !== 1) {
  console.error("usage: deno task audit-summary FILE");
  Deno.exit(2);
}
// deno task runs in the config's directory; INIT_CWD is where the user stood.
Deno.exit(await printAuditSummary(path.resolve(Deno.env.get("INIT_CWD") ?? Deno.cwd(), Deno.args[0])));
