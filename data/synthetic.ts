/**
 * Seeded synthetic GLM data sets written straight into an arena, shaped like
 * the papers' data: HIGGS-shaped logistic regression (Dang et al. 2019, §6.5:
 * 29 covariates + intercept), Gaussian linear regression, and a
 * bankruptcy-shaped additive spline logistic model (§6.6: 81 columns = an
 * intercept and 10 B-spline columns for each of 8 covariates, ~1 % events).
 *
 * Rows are generated in blocks of a few thousand into a small staging buffer
 * and copied into the arena block by block (the views are re-derived for every
 * block), so memory use is the arena's n × d cells plus O(block) in JS, and
 * n = 10⁷ HIGGS-shaped rows (2.4 GB in f64, 1.2 GB in f32) fit in a 4 GiB
 * wasm32 memory.
 *
 * Randomness: `new Rng(seed)` is split into independent streams —
 * `stream(0)` draws the true coefficients (and per-period macro values),
 * `stream(1)` the training rows and `stream(2)` the held-out rows — so the
 * training data are bit-identical whether or not a test set is requested, and
 * the test set shares the training set's coefficients.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { Rng } from "../random/rng.ts";
import { bsplineBasis, quantileKnots } from "./bspline.ts";
import type { GlmData, Storage } from "./dataset.ts";

/** Name of the intercept column in generated data sets. */
export const INTERCEPT_NAME = "(Intercept)";

/** Options of {@link higgsShaped}. */
export interface HiggsShapedOptions {
  /** Number of training rows. */
  n: number;
  /** Seed (integer or string). */
  seed: number | string;
  /** Storage of X: "f64" (default) or "f32". */
  storage?: Storage;
  /** Number of held-out rows drawn with the same coefficients (default 0: no test set). */
  numTest?: number;
}

/** A generated GLM data set with its generating coefficients. */
export interface SyntheticGlm {
  /** The training data. */
  data: GlmData;
  /** Held-out rows with the same coefficients (only if `numTest` > 0). */
  test?: GlmData;
  /** The coefficients the responses were generated with (one per column). */
  trueCoefficients: Float64Array;
}

/** Options of {@link gaussianLinearRegression}. */
export interface GaussianLinearRegressionOptions {
  /** Number of training rows. */
  n: number;
  /** Number of columns of X, including the intercept column if `intercept`. */
  d: number;
  /** Residual standard deviation σ > 0. */
  sigma: number;
  /** Seed (integer or string). */
  seed: number | string;
  /** Make the first column all ones (default true). */
  intercept?: boolean;
  /** Storage of X: "f64" (default) or "f32". */
  storage?: Storage;
  /** Number of held-out rows drawn with the same coefficients (default 0). */
  numTest?: number;
}

/** Result of {@link gaussianLinearRegression}. */
export interface SyntheticGaussian extends SyntheticGlm {
  /** The residual standard deviation σ used. */
  sigma: number;
}

/** Options of {@link bankruptcyShaped}. */
export interface BankruptcyShapedOptions {
  /** Number of rows ("firm-years"). */
  n: number;
  /** Seed (integer or string). */
  seed: number | string;
  /** Storage of X: "f64" (default) or "f32". */
  storage?: Storage;
  /** Spline columns per covariate (default 10, giving 1 + 8·10 = 81 columns). */
  numBasis?: number;
  /**
   * Number of distinct periods over which the two macro covariates are
   * constant (default 40). With the paper's 18 years, 2 × 10 macro spline
   * columns would span at most 17 directions beyond the intercept and the
   * likelihood would be flat along the rest; 40 periods keep all 81 columns
   * identified.
   */
  numPeriods?: number;
  /** Target event rate (default 0.01); the intercept is calibrated to it. */
  eventRate?: number;
}

/** Result of {@link bankruptcyShaped}. */
export interface SyntheticBankruptcy {
  /** Intercept + numBasis centred B-spline columns per covariate. */
  data: GlmData;
  /** The raw covariates, row-major n × 8 (for plotting against one covariate). */
  covariates: Float64Array;
  /** Names of the 8 raw covariates (6 firm ratios, then 2 macro variables). */
  covariateNames: readonly string[];
  /** Period (0 … numPeriods − 1) of each row. */
  period: Int32Array;
  /** The calibrated intercept c of the true log-odds c + Σⱼ fⱼ(xⱼ). */
  trueIntercept: number;
  /**
   * The true additive effect fⱼ(v) of covariate j at value v.
   * @param j Covariate index 0 … 7.
   * @param v Covariate value.
   * @returns fⱼ(v).
   */
  trueEffect(j: number, v: number): number;
  /** The model's event probability Σᵢ pᵢ / n over the generated rows. */
  expectedEventRate: number;
  /** What is needed to rebuild the basis at new values (see {@link bsplineBasis}). */
  basis: {
    /** Per covariate, the knot vector. */
    knots: Float64Array[];
    /** Per covariate, the column means subtracted (`centre`). */
    centre: Float64Array[];
    /** Degree (3). */
    degree: number;
    /** Always true: the first B-spline of each covariate is dropped. */
    dropFirst: boolean;
  };
}

const _BLOCK_CELLS = 1 << 16; // staging buffer size in cells (512 KiB of f64)

function _checkCount(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min || v > 2 ** 31 - 1) {
    throw new RangeError(`${name} must be an integer in [${min}, 2^31 − 1], got ${v}`);
  }
}

function _checkStorage(storage: string): void {
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
}

/**
 * Allocate X and y for n rows and fill them block by block: `fillRow(row, i)`
 * writes row i's numCols cells into `row` and returns yᵢ.
 */
function _writeRows(
  arena: Arena,
  n: number,
  numCols: number,
  storage: Storage,
  columnNames: readonly string[],
  fillRow: (row: Float64Array, i: number) => number,
): GlmData {
  const cells = n * numCols;
  const xPtr = storage === "f64" ? arena.allocF64(cells) : arena.allocF32(cells);
  const yPtr = arena.allocF64(n);
  const blockRows = Math.max(1, Math.floor(_BLOCK_CELLS / numCols));
  const xs = new Float64Array(blockRows * numCols), ys = new Float64Array(blockRows);
  const width = storage === "f64" ? 8 : 4;
  for (let start = 0; start < n; start += blockRows) {
    const m = Math.min(blockRows, n - start);
    for (let r = 0; r < m; r++) {
      ys[r] = fillRow(xs.subarray(r * numCols, (r + 1) * numCols), start + r);
    }
    const src = xs.subarray(0, m * numCols), off = xPtr + start * numCols * width;
    if (storage === "f64") arena.f64(off, m * numCols).set(src);
    else arena.f32(off, m * numCols).set(src);
    arena.f64(yPtr + start * 8, m).set(ys.subarray(0, m));
  }
  return { arena, x: xPtr, y: yPtr, numRows: n, numCols, storage, columnNames };
}

function _sigmoid(eta: number): number {
  return eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta));
}

/**
 * HIGGS-shaped logistic regression: an intercept column then 29 independent
 * standard-normal covariates (30 columns), yᵢ ~ Bernoulli(σ(xᵢᵀβ)).
 *
 * The coefficients are drawn once from `stream(0)`: the intercept from
 * N(0, 0.1²) and the 29 slopes from N(0, 0.25²). The linear predictor then
 * has sd ≈ 0.25·√29 ≈ 1.35, so the event rate is close to 0.5 (within a few
 * percent; the real HIGGS rate is 0.53) and the signal is moderate: no
 * separation, a well-conditioned, near-Gaussian posterior whose sds shrink
 * like 1/√n, as with the real data.
 *
 * @param arena The arena to allocate X and y in.
 * @param options `n`, `seed`, `storage`, `numTest`.
 * @returns Training data, optional test data and the true coefficients.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "./synthetic.ts";
 * const arena = loadCore({ backend: "reference" });
 * const { data, trueCoefficients } = higgsShaped(arena, { n: 1000, seed: 1 });
 * assert.equal(data.numCols, 30);
 * assert.equal(trueCoefficients.length, 30);
 * ```
 */
export function higgsShaped(arena: Arena, options: HiggsShapedOptions): SyntheticGlm {
  const n = options.n, numTest = options.numTest ?? 0;
  _checkCount("n", n, 1);
  _checkCount("numTest", numTest, 0);
  const storage = options.storage ?? "f64";
  _checkStorage(storage);
  const d = 30;
  const root = new Rng(options.seed);
  const coefRng = root.stream(0);
  const beta = new Float64Array(d);
  beta[0] = 0.1 * coefRng.normal();
  for (let j = 1; j < d; j++) beta[j] = 0.25 * coefRng.normal();
  const names = [INTERCEPT_NAME, ...Array.from({ length: d - 1 }, (_, j) => `x${j + 1}`)];
  const generate = (rng: Rng, rows: number) =>
    _writeRows(arena, rows, d, storage, names, (row) => {
      row[0] = 1;
      let eta = beta[0];
      for (let j = 1; j < d; j++) {
        const v = rng.normal();
        row[j] = v;
        eta += beta[j] * v;
      }
      return rng.uniform() < _sigmoid(eta) ? 1 : 0;
    });
  const data = generate(root.stream(1), n);
  const result: SyntheticGlm = { data, trueCoefficients: beta };
  if (numTest > 0) result.test = generate(root.stream(2), numTest);
  return result;
}

/**
 * Gaussian linear regression: y = Xβ + σε with ε ~ N(0, 1), X an optional
 * intercept column followed by independent standard-normal covariates, and
 * true coefficients β ~ N(0, 1) drawn once from `stream(0)`.
 *
 * @param arena The arena to allocate X and y in.
 * @param options `n`, `d` (columns including the intercept), `sigma`, `seed`,
 *   `intercept` (default true), `storage`, `numTest`.
 * @returns Training data, optional test data, the true coefficients and σ.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { gaussianLinearRegression } from "./synthetic.ts";
 * const arena = loadCore({ backend: "reference" });
 * const { data, sigma } = gaussianLinearRegression(arena, { n: 100, d: 3, sigma: 0.5, seed: 2 });
 * assert.deepEqual(Array.from(data.columnNames), ["(Intercept)", "x1", "x2"]);
 * assert.equal(sigma, 0.5);
 * ```
 */
export function gaussianLinearRegression(
  arena: Arena,
  options: GaussianLinearRegressionOptions,
): SyntheticGaussian {
  const { n, d, sigma } = options;
  const numTest = options.numTest ?? 0;
  _checkCount("n", n, 1);
  _checkCount("d", d, 1);
  _checkCount("numTest", numTest, 0);
  if (!(sigma > 0) || !Number.isFinite(sigma)) {
    throw new RangeError(`sigma must be positive and finite, got ${sigma}`);
  }
  const storage = options.storage ?? "f64";
  _checkStorage(storage);
  const intercept = options.intercept ?? true;
  const root = new Rng(options.seed);
  const beta = root.stream(0).fillNormal(new Float64Array(d));
  const first = intercept ? 1 : 0;
  const names = intercept
    ? [INTERCEPT_NAME, ...Array.from({ length: d - 1 }, (_, j) => `x${j + 1}`)]
    : Array.from({ length: d }, (_, j) => `x${j + 1}`);
  const generate = (rng: Rng, rows: number) =>
    _writeRows(arena, rows, d, storage, names, (row) => {
      let eta = 0;
      if (intercept) {
        row[0] = 1;
        eta = beta[0];
      }
      for (let j = first; j < d; j++) {
        const v = rng.normal();
        row[j] = v;
        eta += beta[j] * v;
      }
      return eta + sigma * rng.normal();
    });
  const data = generate(root.stream(1), n);
  const result: SyntheticGaussian = { data, trueCoefficients: beta, sigma };
  if (numTest > 0) result.test = generate(root.stream(2), numTest);
  return result;
}

const _BANKRUPTCY_NAMES = [
  "earningsRatio",
  "interestCoverage",
  "cashRatio",
  "debtRatio",
  "size",
  "turnover",
  "gdpGrowth",
  "interestRate",
] as const;

/** The true additive effects fⱼ of the bankruptcy-shaped model (smooth, nonlinear). */
function _bankruptcyEffect(j: number, v: number): number {
  switch (j) {
    case 0: // losses are risky; the risk saturates, with a twist for very high earnings
      return -1.5 * Math.tanh(10 * (v - 0.02)) + 3 * Math.max(v - 0.3, 0) ** 2;
    case 1: // low interest coverage is risky, decaying slowly
      return 1.2 / (1 + v) - 0.3 * Math.log1p(v);
    case 2: // cash is protective, with diminishing returns
      return -2.5 * Math.sqrt(v);
    case 3: // debt beyond ~80 % of assets raises the risk sharply (softplus)
      return 0.5 * Math.log1p(Math.exp(6 * (v - 0.8)));
    case 4: // small firms (log assets near 7) are riskier
      return 1.5 * Math.exp(-(v - 7)) - 0.3;
    case 5: // unusual turnover either way is risky (bounded U shape)
      return (0.6 * (v - 1.2) ** 2) / (1 + (v - 1.2) ** 2);
    case 6: // recessions are worse than booms are good
      return -8 * v + 150 * Math.min(v, 0) ** 2;
    case 7: // higher rates raise the risk
      return 10 * (v - 0.06);
    default:
      throw new RangeError(`covariate index must be an integer in [0, 7], got ${j}`);
  }
}

/**
 * A bankruptcy-shaped logistic regression: 8 covariates — 6 firm-specific
 * financial ratios with skewed or heavy-tailed distributions and 2 macro
 * variables constant within periods — a nonlinear additive true log-odds
 * c + Σⱼ fⱼ(xⱼ) with c calibrated for a low event rate (~1 %), and the
 * design matrix of the additive spline model: an intercept followed, per
 * covariate, by `numBasis` cubic B-splines with knots at quantiles, the first
 * B-spline dropped and the columns centred (see the module doc of
 * `bspline.ts`): 1 + 8·10 = 81 columns by default, as in Dang et al. (2019,
 * §6.6). The raw covariates are kept for plotting predicted probabilities
 * against one covariate (their Figure 6).
 *
 * Covariates: earningsRatio = 0.05 + 0.08·t₄; interestCoverage =
 * exp(N(1, 1.2²)); cashRatio = G₁/(G₁ + G₂) with G₁ ~ Gamma(0.8), G₂ ~
 * Gamma(6); debtRatio = exp(N(log 0.6, 0.35²)); size = 7 + 1.5·Gamma(2);
 * turnover = 0.6·Gamma(2); per period gdpGrowth ~ N(0.02, 0.025²) and
 * interestRate ~ U(0.02, 0.10). The intercept is found by bisection so that
 * the mean event probability over the first min(n, 200 000) rows equals
 * `eventRate`.
 *
 * @param arena The arena to allocate X and y in.
 * @param options `n`, `seed`, `storage`, `numBasis`, `numPeriods`, `eventRate`.
 * @returns The spline design, the raw covariates and the true model.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { bankruptcyShaped } from "./synthetic.ts";
 * const arena = loadCore({ backend: "reference" });
 * const { data, covariates } = bankruptcyShaped(arena, { n: 2000, seed: 3 });
 * assert.equal(data.numCols, 81);
 * assert.equal(covariates.length, 16000);
 * ```
 */
export function bankruptcyShaped(
  arena: Arena,
  options: BankruptcyShapedOptions,
): SyntheticBankruptcy {
  const n = options.n;
  _checkCount("n", n, 2);
  const numBasis = options.numBasis ?? 10;
  _checkCount("numBasis", numBasis, 3);
  const numPeriods = options.numPeriods ?? 40;
  _checkCount("numPeriods", numPeriods, 2);
  const targetRate = options.eventRate ?? 0.01;
  if (!(targetRate > 0 && targetRate < 1)) {
    throw new RangeError(`eventRate must be in (0, 1), got ${targetRate}`);
  }
  const storage = options.storage ?? "f64";
  _checkStorage(storage);
  const numCov = _BANKRUPTCY_NAMES.length;
  const root = new Rng(options.seed);
  // Macro values per period.
  const macroRng = root.stream(0);
  const gdp = new Float64Array(numPeriods), rate = new Float64Array(numPeriods);
  for (let t = 0; t < numPeriods; t++) {
    gdp[t] = 0.02 + 0.025 * macroRng.normal();
    rate[t] = 0.02 + 0.08 * macroRng.uniform();
  }
  // Raw covariates.
  const rng = root.stream(1);
  const cov = new Float64Array(n * numCov);
  const period = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * numCov;
    const chi4 = 2 * rng.gamma(2); // χ²₄
    cov[o] = 0.05 + 0.08 * rng.normal() / Math.sqrt(chi4 / 4);
    cov[o + 1] = Math.exp(1 + 1.2 * rng.normal());
    const g1 = rng.gamma(0.8), g2 = rng.gamma(6);
    cov[o + 2] = g1 / (g1 + g2);
    cov[o + 3] = Math.exp(Math.log(0.6) + 0.35 * rng.normal());
    cov[o + 4] = 7 + 1.5 * rng.gamma(2);
    cov[o + 5] = 0.6 * rng.gamma(2);
    const t = rng.int(numPeriods);
    period[i] = t;
    cov[o + 6] = gdp[t];
    cov[o + 7] = rate[t];
  }
  // s_i = Σⱼ fⱼ(x_ij), then calibrate the intercept on a pilot.
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let acc = 0;
    for (let j = 0; j < numCov; j++) acc += _bankruptcyEffect(j, cov[i * numCov + j]);
    s[i] = acc;
  }
  const pilot = Math.min(n, 200_000);
  let lo = -30, hi = 30;
  for (let it = 0; it < 100; it++) {
    const mid = 0.5 * (lo + hi);
    let mean = 0;
    for (let i = 0; i < pilot; i++) mean += _sigmoid(mid + s[i]);
    if (mean / pilot < targetRate) lo = mid;
    else hi = mid;
  }
  const c = 0.5 * (lo + hi);
  const y = new Float64Array(n);
  let expected = 0;
  for (let i = 0; i < n; i++) {
    const p = _sigmoid(c + s[i]);
    expected += p;
    y[i] = rng.uniform() < p ? 1 : 0;
  }
  // Spline bases: quantile knots over all rows, column means over all rows.
  const degree = 3;
  const column = new Float64Array(n);
  const knots: Float64Array[] = [], centre: Float64Array[] = [];
  const chunk = 1 << 14;
  const buf = new Float64Array(chunk);
  for (let j = 0; j < numCov; j++) {
    for (let i = 0; i < n; i++) column[i] = cov[i * numCov + j];
    const kj = quantileKnots(column, { numSplines: numBasis + 1, degree });
    const means = new Float64Array(numBasis);
    for (let start = 0; start < n; start += chunk) {
      const m = Math.min(chunk, n - start);
      const b = bsplineBasis(column.subarray(start, start + m), {
        knots: kj,
        degree,
        dropFirst: true,
      });
      for (let r = 0; r < m; r++) {
        for (let k = 0; k < numBasis; k++) means[k] += b[r * numBasis + k];
      }
    }
    for (let k = 0; k < numBasis; k++) means[k] /= n;
    knots.push(kj);
    centre.push(means);
  }
  // Write X block by block: basis values for a block of rows, per covariate.
  const numCols = 1 + numCov * numBasis;
  const names = [INTERCEPT_NAME];
  for (const name of _BANKRUPTCY_NAMES) {
    for (let k = 1; k <= numBasis; k++) names.push(`${name}_bs${k}`);
  }
  const blockRows = Math.max(1, Math.floor(_BLOCK_CELLS / numCols));
  let blockStart = -1;
  const blockBasis: Float64Array[] = new Array(numCov);
  const data = _writeRows(arena, n, numCols, storage, names, (row, i) => {
    if (blockStart < 0 || i >= blockStart + blockRows) {
      blockStart = i;
      const m = Math.min(blockRows, n - i);
      for (let j = 0; j < numCov; j++) {
        for (let r = 0; r < m; r++) buf[r] = cov[(i + r) * numCov + j];
        blockBasis[j] = bsplineBasis(buf.subarray(0, m), {
          knots: knots[j],
          degree,
          dropFirst: true,
          centre: centre[j],
        });
      }
    }
    const r = i - blockStart;
    row[0] = 1;
    for (let j = 0; j < numCov; j++) {
      const b = blockBasis[j];
      for (let k = 0; k < numBasis; k++) row[1 + j * numBasis + k] = b[r * numBasis + k];
    }
    return y[i];
  });
  return {
    data,
    covariates: cov,
    covariateNames: _BANKRUPTCY_NAMES,
    period,
    trueIntercept: c,
    trueEffect: _bankruptcyEffect,
    expectedEventRate: expected / n,
    basis: { knots, centre, degree, dropFirst: true },
  };
}
