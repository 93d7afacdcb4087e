/**
 * view_image on a 6000x4000 JPEG: wall time per call and the server's peak
 * RSS (VmHWM), over stdio through the SDK client. Baselines from the same
 * run: the same server's server_info call and its peak RSS before any image
 * is viewed; and, when it is installed in bench/.data/peers, the reference
 * filesystem server's read_media_file on the same file (it sends the file
 * as is, without decoding or resizing), installed by bench/peers.ts.
 */
import { Client, StdioClientTransport } from "../src/sdk/client.ts";
import { sourceRunArgs } from "../src/permissions.ts";
import { makeBitmap } from "../testing/image_fixtures.ts";
import { encodeBitmap } from "../src/image/encode.ts";
import { fitWithin } from "../src/image/resize.ts";
import { DEFAULT_MAX_DIMENSION } from "../src/image/view.ts";
import { peerEntry, PEERS } from "./peers.ts";

const CALLS = Number(Deno.env.get("BENCH_IMAGE_CALLS") ?? 5);
const WIDTH = 6000;
const HEIGHT = 4000;
const dataDir = new URL("./.data/image/", import.meta.url).pathname;
const photoName = `photo-${WIDTH}x${HEIGHT}.jpg`;
const sent = fitWithin({ width: WIDTH, height: HEIGHT }, {
  width: DEFAULT_MAX_DIMENSION,
  height: DEFAULT_MAX_DIMENSION,
});
const photo = `${dataDir}${photoName}`;

/** A photo-like picture: smooth gradients, a few hard edges and noise, so the JPEG is realistically large. */
async function makePhoto(): Promise<void> {
  try {
    await Deno.stat(photo);
    return;
  } catch { /* generate it */ }
  await Deno.mkdir(dataDir, { recursive: true });
  let seed = 1;
  const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 24) - 12;
  const bitmap = makeBitmap(WIDTH, HEIGHT, (x, y) => {
    const band = ((x >> 7) + (y >> 7)) % 2 === 0 ? 40 : 0;
    return [(x * 255) / WIDTH + noise() + band, (y * 255) / HEIGHT + noise(), 128 + noise() - band, 255];
  });
  const { bytes } = await encodeBitmap(bitmap, "jpeg");
  await Deno.writeFile(photo, bytes);
}

/** Peak and current resident set of a process, in MiB. */
async function memory(pid: number): Promise<{ peak: number; rss: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)![1]);
  return { peak: kib("VmHWM") / 1024, rss: kib("VmRSS") / 1024 };
}

interface Run {
  idlePeak: number;
  firstPeak: number;
  peak: number;
  /** RSS one second after the last view. */
  settled: number;
  firstMs: number;
  warmMs: number;
  baselineMs: number;
  sentBytes: number;
  mimeType: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(
  command: string,
  args: string[],
  tool: string,
  toolArgs: Record<string, unknown>,
  baselineTool: { name: string; arguments: Record<string, unknown> },
): Promise<Run> {
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  let transportError = "";
  const onerror = transport.onerror;
  transport.onerror = (error) => {
    transportError ||= error.message;
    onerror?.(error);
  };
  const pid = transport.pid!;
  const baseline: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await client.callTool(baselineTool);
    baseline.push(performance.now() - start);
  }
  const idlePeak = (await memory(pid)).peak;
  const times: number[] = [];
  let sentBytes = 0;
  let mimeType = "";
  let firstPeak = 0;
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    const result = await client.callTool({ name: tool, arguments: toolArgs }).catch((error: Error) => {
      throw new Error(transportError || error.message);
    });
    times.push(performance.now() - start);
    if (i === 0) firstPeak = (await memory(pid)).peak;
    const image = (result.content as { type: string; data?: string; mimeType?: string }[]).find((block) =>
      block.type === "image"
    );
    if (!image) throw new Error(`${tool} returned no image: ${JSON.stringify(result).slice(0, 300)}`);
    sentBytes = (image.data!.length * 3) / 4;
    mimeType = image.mimeType!;
  }
  const peak = (await memory(pid)).peak;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const settled = (await memory(pid)).rss;
  await client.close();
  return {
    idlePeak,
    firstPeak,
    peak,
    settled,
    firstMs: times[0],
    warmMs: median(times.slice(1)),
    baselineMs: median(baseline),
    sentBytes,
    mimeType,
  };
}

await makePhoto();
const fileBytes = (await Deno.stat(photo)).size;
console.error(`bench: ${photo} (${(fileBytes / 1024 / 1024).toFixed(1)} MiB)`);

const ours = await measure(
  Deno.execPath(),
  [...sourceRunArgs({ http: null }), "--workspace", dataDir],
  "view_image",
  { path: photoName },
  { name: "server_info", arguments: {} },
);
let peer: Run | null = null;
let peerFailure = "";
try {
  const peerMain = await peerEntry(PEERS.filesystem);
  peer = await measure("node", [peerMain, dataDir], "read_media_file", { path: photo }, {
    name: "list_allowed_directories",
    arguments: {},
  });
} catch (error) {
  peerFailure = `failed: ${(error as Error).message}`;
}
if (!peer) console.error(`bench: peer ${peerFailure}`);

const mib = (value: number) => value.toFixed(0);
const ms = (value: number) => value.toFixed(0);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const rows = [
  `| first view_image call (ms, includes WebAssembly compile) | ${ms(ours.firstMs)} | ${
    peer ? ms(peer.firstMs) : "–"
  } | ${peer ? (ours.firstMs / peer.firstMs).toFixed(2) + "×" : "–"} |`,
  `| view_image, median of ${CALLS - 1} warm calls (ms) | ${ms(ours.warmMs)} | ${peer ? ms(peer.warmMs) : "–"} | ${
    peer ? (ours.warmMs / peer.warmMs).toFixed(2) + "×" : "–"
  } |`,
  `| same server's trivial call, median (ms) | ${ms(ours.baselineMs)} (server_info) | ${
    peer ? ms(peer.baselineMs) + " (list_allowed_directories)" : "–"
  } | ${(ours.warmMs / ours.baselineMs).toFixed(0)}× server_info |`,
  `| peak RSS before any image (MiB) | ${mib(ours.idlePeak)} | ${peer ? mib(peer.idlePeak) : "–"} | |`,
  `| peak RSS after 1 view (MiB) | ${mib(ours.firstPeak)} | ${peer ? mib(peer.firstPeak) : "–"} | ${
    peer ? (ours.firstPeak / peer.firstPeak).toFixed(2) + "×" : "–"
  } |`,
  `| peak RSS after ${CALLS} views (MiB) | ${mib(ours.peak)} | ${peer ? mib(peer.peak) : "–"} | ${
    peer ? (ours.peak / peer.peak).toFixed(2) + "×" : "–"
  } |`,
  `| RSS 1 s after the last view (MiB) | ${mib(ours.settled)} | ${peer ? mib(peer.settled) : "–"} | |`,
  `| image sent | ${kb(ours.sentBytes)} ${ours.mimeType}, ${sent.width}x${sent.height} | ${
    peer ? `${kb(peer.sentBytes)} ${peer.mimeType}, ${WIDTH}x${HEIGHT} (not resized)` : "–"
  } | ${peer ? (ours.sentBytes / peer.sentBytes).toFixed(3) + "×" : "–"} |`,
];
console.log(`## view_image: ${WIDTH}x${HEIGHT} JPEG (${(fileBytes / 1024 / 1024).toFixed(1)} MiB)

| measurement | workcell | peer: server-filesystem read_media_file | ratio |
| --- | ---: | ---: | ---: |
${rows.join("\n")}

${
  peer
    ? ""
    : `Peer: ${peerFailure}.\n\n`
}Peak RSS is the server process's VmHWM. The peer returns the file's own bytes as base64 and never decodes
it; workcell decodes at 1/2 scale (JPEG DCT scaling), area-averages to ${sent.width}x${sent.height} and re-encodes at quality 85,
in a worker that is terminated after each view (the next view's worker is started as soon as one ends).`);
