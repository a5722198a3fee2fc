/**
 * One full-data gradient pass (ℓ and ∇ℓ) of logistic regression with
 * n = 1e6 rows, d = 29, f32 storage: the in-memory GlmModel (one instance,
 * the calling thread; baseline) against ShardedGlmModel with 2 workers, rows
 * loaded into the workers' instances ("memory") or read from a row store file
 * at every pass ("stream"; the file is read once before timing, so it is in
 * the page cache). The store is written to a temporary file and removed at
 * the end.
 */
import { loadCore } from "../core/load.ts";
import { glmDataFromArrays } from "../data/dataset.ts";
import { writeRowStoreFromGlmData } from "../data/row_store_write.ts";
import { GlmModel } from "../models/glm.ts";
import { ShardedGlmModel } from "../models/sharded_glm.ts";
import { Rng } from "../random/rng.ts";

const N = 1_000_000, D = 29;
const arena = loadCore();
const rng = new Rng(7);
const x = new Float32Array(N * D), y = new Float64Array(N);
for (let i = 0; i < N; i++) {
  x[i * D] = 1;
  let eta = 0;
  for (let j = 1; j < D; j++) {
    x[i * D + j] = rng.normal();
    eta += 0.1 * x[i * D + j];
  }
  y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
}
const data = glmDataFromArrays(arena, x, y, { numCols: D, storage: "f32" });
const options = { family: "logistic" as const };
const model = new GlmModel(data, options);
const path = await Deno.makeTempFile({ suffix: ".rows" });
await writeRowStoreFromGlmData(path, data);
const memory = await ShardedGlmModel.create(path, options, { workers: 2, shardKind: "memory" });
const stream = await ShardedGlmModel.create(path, options, { workers: 2, shardKind: "stream" });
const theta = new Float64Array(D).fill(0.01), grad = new Float64Array(D);
stream.logLikelihood(theta, grad); // warm the page cache

Deno.bench({
  name: "gradient pass n = 1e6, d = 29, f32: GlmModel, one instance",
  group: "sharded",
  baseline: true,
  n: 20,
  fn() {
    model.logLikelihood(theta, grad);
  },
});
Deno.bench({
  name: "gradient pass n = 1e6, d = 29, f32: ShardedGlmModel memory × 2",
  group: "sharded",
  n: 20,
  fn() {
    memory.logLikelihood(theta, grad);
  },
});
Deno.bench({
  name: "gradient pass n = 1e6, d = 29, f32: ShardedGlmModel stream × 2 (page cache)",
  group: "sharded",
  n: 20,
  fn() {
    stream.logLikelihood(theta, grad);
  },
});

globalThis.addEventListener("unload", () => {
  memory.close();
  stream.close();
  Deno.removeSync(path);
});
