// Guards the @deno-types shim in mod.ts: if the SDK's types silently became
// `any` again, these `@ts-expect-error` lines would be unused and `deno check`
// would fail.
import { Server } from "./mod.ts";
import { Client } from "./client.ts";

Deno.test("sdk re-exports carry real types", () => {
  // @ts-expect-error Server is not a number
  const server: number = new Server({ name: "x", version: "1" }, {});
  // @ts-expect-error Client is not a string
  const client: string = new Client({ name: "x", version: "1" });
  if (typeof server !== "object" || typeof client !== "object") throw new Error("unexpected");
});
