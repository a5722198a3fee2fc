/**
 * `deno task web`: build the demo page's scripts, then serve `web/` on
 * http://127.0.0.1:8000 (or the port given as the first argument).
 *
 * @module
 */
import { bundleWeb } from "./build.ts";
import { serveDirectory } from "./static_server.ts";

const port = Number(Deno.args[0] ?? 8000);
const t0 = performance.now();
const sizes = await bundleWeb();
console.log(
  `built web/dist in ${((performance.now() - t0) / 1000).toFixed(1)} s: ` +
    Object.entries(sizes).map(([f, n]) => `${f} ${(n / 1024).toFixed(0)} KiB`).join(", "),
);
const server = serveDirectory(new URL(".", import.meta.url).pathname, port);
console.log(`tallmc demo: ${server.origin}/ (Ctrl-C to stop)`);
