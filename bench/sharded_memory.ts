/**
 * Resident memory of ShardedGlmModel (2 workers, logistic, d = 29, f32) after
 * two full-data gradient passes, for "memory" and "stream" shards at a given
 * n: streamed shards should grow by the same amount at every n (one staging
 * block per worker), memory shards by n × 124 bytes.
 *
 * ```
 * deno run --allow-read --allow-write=/tmp --allow-env bench/sharded_memory.ts stream 1000000
 * ```
 *
 * Writes the row store to /tmp/sharded_memory_<n>.rows (reused by later runs;
 * delete it when done). Run each kind in its own process: RSS does not shrink
 * when a model is closed.
 */
import type { RowChunk } from "../data/row_store_format.ts";
import { writeRowStore } from "../data/row_store_write.ts";
import { ShardedGlmModel } from "../models/sharded_glm.ts";

const [kind, nText] = Deno.args;
const n = Number(nText), d = 29;
if ((kind !== "memory" && kind !== "stream") || !Number.isInteger(n) || n < 2) {
  console.error("usage: sharded_memory.ts memory|stream <n ≥ 2>");
  Deno.exit(2);
}
const path = `/tmp/sharded_memory_${n}.rows`;
const exists = await Deno.stat(path).then(() => true, () => false);
if (!exists) {
  const chunks = function* (): Iterable<RowChunk> {
    for (let s = 0; s < n; s += 65536) {
      const m = Math.min(65536, n - s), x = new Float32Array(m * d), y = new Float64Array(m);
      for (let i = 0; i < m * d; i++) x[i] = Math.sin(i + s * d);
      for (let i = 0; i < m; i++) y[i] = (i + s) & 1;
      yield { numRows: m, x, y };
    }
  };
  await writeRowStore(path, chunks(), {
    numCols: d,
    storage: "f32",
    columnNames: Array.from({ length: d }, (_, j) => `c${j}`),
    responseName: "y",
  });
}
const mib = () => Math.round(Deno.memoryUsage().rss / 2 ** 20);
const before = mib();
const model = await ShardedGlmModel.create(path, { family: "logistic" }, {
  workers: 2,
  shardKind: kind,
});
const theta = new Float64Array(d).fill(0.01), grad = new Float64Array(d);
model.logLikelihood(theta, grad);
model.logLikelihood(theta, grad);
const after = mib();
model.close();
console.log(`${kind} n = ${n}: RSS ${before} → ${after} MiB (+${after - before})`);
