/**
 * Posterior predictive checks of a {@link GlmModel}: replicated responses
 * y_rep simulated from the model at a thinned set of posterior draws, test
 * statistics with posterior predictive p-values, and the data of three
 * figures (density overlay, calibration by decile, rootogram); their
 * Vega-Lite specifications and the text table are in ppc_report.ts.
 *
 * ```
 *  family              y_rep,i at draw θ = (β, τ, ω), ηᵢ = xᵢᵀβ (+ offsetᵢ)
 *  logistic            Bernoulli(logit⁻¹ ηᵢ)
 *  binomial            Binomial(Nᵢ, logit⁻¹ ηᵢ)
 *  poisson             Poisson(e^ηᵢ)
 *  negative-binomial   Poisson(λ), λ ~ Gamma(shape φ, scale μᵢ/φ), μᵢ = e^ηᵢ, φ = e^τ
 *  gaussian            N(ηᵢ, σ²), σ known
 *  gaussian-scale      N(ηᵢ, σ²), σ = e^τ
 *  student-t           ηᵢ + σ·t_ν, σ = e^τ, ν fixed or 1 + e^ω
 * ```
 *
 * Rows: all n rows when n ≤ `maxRows` (default 10⁵), otherwise a uniform
 * random subset of `maxRows` rows drawn without replacement from `seed`; the
 * result says which (`rows`). Draws: `numDraws` (default 200) draws taken
 * evenly spaced from the draws of all chains pooled in order.
 *
 * p-values: for a statistic T, p = P(T(y_rep) ≥ T(y)) estimated over the
 * draws with ties counted half, p = (#{T_rep > T} + ½ #{T_rep = T}) / S
 * (the mid-p value, so that discrete statistics such as max or a proportion
 * of zeros are not biased towards 1); a value near 0 or 1 says the model
 * does not reproduce T. The two-sided value is 2 min(p, 1 − p).
 *
 * References: Gelman, Meng & Stern (1996) "Posterior predictive assessment
 * of model fitness via realized discrepancies", Statistica Sinica 6;
 * Kleiber & Zeileis (2016) "Visualizing count data regressions using
 * rootograms", The American Statistician 70(3).
 *
 * @module
 */
import { dataViews } from "../core/row_buffer.ts";
import { kde } from "../diagnostics/kde.ts";
import { Rng } from "../random/rng.ts";
import type { GlmModel, GlmModelFamily } from "./glm.ts";

/** Options of {@link posteriorPredictiveCheck}. */
export interface PpcOptions {
  /** Number of draws used, evenly spaced over the pooled draws (default 200, at most all). */
  numDraws?: number;
  /** Largest number of rows checked: above it a random subset of this size (default 100 000). */
  maxRows?: number;
  /** Seed of the row subset and of the simulation (default 1). */
  seed?: number;
  /**
   * Names of the draws' parameters in the order given; when set they must
   * hold every name of `model.parameterNames` (reordered to the model's order;
   * extra names are ignored). Default: the model's own names and order.
   */
  parameterNames?: readonly string[];
  /** Largest count K of the rootogram (default: the largest observed count, at most 50). */
  maxCount?: number;
  /** Number of replicated data sets drawn in the density overlay (default 50). */
  numOverlay?: number;
}

/** A test statistic with its posterior predictive p-value. */
export interface PpcStatistic {
  /** "mean", "sd", "zeros" (proportion of y = 0), "ones" (proportion of y = 1) or "max". */
  name: string;
  /** T(y) on the observed responses. */
  observed: number;
  /** Mean of T(y_rep) over the draws. */
  replicatedMean: number;
  /** 5 % and 95 % quantiles of T(y_rep). */
  replicatedQ5: number;
  /** 95 % quantile of T(y_rep). */
  replicatedQ95: number;
  /** P(T(y_rep) ≥ T(y)), ties counted half. */
  pValue: number;
  /** 2 min(p, 1 − p). */
  pValueTwoSided: number;
}

/** One decile group of the calibration check (binary and binomial responses). */
export interface CalibrationBin {
  /** 1 … 10, by increasing fitted probability. */
  decile: number;
  /** Rows in the group. */
  numRows: number;
  /** Mean fitted probability (posterior mean of logit⁻¹ η, weighted by trials). */
  predicted: number;
  /** Observed proportion of successes (Σ y / Σ N). */
  observed: number;
}

/** One count of the rootogram (count responses). */
export interface RootogramBin {
  /** The count k. */
  count: number;
  /** Rows with y = k. */
  observed: number;
  /** Mean over draws of the number of rows with y_rep = k. */
  expected: number;
}

/** Density overlay data (continuous responses). */
export interface DensityOverlay {
  /** Common grid. */
  x: Float64Array;
  /** KDE of y on the grid. */
  observed: Float64Array;
  /** KDE of each of the overlaid y_rep on the grid. */
  replicated: Float64Array[];
}

/** What {@link posteriorPredictiveCheck} returns. */
export interface PpcResult {
  /** The model's family. */
  family: GlmModelFamily;
  /** Draws used. */
  numDraws: number;
  /** Rows checked (all rows, or the random subset). */
  numRows: number;
  /** Rows of the data set. */
  numRowsTotal: number;
  /** The checked rows (0-based, sorted), or null when all rows were checked. */
  rows: Int32Array | null;
  /** The statistics, in the order mean, sd, [zeros, ones,] max. */
  statistics: PpcStatistic[];
  /** Binary and binomial responses: calibration by decile of fitted probability. */
  calibration: CalibrationBin[] | null;
  /** Count responses (poisson, negative-binomial, binomial): rootogram data. */
  rootogram: RootogramBin[] | null;
  /** Continuous responses (gaussian, gaussian-scale, student-t): density overlay. */
  density: DensityOverlay | null;
}

const _COUNT = new Set<GlmModelFamily>(["poisson", "negative-binomial", "binomial"]);
const _BINARY = new Set<GlmModelFamily>(["logistic", "binomial"]);

function _positiveInt(v: number | undefined, def: number, what: string): number {
  if (v === undefined) return def;
  if (!Number.isInteger(v) || v < 1) {
    throw new RangeError(`${what} must be a positive integer, got ${v}`);
  }
  return v;
}

/**
 * A Binomial(n, p) draw, exact: Bernoulli sums for n ≤ 64, otherwise the
 * recursion on the median order statistic of n uniforms (a Beta draw from
 * two gamma draws; Devroye 1986, X.4).
 */
function _binomial(rng: Rng, n: number, p: number): number {
  let add = 0;
  for (;;) {
    if (p <= 0 || n === 0) return add;
    if (p >= 1) return add + n;
    if (n <= 64) {
      let k = 0;
      for (let i = 0; i < n; i++) if (rng.uniform() < p) k++;
      return add + k;
    }
    const j = Math.floor((n + 1) / 2);
    const g1 = rng.gamma(j), g2 = rng.gamma(n - j + 1);
    const v = g1 / (g1 + g2); // the j-th smallest of n uniforms
    if (v < p) {
      add += j;
      n -= j;
      p = (p - v) / (1 - v);
    } else {
      n = j - 1;
      p = p / v;
    }
  }
}

/** Posterior draws as S parameter vectors in the model's order. */
function _pooledDraws(
  model: GlmModel,
  draws: readonly (readonly ArrayLike<number>[])[],
  names: readonly string[] | undefined,
): ArrayLike<number>[][] {
  const want = model.parameterNames;
  const have = names ?? want;
  const missing = want.filter((n) => !have.includes(n));
  if (missing.length > 0) {
    throw new RangeError(
      `the draws lack the model's parameter${missing.length > 1 ? "s" : ""} ${
        missing.map((m) => JSON.stringify(m)).join(", ")
      } (draws have ${have.map((m) => JSON.stringify(m)).join(", ")})`,
    );
  }
  const index = want.map((n) => have.indexOf(n));
  if (!Array.isArray(draws) || draws.length === 0) {
    throw new RangeError("draws must hold at least one chain (draws[chain][parameter])");
  }
  return draws.map((chain, c) => {
    if (!Array.isArray(chain) || chain.length < have.length) {
      throw new RangeError(
        `draws[${c}] must hold ${have.length} parameter arrays, got ${
          Array.isArray(chain) ? chain.length : typeof chain
        }`,
      );
    }
    return index.map((k) => chain[k]);
  });
}

/**
 * Simulate replicated responses and compute the checks.
 *
 * @param model The fitted model (its data, family, offset or trials).
 * @param draws `draws[chain][parameter]`, as `sample` returns and
 *   `parseDrawsCsv` reads (in `options.parameterNames` order if given).
 * @param options Draws, rows, seed, names, rootogram and overlay sizes.
 * @returns Statistics with p-values and the figure data of the family.
 * @throws {RangeError} When the draws lack a parameter of the model (naming
 *   it), hold a non-finite value, or an option is out of range.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * import { posteriorPredictiveCheck } from "./ppc.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 1, 1, 1], [0, 2, 1, 3], { numCols: 1 });
 * const model = new GlmModel(data, { family: "poisson" });
 * const r = posteriorPredictiveCheck(model, [[new Float64Array([0.3, 0.4, 0.5])]]);
 * if (r.statistics[0].name !== "mean" || r.rootogram === null) throw new Error();
 * ```
 */
export function posteriorPredictiveCheck(
  model: GlmModel,
  draws: readonly (readonly ArrayLike<number>[])[],
  options: PpcOptions = {},
): PpcResult {
  const family = model.family;
  const d = model.numCols;
  const chains = _pooledDraws(model, draws, options.parameterNames);
  const total = chains.reduce((s, ch) => s + (ch[0]?.length ?? 0), 0);
  if (total === 0) throw new RangeError("draws hold no draw");
  const numDraws = Math.min(_positiveInt(options.numDraws, 200, "options.numDraws"), total);
  const maxRows = _positiveInt(options.maxRows, 100_000, "options.maxRows");
  const numOverlay = _positiveInt(options.numOverlay, 50, "options.numOverlay");
  const seed = options.seed ?? 1;
  const rng = new Rng(seed);
  const n = model.numRows;
  let rows: Int32Array | null = null;
  if (n > maxRows) rows = rng.stream(0).sampleWithoutReplacement(n, maxRows).sort();
  const m = rows === null ? n : rows.length;
  const { x, y: yAll } = dataViews(model.data);
  const y = new Float64Array(m);
  const xRow = (i: number) => (rows === null ? i : rows[i]);
  for (let i = 0; i < m; i++) y[i] = yAll[xRow(i)];
  const offsetAll = family === "poisson" || family === "negative-binomial"
    ? model.options.offset
    : undefined;
  const trialsAll = family === "binomial" ? model.options.trials : undefined;
  const trials = new Float64Array(m).fill(1);
  if (trialsAll !== undefined) { for (let i = 0; i < m; i++) trials[i] = trialsAll[xRow(i)]; }

  // Evenly spaced draws over the pooled chains.
  const picks: number[][] = [];
  for (let s = 0; s < numDraws; s++) {
    let k = Math.floor((s + 0.5) * total / numDraws);
    let c = 0;
    while (k >= chains[c][0].length) k -= chains[c++][0].length;
    const theta = chains[c].map((a) => a[k]);
    if (theta.some((v) => !Number.isFinite(v))) {
      throw new RangeError(
        `draw ${k + 1} of chain ${c + 1} holds a non-finite value (${
          theta.map((v, j) => `${model.parameterNames[j]} = ${v}`).join(", ")
        })`,
      );
    }
    picks.push(theta);
  }

  const isCount = _COUNT.has(family), isBinary = _BINARY.has(family);
  const statNames = [
    "mean",
    "sd",
    ...(isCount || family === "logistic" ? ["zeros", "ones"] : []),
    "max",
  ];
  const stat = (v: Float64Array): number[] => {
    let s = 0, s2 = 0, z = 0, o = 0, mx = -Infinity;
    for (let i = 0; i < v.length; i++) {
      const a = v[i];
      s += a;
      if (a === 0) z++;
      else if (a === 1) o++;
      if (a > mx) mx = a;
    }
    const mean = s / v.length;
    for (let i = 0; i < v.length; i++) s2 += (v[i] - mean) ** 2;
    const sd = v.length > 1 ? Math.sqrt(s2 / (v.length - 1)) : 0;
    return isCount || family === "logistic"
      ? [mean, sd, z / v.length, o / v.length, mx]
      : [mean, sd, mx];
  };
  const tObs = stat(y);
  const tRep: Float64Array[] = statNames.map(() => new Float64Array(numDraws));

  let maxCount = 0;
  if (isCount) {
    let mo = 0;
    for (let i = 0; i < m; i++) if (y[i] > mo) mo = y[i];
    maxCount = options.maxCount === undefined
      ? Math.min(mo, 50)
      : (options.maxCount === 0 ? 0 : _positiveInt(options.maxCount, 50, "options.maxCount"));
  }
  const expectedCounts = new Float64Array(maxCount + 1);
  const meanProb = isBinary ? new Float64Array(m) : null;
  const overlay: Float64Array[] = [];
  const keepOverlay = isCount || isBinary ? 0 : Math.min(numOverlay, numDraws);
  const overlayEvery = keepOverlay > 0 ? numDraws / keepOverlay : Infinity;

  const sim = rng.stream(1);
  const yRep = new Float64Array(m);
  // The rows used, contiguous (one gather instead of one per draw), and η per row.
  const xs = rows === null ? x : new Float64Array(m * d);
  if (rows !== null) {
    for (let i = 0; i < m; i++) xs.set(x.subarray(rows[i] * d, rows[i] * d + d), i * d);
  }
  const etas = new Float64Array(m);
  const beta = new Float64Array(d);
  for (let s = 0; s < numDraws; s++) {
    const th = picks[s];
    for (let j = 0; j < d; j++) beta[j] = th[j];
    for (let i = 0, o = 0; i < m; i++, o += d) {
      let e = 0;
      for (let j = 0; j < d; j++) e += xs[o + j] * beta[j];
      etas[i] = e;
    }
    const tau = model.dim > d ? Math.exp(th[d]) : NaN;
    if (model.dim > d && !(tau > 0 && tau < Infinity)) {
      throw new RangeError(
        `draw ${s + 1} has ${model.parameterNames[d]} = ${th[d]}: e^${
          th[d]
        } is not a positive finite number`,
      );
    }
    const sigma = family === "gaussian" ? model.options.sigma! : tau;
    const nu = family === "student-t"
      ? (model.options.nu === "sample" ? 1 + Math.exp(th[d + 1]) : model.options.nu as number)
      : NaN;
    for (let i = 0; i < m; i++) {
      const r = xRow(i);
      let eta = etas[i];
      if (offsetAll !== undefined) eta += offsetAll[r];
      if (
        !Number.isFinite(eta) || ((family === "poisson" || family === "negative-binomial") &&
          !(Math.exp(eta) < Infinity))
      ) {
        throw new RangeError(
          `draw ${s + 1} gives row ${r + 1} the linear predictor η = ${eta}, beyond what ` +
            `the ${family} family can simulate`,
        );
      }
      let v: number;
      switch (family) {
        case "logistic":
        case "binomial": {
          const p = 1 / (1 + Math.exp(-eta));
          meanProb![i] += p / numDraws;
          v = family === "logistic" ? (sim.uniform() < p ? 1 : 0) : _binomial(sim, trials[i], p);
          break;
        }
        case "poisson":
          v = sim.poisson(Math.exp(eta));
          break;
        case "negative-binomial": {
          const mu = Math.exp(eta);
          v = sim.poisson(sim.gamma(tau) * mu / tau);
          break;
        }
        case "student-t":
          v = eta + sigma * sim.normal() / Math.sqrt(2 * sim.gamma(nu / 2) / nu);
          break;
        default:
          v = eta + sigma * sim.normal();
      }
      yRep[i] = v;
    }
    const t = stat(yRep);
    for (let k = 0; k < t.length; k++) tRep[k][s] = t[k];
    if (isCount) {
      for (let i = 0; i < m; i++) {
        if (yRep[i] <= maxCount) expectedCounts[yRep[i]]++;
      }
    }
    if (overlay.length < keepOverlay && s >= overlay.length * overlayEvery) {
      overlay.push(yRep.slice());
    }
  }

  const statistics: PpcStatistic[] = statNames.map((name, k) => {
    const rep = tRep[k], obs = tObs[k];
    let above = 0, ties = 0, sum = 0;
    for (const t of rep) {
      if (t > obs) above++;
      else if (t === obs) ties++;
      sum += t;
    }
    const p = (above + 0.5 * ties) / numDraws;
    const sorted = rep.slice().sort();
    const q = (a: number) => sorted[Math.min(numDraws - 1, Math.floor(a * numDraws))];
    return {
      name,
      observed: obs,
      replicatedMean: sum / numDraws,
      replicatedQ5: q(0.05),
      replicatedQ95: q(0.95),
      pValue: p,
      pValueTwoSided: Math.min(1, 2 * Math.min(p, 1 - p)),
    };
  });

  let calibration: CalibrationBin[] | null = null;
  if (meanProb !== null) {
    const order = Int32Array.from({ length: m }, (_, i) => i).sort((a, b) =>
      meanProb[a] - meanProb[b]
    );
    calibration = [];
    for (let g = 0; g < 10; g++) {
      const lo = Math.floor(g * m / 10), hi = Math.floor((g + 1) * m / 10);
      if (hi <= lo) continue;
      let sy = 0, sn = 0, sp = 0;
      for (let k = lo; k < hi; k++) {
        const i = order[k];
        sy += y[i];
        sn += trials[i];
        sp += trials[i] * meanProb[i];
      }
      calibration.push({ decile: g + 1, numRows: hi - lo, predicted: sp / sn, observed: sy / sn });
    }
  }

  let rootogram: RootogramBin[] | null = null;
  if (isCount) {
    const obs = new Float64Array(maxCount + 1);
    for (let i = 0; i < m; i++) if (y[i] <= maxCount) obs[y[i]]++;
    rootogram = Array.from({ length: maxCount + 1 }, (_, k) => ({
      count: k,
      observed: obs[k],
      expected: expectedCounts[k] / numDraws,
    }));
  }

  let density: DensityOverlay | null = null;
  if (keepOverlay > 0) {
    let lo = Infinity, hi = -Infinity;
    for (const v of [y, ...overlay]) {
      for (const a of v) {
        if (a < lo) lo = a;
        if (a > hi) hi = a;
      }
    }
    const base = kde(y, { numPoints: 2 });
    const pad = 3 * base.bandwidth;
    const grid = Float64Array.from(
      { length: 200 },
      (_, k) => lo - pad + k * (hi - lo + 2 * pad) / 199,
    );
    density = {
      x: grid,
      observed: kde(y, { grid, bandwidth: base.bandwidth }).density,
      replicated: overlay.map((v) => kde(v, { grid, bandwidth: base.bandwidth }).density),
    };
  }

  return {
    family,
    numDraws,
    numRows: m,
    numRowsTotal: n,
    rows,
    statistics,
    calibration,
    rootogram,
    density,
  };
}
