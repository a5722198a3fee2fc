/**
 * HIGGS-shaped logistic rows (1 + 29 columns) generated in chunks, so that
 * memory stays at one chunk whatever n: the rows of `higgsShaped`
 * (data/synthetic.ts) with the same seed, for files larger than memory.
 *
 * @module
 */
import { Rng } from "../random/rng.ts";
import { INTERCEPT_NAME } from "../data/synthetic.ts";
import type { Storage } from "../data/dataset.ts";
import type { ParquetRowChunk } from "../data/parquet.ts";

/** Options of {@link higgsShapedChunks}. */
export interface TallDataOptions {
  /** Number of rows. */
  n: number;
  /** Seed (as `higgsShaped`). */
  seed: number | string;
  /** Rows per chunk (default 100 000). */
  chunkRows?: number;
  /** Storage of X (default "f32"). */
  storage?: Storage;
}

/** Number of columns of X (intercept + 29 covariates). */
export const TALL_NUM_COLS = 30;

/** Column names of X: "(Intercept)", x1 … x29. */
export const TALL_COLUMN_NAMES: readonly string[] = [
  INTERCEPT_NAME,
  ...Array.from({ length: TALL_NUM_COLS - 1 }, (_, j) => `x${j + 1}`),
];

/**
 * HIGGS-shaped logistic rows in chunks: the same rows as `higgsShaped` with
 * the same seed (β from stream 0, rows from stream 1), generated one chunk
 * at a time so memory stays at one chunk whatever n.
 *
 * @param options `n`, `seed`, `chunkRows`, `storage`.
 * @returns The chunks (X row-major with the intercept first, y ∈ {0, 1}).
 */
export function* higgsShapedChunks(options: TallDataOptions): Generator<ParquetRowChunk> {
  const { n, seed } = options;
  const chunkRows = options.chunkRows ?? 100_000, storage = options.storage ?? "f32";
  const d = TALL_NUM_COLS;
  const root = new Rng(seed);
  const coefRng = root.stream(0);
  const beta = new Float64Array(d);
  beta[0] = 0.1 * coefRng.normal();
  for (let j = 1; j < d; j++) beta[j] = 0.25 * coefRng.normal();
  const rng = root.stream(1);
  for (let start = 0; start < n; start += chunkRows) {
    const m = Math.min(chunkRows, n - start);
    const x = storage === "f64" ? new Float64Array(m * d) : new Float32Array(m * d);
    const y = new Float64Array(m);
    for (let i = 0, o = 0; i < m; i++, o += d) {
      x[o] = 1;
      let eta = beta[0];
      for (let j = 1; j < d; j++) {
        const v = rng.normal();
        x[o + j] = v;
        eta += beta[j] * v;
      }
      y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    }
    yield { numRows: m, x, y };
  }
}
