/**
 * HIGGS-like data for the HMC-ECS experiments: n rows generated from a model
 * fitted to 5 000 real rows of the UCI HIGGS file
 * (`tests/data/higgs/higgs_sample.csv`, provenance and licence beside it).
 *
 * ```
 *  sample (5 000 × 28, label)
 *    ├─ standardise each column (sample mean 0, sd 1), as the paper's design
 *    ├─ normal scores zⱼ = Φ⁻¹(mid-rank / (N + 1)) → correlation R, R = LLᵀ
 *    ├─ per column: its sorted standardised values (the empirical marginal)
 *    └─ logistic regression of the label on [1, x] (Newton, prior N(0, 10²)) → β
 *  generate a row: g ~ N(0, I), z = Lg, uⱼ = Φ(zⱼ), xⱼ = F̂ⱼ⁻¹(uⱼ)
 *                 (interpolated for continuous columns, a step for the b-tags),
 *                 y ~ Bernoulli(σ([1, x]ᵀβ))
 * ```
 *
 * A Gaussian copula keeps what makes the real rows hard for an
 * unpreconditioned sampler: the correlation between the derived masses and
 * the momenta they are computed from, the skewed heavy-tailed momenta and
 * masses, and the b-tag columns with three or four values. The per-row Fisher
 * information of the generated rows has the sample's condition number (≈ 10²),
 * where independent N(0, 1) covariates give ≈ 2.
 *
 * References: Baldi, Sadowski & Whiteson (2014), Nature Communications 5,
 * 4308 (the data); Dang et al. (2019), §6.5 (its use).
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { type GlmData, glmDataFromArrays, type Storage } from "../data/dataset.ts";
import type { SyntheticGlm } from "../data/synthetic.ts";
import { cholesky } from "../math/linalg.ts";
import { Rng } from "../random/rng.ts";

/** The sample's file, relative to this module. */
export const HIGGS_SAMPLE_URL: URL = new URL(
  "../tests/data/higgs/higgs_sample.csv",
  import.meta.url,
);

/** Real HIGGS rows: 28 feature columns and the 0/1 label. */
export interface HiggsSample {
  /** Feature names in file order (lepton_pT … m_wwbb). */
  readonly names: readonly string[];
  /** Feature columns as stored (not standardised), one array per feature. */
  readonly columns: readonly Float64Array[];
  /** The label (1 signal, 0 background). */
  readonly label: Float64Array;
}

/** A generator fitted by {@link fitHiggsLike}. */
export interface HiggsLikeModel {
  /** Feature names. */
  readonly names: readonly string[];
  /** Sample mean and sd of every feature (the standardisation). */
  readonly mean: Float64Array;
  /** Sample sd of every feature. */
  readonly sd: Float64Array;
  /** Sorted standardised values of every feature (its empirical quantiles). */
  readonly sorted: readonly Float64Array[];
  /** Whether a feature has few distinct values (then its quantile is a step). */
  readonly discrete: readonly boolean[];
  /** Cholesky factor (row-major, p × p) of the normal-score correlation. */
  readonly choleskyFactor: Float64Array;
  /** Normal-score correlation (row-major, p × p). */
  readonly correlation: Float64Array;
  /** Logistic coefficients: intercept, then one per standardised feature. */
  readonly coefficients: Float64Array;
}

/**
 * Read the committed HIGGS sample.
 *
 * @param url The CSV (default {@link HIGGS_SAMPLE_URL}): a header line of 28
 *   feature names and `label`, then numeric rows.
 * @returns The columns and the label.
 * @throws Error naming the line and column of a malformed cell.
 */
export function loadHiggsSample(url: URL = HIGGS_SAMPLE_URL): HiggsSample {
  const text = Deno.readTextFileSync(url);
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = lines[0].split(",").map((s) => s.trim());
  const labelAt = header.indexOf("label");
  if (labelAt < 0) throw new Error(`${url.pathname}: no "label" column in the header`);
  const names = header.filter((_, j) => j !== labelAt);
  const n = lines.length - 1;
  const columns = names.map(() => new Float64Array(n));
  const label = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const cells = lines[i + 1].split(",");
    if (cells.length !== header.length) {
      throw new Error(
        `${url.pathname} line ${i + 2}: ${cells.length} cells, expected ${header.length}`,
      );
    }
    let k = 0;
    for (let j = 0; j < cells.length; j++) {
      const v = Number(cells[j]);
      if (!Number.isFinite(v)) {
        throw new Error(
          `${url.pathname} line ${i + 2} column ${header[j]}: not a number, got ${
            JSON.stringify(cells[j])
          }`,
        );
      }
      if (j === labelAt) label[i] = v;
      else columns[k++][i] = v;
    }
  }
  return { names, columns, label };
}

/** Standard normal cdf (Abramowitz–Stegun 7.1.26-grade erfc via a rational Chebyshev fit). */
export function normalCdf(z: number): number {
  // erfc(x) by the Numerical Recipes rational approximation (|rel. error| < 1.2e-7).
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc = t *
    Math.exp(
      -x * x - 1.26551223 +
        t * (1.00002368 +
            t * (0.37409196 +
                t * (0.09678418 +
                    t * (-0.18628806 +
                        t * (0.27886807 +
                            t *
                              (-1.13520398 +
                                t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return z >= 0 ? 1 - 0.5 * erfc : 0.5 * erfc;
}

/** Standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, got ${p}`);
  const a = [
    -39.69683028665376,
    220.9460984245205,
    -275.9285104469687,
    138.357751867269,
    -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406,
    161.5858368580409,
    -155.6989798598866,
    66.80131188771972,
    -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293,
    -0.3223964580411365,
    -2.400758277161838,
    -2.549732539343734,
    4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo || p > 1 - lo) {
    const q = Math.sqrt(-2 * Math.log(p < lo ? p : 1 - p));
    const v = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < lo ? v : -v;
  }
  const q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

function _sigmoid(eta: number): number {
  return eta >= 0 ? 1 / (1 + Math.exp(-eta)) : Math.exp(eta) / (1 + Math.exp(eta));
}

/** Mid-ranks (1-based; ties get their mean rank). */
function _midRanks(x: Float64Array): Float64Array {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => x[i] - x[j]);
  const ranks = new Float64Array(n);
  for (let s = 0; s < n;) {
    let e = s;
    while (e + 1 < n && x[order[e + 1]] === x[order[s]]) e++;
    const r = (s + e) / 2 + 1;
    for (let k = s; k <= e; k++) ranks[order[k]] = r;
    s = e + 1;
  }
  return ranks;
}

/**
 * Logistic regression by Newton's method with a N(0, priorSd²) prior on every
 * coefficient: the MAP of y on [1, x].
 */
function _logisticMap(
  cols: readonly Float64Array[],
  y: Float64Array,
  priorSd: number,
): Float64Array {
  const n = y.length, p = cols.length + 1;
  const beta = new Float64Array(p);
  const row = new Float64Array(p);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Float64Array(p), h = new Float64Array(p * p);
    for (let i = 0; i < n; i++) {
      row[0] = 1;
      for (let j = 1; j < p; j++) row[j] = cols[j - 1][i];
      let eta = 0;
      for (let j = 0; j < p; j++) eta += row[j] * beta[j];
      const mu = _sigmoid(eta), w = mu * (1 - mu);
      for (let j = 0; j < p; j++) {
        g[j] += (y[i] - mu) * row[j];
        for (let k = 0; k <= j; k++) h[j * p + k] += w * row[j] * row[k];
      }
    }
    for (let j = 0; j < p; j++) {
      g[j] -= beta[j] / priorSd ** 2;
      h[j * p + j] += 1 / priorSd ** 2;
      for (let k = 0; k < j; k++) h[k * p + j] = h[j * p + k];
    }
    const step = _solveSpd(h, g);
    let change = 0;
    for (let j = 0; j < p; j++) {
      beta[j] += step[j];
      change = Math.max(change, Math.abs(step[j]));
    }
    if (change < 1e-10) break;
  }
  return beta;
}

function _solveSpd(a: Float64Array, b: Float64Array): Float64Array {
  const p = b.length;
  const l = cholesky(a);
  const z = new Float64Array(p);
  for (let i = 0; i < p; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * p + k] * z[k];
    z[i] = s / l[i * p + i];
  }
  for (let i = p - 1; i >= 0; i--) {
    let s = z[i];
    for (let k = i + 1; k < p; k++) s -= l[k * p + i] * z[k];
    z[i] = s / l[i * p + i];
  }
  return z;
}

/**
 * Fit the HIGGS-like generator to real rows: standardisation, empirical
 * marginals, normal-score correlation, logistic coefficients.
 *
 * @param sample Real rows (default: the committed sample).
 * @returns The fitted generator.
 */
export function fitHiggsLike(sample: HiggsSample = loadHiggsSample()): HiggsLikeModel {
  const p = sample.columns.length, n = sample.label.length;
  const mean = new Float64Array(p), sd = new Float64Array(p);
  const std = sample.columns.map((c, j) => {
    let s = 0;
    for (let i = 0; i < n; i++) s += c[i];
    mean[j] = s / n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (c[i] - mean[j]) ** 2;
    sd[j] = Math.sqrt(ss / (n - 1));
    if (!(sd[j] > 0)) throw new Error(`HIGGS sample column ${sample.names[j]} is constant`);
    return c.map((v) => (v - mean[j]) / sd[j]);
  });
  const sorted = std.map((c) => Float64Array.from(c).sort());
  const discrete = sorted.map((s) => {
    let distinct = 1;
    for (let i = 1; i < s.length && distinct <= 20; i++) if (s[i] !== s[i - 1]) distinct++;
    return distinct <= 20;
  });
  const scores = std.map((c) => _midRanks(c).map((r) => normalQuantile(r / (n + 1))));
  const correlation = new Float64Array(p * p);
  const norms = scores.map((z) => Math.sqrt(z.reduce((a, v) => a + v * v, 0)));
  for (let j = 0; j < p; j++) {
    for (let k = 0; k <= j; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += scores[j][i] * scores[k][i];
      correlation[j * p + k] = correlation[k * p + j] = s / (norms[j] * norms[k]);
    }
  }
  const jittered = correlation.map((v, i) => (i % (p + 1) === 0 ? v + 1e-9 : v));
  const choleskyFactor = cholesky(jittered);
  const coefficients = _logisticMap(std, sample.label, 10);
  return {
    names: sample.names,
    mean,
    sd,
    sorted,
    discrete,
    choleskyFactor,
    correlation,
    coefficients,
  };
}

/** Options of {@link higgsLike}. */
export interface HiggsLikeOptions {
  /** Training rows. */
  n: number;
  /** Seed of the rows (stream 1: training, stream 2: test). */
  seed: number | string;
  /** Held-out rows (default 0). */
  numTest?: number;
  /** Storage of X (default "f64"). */
  storage?: Storage;
  /** A fitted generator (default: fitted to the committed sample, once). */
  model?: HiggsLikeModel;
}

let _cached: HiggsLikeModel | undefined;

/** The generator fitted to the committed sample (fitted once per process). */
export function higgsLikeModel(): HiggsLikeModel {
  _cached ??= fitHiggsLike();
  return _cached;
}

function _quantile(sorted: Float64Array, discrete: boolean, u: number): number {
  const n = sorted.length;
  if (discrete) return sorted[Math.min(n - 1, Math.floor(u * n))];
  const pos = u * (n - 1), k = Math.floor(pos);
  if (k >= n - 1) return sorted[n - 1];
  const f = pos - k;
  return sorted[k] + f * (sorted[k + 1] - sorted[k]);
}

function _generate(
  arena: Arena,
  model: HiggsLikeModel,
  rng: Rng,
  rows: number,
  storage: Storage,
): GlmData {
  const p = model.names.length, d = p + 1;
  const x = storage === "f64" ? new Float64Array(rows * d) : new Float32Array(rows * d);
  const y = new Float64Array(rows);
  const g = new Float64Array(p);
  const l = model.choleskyFactor, beta = model.coefficients;
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < p; j++) g[j] = rng.normal();
    const o = r * d;
    x[o] = 1;
    let eta = beta[0];
    for (let j = 0; j < p; j++) {
      let z = 0;
      for (let k = 0; k <= j; k++) z += l[j * p + k] * g[k];
      const v = _quantile(model.sorted[j], model.discrete[j], normalCdf(z));
      x[o + 1 + j] = v;
      eta += beta[j + 1] * v;
    }
    y[r] = rng.uniform() < _sigmoid(eta) ? 1 : 0;
  }
  return glmDataFromArrays(arena, x, y, {
    numCols: d,
    storage,
    columnNames: ["(Intercept)", ...model.names],
  });
}

/**
 * HIGGS-like logistic regression data: an intercept column and the 28
 * standardised HIGGS features drawn from the copula fitted to real rows, the
 * label from the logistic model fitted to them.
 *
 * @param arena The arena to allocate X and y in.
 * @param options `n`, `seed`, `numTest`, `storage`, `model`.
 * @returns Training data, optional test data and the generating coefficients.
 * @throws RangeError for a non-integer or non-positive `n`, a negative `numTest`.
 * @example
 * ```ts ignore
 * import { loadCore } from "../core/load.ts";
 * import { higgsLike } from "./higgs_like.ts";
 * const { data } = higgsLike(loadCore(), { n: 1000, seed: 1 });
 * ```
 */
export function higgsLike(arena: Arena, options: HiggsLikeOptions): SyntheticGlm {
  const { n } = options, numTest = options.numTest ?? 0;
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be an integer ≥ 1, got ${n}`);
  if (!Number.isInteger(numTest) || numTest < 0) {
    throw new RangeError(`numTest must be an integer ≥ 0, got ${numTest}`);
  }
  const model = options.model ?? higgsLikeModel();
  const storage = options.storage ?? "f64";
  const root = new Rng(options.seed);
  const data = _generate(arena, model, root.stream(1), n, storage);
  const out: SyntheticGlm = { data, trueCoefficients: Float64Array.from(model.coefficients) };
  if (numTest > 0) out.test = _generate(arena, model, root.stream(2), numTest, storage);
  return out;
}
