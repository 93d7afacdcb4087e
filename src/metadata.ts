/** How workcell describes itself: serverInfo, the server card, and the manifests tasks/package.ts builds. */
import type { Implementation } from "./sdk/mod.ts";
import { SERVER_NAME, SERVER_VERSION } from "./version.ts";

/** The GitHub `owner/name`: confirm the owner before a first release, the registry verifies its name against it. */
export const REPOSITORY = "workcell/workcell";
/** Where the source lives. */
export const REPOSITORY_URL = `https://github.com/${REPOSITORY}`;
/** The page a client links to. */
export const WEBSITE_URL = `${REPOSITORY_URL}#readme`;
/** The MCP registry's name for the server: reverse DNS of the GitHub owner. */
export const REGISTRY_NAME = `io.github.${REPOSITORY.split("/")[0]}/${SERVER_NAME}`;
/** The npm package whose bin starts the server (`npx -y workcell`). */
export const NPM_PACKAGE = SERVER_NAME;

/** A display name. */
export const SERVER_TITLE = "workcell";
/** One sentence; the registry allows at most {@linkcode MAX_DESCRIPTION_CHARS}. */
export const SERVER_DESCRIPTION =
  "A confined coding workspace for agents: read, search, patch, run commands, git and images.";
/** server.json's bound on `description` (its 2025-12-11 schema). */
export const MAX_DESCRIPTION_CHARS = 100;

/** The 512x512 PNG icon (the size Claude Desktop asks of a bundle icon); also the bundle's icon.png. */
export const ICON_FILE: URL = new URL("./icon.png", import.meta.url);
/**
 * The icon initialize carries, as a `data:` URI of about 0.5 KB (the 512 one is 5.8 KB): VS Code, which shows
 * serverInfo icons, takes `data:` icons from any server but http(s) ones only from an HTTP server on the same host.
 */
export const SERVER_INFO_ICON_FILE: URL = new URL("./icon-64.png", import.meta.url);
/** Its size, as MCP icons state it. */
export const SERVER_INFO_ICON_SIZE = "64x64";

/** The icon as an https URL of this version's tag (server.json and the card require https). */
const ICON_URL = `https://raw.githubusercontent.com/${REPOSITORY}/v${SERVER_VERSION}/src/icon.png`;

/** The identity server.json and the card share (the registry's `ServerDetail`); neither allows a `data:` icon. */
export function registryIdentity() {
  return {
    name: REGISTRY_NAME,
    title: SERVER_TITLE,
    description: SERVER_DESCRIPTION,
    version: SERVER_VERSION,
    websiteUrl: WEBSITE_URL,
    repository: { url: REPOSITORY_URL, source: "github" },
    icons: [{ src: ICON_URL, mimeType: "image/png", sizes: ["512x512"] }],
  };
}

/** serverInfo's icon as a `data:` URI, read on the first call. */
let dataUri: string | undefined;

/** The `serverInfo` of the initialize answer (MCP 2025-11-25 `Implementation`), its icon inline. */
export function serverInfo(): Implementation {
  dataUri ??= `data:image/png;base64,${btoa(String.fromCharCode(...Deno.readFileSync(SERVER_INFO_ICON_FILE)))}`;
  return {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    title: SERVER_TITLE,
    description: SERVER_DESCRIPTION,
    websiteUrl: WEBSITE_URL,
    icons: [{ src: dataUri, mimeType: "image/png", sizes: [SERVER_INFO_ICON_SIZE] }],
  };
}
