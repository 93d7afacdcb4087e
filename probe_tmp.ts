import { decodeImage } from "./src/image/decode.ts";
import { reduceBitmap } from "./src/image/resize.ts";
import { encodeBitmap } from "./src/image/encode.ts";
const data = await Deno.readFile("/tmp/imgx/big.jpg");
for (let i = 0; i < 2; i++) {
let t = performance.now();
const bm = await decodeImage(data, "jpeg", { full: { width: 6000, height: 4000 }, atLeast: { width: 2048, height: 1365 } });
console.log("decode", bm.width, bm.height, (performance.now() - t).toFixed(0)); t = performance.now();
const r = reduceBitmap(bm, { width: 2048, height: 1365 });
console.log("reduce", (performance.now() - t).toFixed(0)); t = performance.now();
const e = await encodeBitmap(r, "jpeg");
console.log("encode", e.bytes.length, (performance.now() - t).toFixed(0)); t = performance.now();
const b = e.bytes.toBase64(); console.log("b64", (performance.now() - t).toFixed(0));
}
