import manifest from "../deno.json" with { type: "json" };

/** The server's name and version, from deno.json. */
export const SERVER_NAME = "workcell";
export const SERVER_VERSION: string = manifest.version;
