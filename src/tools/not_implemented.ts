import { ToolError } from "../errors.ts";

/** The honest answer of a registered tool whose implementation has not landed. */
export function notImplemented(name: string): never {
  throw new ToolError("NOT_IMPLEMENTED", `${name} is registered with its final schema but not implemented yet`);
}
