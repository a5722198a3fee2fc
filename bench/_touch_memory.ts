/**
 * Touch fresh memory and print how long it took: the floor under any
 * command that holds that much memory, and (run just before one) the way
 * bench/time_to_posterior.ts hands a command memory the host already backs.
 *
 * It reserves one WebAssembly memory of the given size (as the CLI reserves
 * its arena), asks for transparent huge pages on it as the CLI does
 * (core/huge_pages.ts: needs `--allow-ffi`, else 4 KiB pages), writes one
 * byte every 4 KiB, and prints the seconds, then exits: the pages go back to
 * the operating system.
 *
 *   deno run --allow-ffi bench/_touch_memory.ts MB
 *
 * @module
 */
import { adviseHugePages } from "../core/huge_pages.ts";

const _PAGE = 65536, _MAX_MB = 4095;

const mb = Number(Deno.args[0]);
if (!(Number.isInteger(mb) && mb >= 1 && mb <= _MAX_MB)) {
  console.error(`_touch_memory: MB must be an integer in 1…${_MAX_MB}, got ${Deno.args[0]}`);
  Deno.exit(2);
}
const pages = Math.ceil((mb * 2 ** 20) / _PAGE);
const t0 = performance.now();
const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
const huge = adviseHugePages(memory);
const bytes = new Uint8Array(memory.buffer);
for (let i = 0; i < bytes.length; i += 4096) bytes[i] = 1;
const seconds = (performance.now() - t0) / 1000;
console.log(JSON.stringify({ mb, seconds, hugePages: huge }));
