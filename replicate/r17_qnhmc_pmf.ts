/**
 * R17 — QNHMC §5.3, Table 3: Bayesian probabilistic matrix factorisation
 * with 10 latent dimensions, HMC and QNHMC at ε = 0.01, L = 10, against the
 * MAP estimate; test RMSE and running time.
 *
 * Data: MovieLens-1M is not in the repository, so synthetic ratings shaped
 * like it: 6,040 users × 3,952 items, 1,000,209 ratings, every user with at
 * least 20 (log-normal activity, long-tailed like ML-1M's: median ≈ 96,
 * max in the thousands), item popularity Zipf-like (exponent 1), ratings 1–5
 * with ML-1M's frequencies (5.6, 10.8, 26.1, 34.9, 22.6 %) by thresholding a
 * latent score u·v + user and item offsets + noise at its quantiles. Split
 * 90/10 at random (the demo code of Salakhutdinov & Mnih holds out a probe
 * set). Quick mode: 600 × 400, 20,000 ratings.
 *
 * Model (fixed hyperparameters, the PMF of the demo code written as a
 * posterior): rᵢⱼ − r̄ ~ N(uᵢ·vⱼ, σ²), uᵢ, vⱼ ~ N(0, λ⁻¹I), σ² = 0.8, λ = 2;
 * d = (users + items) × 10 parameters (99,920 at full size). MAP: alternating
 * least squares (the paper's MAP is the demo's gradient descent; the optimum
 * is the same). HMC (identity metric) and QNHMC (L-BFGS, m = 7, C updated
 * after accepted proposals as Algorithm 2) start at the MAP, ε = 0.01,
 * L = 10, and predict by the average of uᵢ·vⱼ over the draws. HMC-BFGS is not
 * run (see R7).
 *
 * Online, as the paper's §5.3 ("online Bayesian PMF", settings of the demo
 * code): the training ratings stream in mini-batches, 9 per epoch as the
 * demo's 9 batches of 100,000 ratings, each epoch in a fresh random order
 * ({@link ratingBatches}). Iteration t's HMC or QNHMC transition targets
 * log p(batch_t | θ) + log p(θ)/9 — the nine targets of an epoch multiply to
 * the posterior — with the Metropolis test on that batch. With every rating
 * in each gradient the posterior's stiffest directions (popular items, active
 * users) have ε√λ_max ≈ 0.6 at ε = 0.01 and full-size chains accept nothing;
 * a batch has a ninth of the curvature.
 *
 * References: Fu, Luo & Zhang (2016), §5.3, Table 3; Salakhutdinov & Mnih
 * (2008) for the model.
 *
 * @module
 */
import { cholesky, choleskySolve } from "../math/linalg.ts";
import { type CostCounter, type Model, newCostCounter } from "../models/model.ts";
import { Rng } from "../random/rng.ts";
import { hmc, identityMetric } from "../samplers/mod.ts";
import { qnhmcChainSampler } from "../samplers/qnhmc/mod.ts";
import type { Experiment, ExperimentContext, ExperimentResult } from "./experiment.ts";
import { VEGA_LITE_SCHEMA } from "./figures.ts";
import { outcomeOf, type Verdict } from "./verdicts.ts";

/** Latent dimensions. */
export const PMF_RANK = 10;
/** ML-1M's rating frequencies for 1 … 5. */
export const ML1M_RATING_FREQUENCIES = [0.056, 0.108, 0.261, 0.349, 0.226] as const;

/** A ratings data set split into train and test. */
export interface RatingsData {
  /** Users. */
  readonly numUsers: number;
  /** Items. */
  readonly numItems: number;
  /** Training triples. */
  readonly train: { user: Int32Array; item: Int32Array; rating: Float64Array };
  /** Test triples. */
  readonly test: { user: Int32Array; item: Int32Array; rating: Float64Array };
  /** Ratings per user (all of them). */
  readonly userCounts: Int32Array;
  /** Ratings per item. */
  readonly itemCounts: Int32Array;
}

/**
 * Synthetic ratings shaped like MovieLens-1M (see the module comment).
 *
 * @param seed Seed.
 * @param numUsers Users.
 * @param numItems Items.
 * @param numRatings Target number of ratings (each user has ≥ min(20, items/2)).
 * @returns Train (90 %) and test (10 %) triples.
 */
export function movieLensShaped(
  seed: number | string,
  numUsers: number,
  numItems: number,
  numRatings: number,
): RatingsData {
  const rng = new Rng(`${seed}/r17-data`);
  const minPerUser = Math.min(20, Math.floor(numItems / 2));
  // Long-tailed activity: log-normal, scaled so the total is numRatings.
  const raw = Float64Array.from({ length: numUsers }, () => Math.exp(1.1 * rng.normal()));
  const rawSum = raw.reduce((a, b) => a + b, 0);
  const extra = numRatings - minPerUser * numUsers;
  const userCounts = Int32Array.from(
    raw,
    (v) => Math.min(Math.floor(numItems * 0.9), minPerUser + Math.round((extra * v) / rawSum)),
  );
  // Zipf-like item popularity over a random order of items.
  const itemOrder = Int32Array.from({ length: numItems }, (_, i) => i);
  for (let i = numItems - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [itemOrder[i], itemOrder[j]] = [itemOrder[j], itemOrder[i]];
  }
  const cdf = new Float64Array(numItems);
  let acc = 0;
  for (let r = 0; r < numItems; r++) cdf[r] = acc += 1 / (r + 10);
  for (let r = 0; r < numItems; r++) cdf[r] /= acc;
  const drawItem = () => {
    const u = rng.uniform();
    let lo = 0, hi = numItems - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return itemOrder[lo];
  };
  // Latent scores: u·v (rank 10) + offsets + noise.
  const uF = rng.fillNormal(new Float64Array(numUsers * PMF_RANK), { sd: 0.35 });
  const vF = rng.fillNormal(new Float64Array(numItems * PMF_RANK), { sd: 0.35 });
  const uB = rng.fillNormal(new Float64Array(numUsers), { sd: 0.4 });
  const vB = rng.fillNormal(new Float64Array(numItems), { sd: 0.5 });
  const total = userCounts.reduce((a, b) => a + b, 0);
  const user = new Int32Array(total), item = new Int32Array(total);
  const score = new Float64Array(total);
  let k = 0;
  for (let i = 0; i < numUsers; i++) {
    const seen = new Set<number>();
    while (seen.size < userCounts[i]) seen.add(drawItem());
    for (const j of seen) {
      let s = uB[i] + vB[j] + 0.6 * rng.normal();
      for (let q = 0; q < PMF_RANK; q++) s += uF[i * PMF_RANK + q] * vF[j * PMF_RANK + q];
      user[k] = i;
      item[k] = j;
      score[k] = s;
      k++;
    }
  }
  // Ratings 1–5 at ML-1M's frequencies: thresholds at the score's quantiles.
  const sorted = Float64Array.from(score).sort();
  const cuts: number[] = [];
  let cum = 0;
  for (let r = 0; r < 4; r++) {
    cum += ML1M_RATING_FREQUENCIES[r];
    cuts.push(sorted[Math.min(total - 1, Math.floor(cum * total))]);
  }
  const rating = Float64Array.from(score, (s) => 1 + cuts.filter((c) => s >= c).length);
  const itemCounts = new Int32Array(numItems);
  for (let q = 0; q < total; q++) itemCounts[item[q]]++;
  const isTest = Uint8Array.from({ length: total }, () => (rng.uniform() < 0.1 ? 1 : 0));
  const pick = (flag: number) => {
    const idx: number[] = [];
    for (let q = 0; q < total; q++) if (isTest[q] === flag) idx.push(q);
    return {
      user: Int32Array.from(idx, (q) => user[q]),
      item: Int32Array.from(idx, (q) => item[q]),
      rating: Float64Array.from(idx, (q) => rating[q]),
    };
  };
  return { numUsers, numItems, train: pick(0), test: pick(1), userCounts, itemCounts };
}

/** The PMF posterior over θ = [U; V] (users × 10, then items × 10). */
export class PmfModel implements Model {
  readonly dim: number;
  readonly cost: CostCounter = newCostCounter();
  readonly data: RatingsData;
  /** Mean training rating r̄. */
  readonly mean: number;
  readonly noiseVariance: number;
  readonly priorPrecision: number;
  #names: string[] | undefined;
  #batch: Int32Array | null = null;
  #priorWeight = 1;

  constructor(
    data: RatingsData,
    options: { noiseVariance?: number; priorPrecision?: number } = {},
  ) {
    this.data = data;
    this.dim = (data.numUsers + data.numItems) * PMF_RANK;
    const r = data.train.rating;
    this.mean = r.reduce((a, b) => a + b, 0) / r.length;
    this.noiseVariance = options.noiseVariance ?? 0.8;
    this.priorPrecision = options.priorPrecision ?? 2;
  }

  get parameterNames(): readonly string[] {
    if (this.#names === undefined) {
      const names: string[] = [];
      for (let i = 0; i < this.data.numUsers; i++) {
        for (let q = 0; q < PMF_RANK; q++) names.push(`u[${i + 1},${q + 1}]`);
      }
      for (let j = 0; j < this.data.numItems; j++) {
        for (let q = 0; q < PMF_RANK; q++) names.push(`v[${j + 1},${q + 1}]`);
      }
      this.#names = names;
    }
    return this.#names;
  }

  /**
   * Restrict the likelihood to the training ratings `batch` (indices into
   * `data.train`) and weigh the prior by `priorWeight`: the online target
   * log p(batch | θ) + w log p(θ). With B batches that partition the ratings
   * and w = 1/B, the product of the B targets is the posterior. `null`
   * restores the full posterior.
   *
   * @param batch Indices of the batch's ratings, or null for all.
   * @param priorWeight w (default 1).
   */
  setBatch(batch: Int32Array | null, priorWeight = 1): void {
    if (!(priorWeight > 0)) throw new RangeError(`priorWeight must be > 0, got ${priorWeight}`);
    this.#batch = batch;
    this.#priorWeight = priorWeight;
  }

  logDensity(theta: Float64Array): number {
    return this.#evaluate(theta, undefined);
  }

  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    return this.#evaluate(theta, grad);
  }

  #evaluate(theta: Float64Array, grad: Float64Array | undefined): number {
    const { user, item, rating } = this.data.train, rk = PMF_RANK;
    const vOff = this.data.numUsers * rk, inv = 1 / this.noiseVariance;
    const lam = this.priorPrecision * this.#priorWeight, batch = this.#batch;
    const numRows = batch === null ? rating.length : batch.length;
    let lp = 0;
    if (grad !== undefined) grad.fill(0);
    for (let t = 0; t < numRows; t++) {
      const q = batch === null ? t : batch[t];
      const a = user[q] * rk, b = vOff + item[q] * rk;
      let pred = 0;
      for (let c = 0; c < rk; c++) pred += theta[a + c] * theta[b + c];
      const e = rating[q] - this.mean - pred;
      lp -= 0.5 * inv * e * e;
      if (grad !== undefined) {
        const w = inv * e;
        for (let c = 0; c < rk; c++) {
          grad[a + c] += w * theta[b + c];
          grad[b + c] += w * theta[a + c];
        }
      }
    }
    for (let p = 0; p < theta.length; p++) {
      lp -= 0.5 * lam * theta[p] * theta[p];
      if (grad !== undefined) grad[p] -= lam * theta[p];
    }
    if (grad !== undefined) this.cost.numGradRows += numRows;
    else this.cost.numLogLikRows += numRows;
    return lp;
  }

  /** Predictions r̄ + uᵢ·vⱼ for the test triples, clipped to [1, 5], into `out`. */
  predictTest(theta: Float64Array, out: Float64Array): Float64Array {
    const { user, item } = this.data.test, rk = PMF_RANK, vOff = this.data.numUsers * rk;
    for (let q = 0; q < user.length; q++) {
      let pred = this.mean;
      for (let c = 0; c < rk; c++) pred += theta[user[q] * rk + c] * theta[vOff + item[q] * rk + c];
      out[q] = Math.min(5, Math.max(1, pred));
    }
    return out;
  }

  /** RMSE of predictions against the test ratings. */
  rmse(pred: Float64Array): number {
    const r = this.data.test.rating;
    let s = 0;
    for (let q = 0; q < r.length; q++) s += (pred[q] - r[q]) ** 2;
    return Math.sqrt(s / r.length);
  }

  /**
   * The MAP by alternating least squares from a small random start.
   *
   * @param rng Generator of the start.
   * @param sweeps ALS sweeps.
   * @returns θ at the MAP.
   */
  mapByAls(rng: Rng, sweeps: number): Float64Array {
    const rk = PMF_RANK, nu = this.data.numUsers, ni = this.data.numItems;
    const theta = rng.fillNormal(new Float64Array(this.dim), { sd: 0.1 });
    const { user, item, rating } = this.data.train;
    const byUser: number[][] = Array.from({ length: nu }, () => []);
    const byItem: number[][] = Array.from({ length: ni }, () => []);
    for (let q = 0; q < rating.length; q++) byUser[user[q]].push(q), byItem[item[q]].push(q);
    const ratio = this.noiseVariance * this.priorPrecision;
    const solveBlock = (target: number, rows: number[], other: (q: number) => number) => {
      const a = new Float64Array(rk * rk), bv = new Float64Array(rk);
      for (let c = 0; c < rk; c++) a[c * rk + c] = ratio;
      for (const q of rows) {
        const o = other(q), e = rating[q] - this.mean;
        for (let c = 0; c < rk; c++) {
          const tc = theta[o + c];
          bv[c] += e * tc;
          // The upper triangle only: entry (c2, c) would add the same products in the same order.
          for (let c2 = c; c2 < rk; c2++) a[c * rk + c2] += tc * theta[o + c2];
        }
      }
      for (let c = 0; c < rk; c++) for (let c2 = 0; c2 < c; c2++) a[c * rk + c2] = a[c2 * rk + c];
      theta.set(choleskySolve(cholesky(a), bv), target);
    };
    for (let s = 0; s < sweeps; s++) {
      for (let i = 0; i < nu; i++) solveBlock(i * rk, byUser[i], (q) => (nu + item[q]) * rk);
      for (let j = 0; j < ni; j++) solveBlock((nu + j) * rk, byItem[j], (q) => user[q] * rk);
    }
    return theta;
  }
}

/** One method's outcome. */
export interface PmfRun {
  /** Method. */
  readonly name: string;
  /** Test RMSE of the averaged prediction after the run. */
  readonly rmse: number;
  /** RMSE of the running average at each iteration (index 0: the start). */
  readonly rmseTrace: number[];
  /** Wall seconds. */
  readonly seconds: number;
  /** Acceptance rate (NaN for MAP). */
  readonly acceptance: number;
}

/**
 * The stream of mini-batches of the online runs: each epoch a fresh random
 * order of the training ratings cut into `numBatches` near-equal batches
 * (the demo code of Salakhutdinov & Mnih: 9 batches of 100,000 ratings of
 * ML-1M's 900,000 training ratings). The same seed gives every method the
 * same stream.
 *
 * @param numRatings Training ratings.
 * @param numBatches Batches per epoch (≥ 1).
 * @param seed Seed of the orders.
 * @returns `batch(it)`: the indices of iteration `it`'s batch (iterations in order).
 */
export function ratingBatches(
  numRatings: number,
  numBatches: number,
  seed: string,
): (iteration: number) => Int32Array {
  if (!Number.isInteger(numBatches) || numBatches < 1 || numBatches > numRatings) {
    throw new RangeError(`numBatches must be an integer in [1, ${numRatings}], got ${numBatches}`);
  }
  const rng = new Rng(seed);
  let order = new Int32Array(0), epoch = -1;
  return (iteration: number) => {
    const e = Math.floor(iteration / numBatches), b = iteration % numBatches;
    if (e !== epoch) {
      if (e !== epoch + 1) throw new RangeError("batches must be taken in iteration order");
      order = Int32Array.from({ length: numRatings }, (_, i) => i);
      for (let i = numRatings - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        const t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      epoch = e;
    }
    const lo = Math.floor((b * numRatings) / numBatches);
    const hi = Math.floor(((b + 1) * numRatings) / numBatches);
    return order.subarray(lo, hi);
  };
}

/**
 * Run HMC or QNHMC from θ₀ for `iterations`, averaging predictions over the
 * draws after the first `discard`. With `numBatches` B > 1 the run is
 * online: iteration t's transition targets log p(batch_t | θ) + log p(θ)/B
 * (batch_t from {@link ratingBatches}); the state's log density and gradient
 * are recomputed on the new batch before the transition (one gradient more
 * per iteration), QNHMC's C carries over.
 */
function _runSampler(
  name: "HMC" | "QNHMC",
  model: PmfModel,
  start: Float64Array,
  iterations: number,
  discard: number,
  seed: string,
  numBatches: number,
  batchSeed: string,
): PmfRun {
  const rng = new Rng(seed);
  const fn = (x: Float64Array, g: Float64Array) => model.logDensityAndGradient(x, g);
  const numTest = model.data.test.rating.length;
  const sum = new Float64Array(numTest), pred = new Float64Array(numTest);
  const rmseTrace = [model.rmse(model.predictTest(start, pred))];
  const batchOf = numBatches > 1
    ? ratingBatches(model.data.train.rating.length, numBatches, batchSeed)
    : null;
  const useBatch = (it: number) => {
    if (batchOf !== null) model.setBatch(batchOf(it), 1 / numBatches);
  };
  let accepted = 0, used = 0;
  const t0 = performance.now();
  const record = (position: Float64Array, it: number) => {
    model.predictTest(position, pred);
    if (it >= discard) {
      for (let q = 0; q < numTest; q++) sum[q] += pred[q];
      used++;
      rmseTrace.push(model.rmse(sum.map((v) => v / used)));
    } else rmseTrace.push(model.rmse(pred));
  };
  try {
    if (name === "HMC") {
      const metric = identityMetric(model.dim);
      useBatch(0);
      let state = hmc.init(start, fn);
      for (let it = 0; it < iterations; it++) {
        if (batchOf !== null && it > 0) {
          useBatch(it);
          state = hmc.init(state.position, fn);
        }
        const r = hmc.step(rng, state, {
          logDensityAndGradientFn: fn,
          stepSize: 0.01,
          numIntegrationSteps: 10,
          metric,
        });
        state = r.state;
        accepted += r.info.isAccepted ? 1 : 0;
        record(state.position, it);
      }
    } else {
      const chain = qnhmcChainSampler(model, {
        stepSize: 0.01,
        numIntegrationSteps: 10,
        approximation: "lbfgs",
        memory: 7,
        adaptation: "continuous",
      });
      useBatch(0);
      let state = chain.init(start, rng);
      try {
        for (let it = 0; it < iterations; it++) {
          if (batchOf !== null && it > 0) {
            useBatch(it);
            const gradient = new Float64Array(model.dim);
            const logDensity = fn(state.kernel.position, gradient);
            state = { ...state, kernel: { ...state.kernel, logDensity, gradient } };
          }
          const r = chain.step(rng, state, "sampling", it);
          state = r.state;
          accepted += r.info.isAccepted ? 1 : 0;
          record(chain.position(state), it);
        }
      } finally {
        chain.dispose?.(state);
      }
    }
  } finally {
    model.setBatch(null);
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    name,
    rmse: rmseTrace[rmseTrace.length - 1],
    rmseTrace,
    seconds,
    acceptance: accepted / iterations,
  };
}

/** Table 3's rows: MAP, HMC, QNHMC. */
export function runPmf(
  options: {
    seed: number | string;
    users: number;
    items: number;
    ratings: number;
    iterations: number;
    alsSweeps?: number;
    /** Mini-batches per epoch of the online runs (default 1: every gradient over all ratings). */
    numBatches?: number;
    log?: (m: string) => void;
  },
): { data: RatingsData; runs: PmfRun[]; mapGradient: number } {
  const log = options.log ?? (() => {});
  const data = movieLensShaped(options.seed, options.users, options.items, options.ratings);
  const model = new PmfModel(data);
  const t0 = performance.now();
  const map = model.mapByAls(new Rng(`${options.seed}/r17/map`), options.alsSweeps ?? 8);
  const mapSeconds = (performance.now() - t0) / 1000;
  const pred = new Float64Array(data.test.rating.length);
  const mapRmse = model.rmse(model.predictTest(map, pred));
  const g = new Float64Array(model.dim);
  model.logDensityAndGradient(map, g);
  let mapGradient = 0;
  for (const v of g) mapGradient = Math.max(mapGradient, Math.abs(v));
  log(
    `r17 MAP (ALS): RMSE ${mapRmse.toFixed(4)} in ${mapSeconds.toFixed(1)} s, max |∇ log π| ${
      mapGradient.toExponential(1)
    }`,
  );
  const runs: PmfRun[] = [{
    name: "MAP",
    rmse: mapRmse,
    rmseTrace: [mapRmse],
    seconds: mapSeconds,
    acceptance: NaN,
  }];
  const discard = Math.floor(options.iterations / 4);
  for (const name of ["HMC", "QNHMC"] as const) {
    const r = _runSampler(
      name,
      model,
      map,
      options.iterations,
      discard,
      `${options.seed}/r17/${name}`,
      options.numBatches ?? 1,
      `${options.seed}/r17/batches`,
    );
    log(
      `r17 ${name}: RMSE ${r.rmse.toFixed(4)} after ${options.iterations} iterations in ${
        r.seconds.toFixed(1)
      } s, acceptance ${r.acceptance.toFixed(2)}`,
    );
    runs.push(r);
  }
  return { data, runs, mapGradient };
}

/** The paper's Table 3: RMSE and running time (s). */
const _PAPER: Record<string, [number, number]> = {
  "MAP": [0.8701, 27.67],
  "HMC": [0.8607, 202.5],
  "QNHMC": [0.8628, 108.34],
  "HMC-BFGS": [0.8618, 179.23],
};

/** Wall seconds until the running RMSE stays within `tol` of its final value. */
export function secondsToSettle(run: PmfRun, tol: number): number {
  const t = run.rmseTrace, final = t[t.length - 1];
  let k = t.length - 1;
  while (k > 0 && Math.abs(t[k - 1] - final) <= tol) k--;
  return (run.seconds * k) / Math.max(1, t.length - 1);
}

/** Mini-batches per epoch of the online runs (the demo code's 9 batches). */
export const NUM_BATCHES = 9;
/** Iterations of each sampler at full size (epochs of {@link NUM_BATCHES} batches). */
const ITERATIONS_FULL = 5 * NUM_BATCHES;

/** Run R17. */
async function run(ctx: ExperimentContext): Promise<ExperimentResult> {
  const quick = ctx.quick;
  const users = quick ? 600 : 6_040, items = quick ? 400 : 3_952;
  const ratings = quick ? 20_000 : 1_000_209,
    iterations = quick ? 4 * NUM_BATCHES : ITERATIONS_FULL;
  const numBatches = NUM_BATCHES;
  await Promise.resolve();
  const alsSweeps = quick ? 50 : 15;
  const { data, runs, mapGradient } = runPmf({
    seed: ctx.seed,
    users,
    items,
    ratings,
    iterations,
    alsSweeps,
    numBatches,
    log: ctx.log,
  });
  const by = (name: string) => runs.find((r) => r.name === name)!;
  const map = by("MAP"), hmc = by("HMC"), qn = by("QNHMC");
  const tol = 0.002;
  const settle = new Map(
    runs.map((r) => [r.name, r.name === "MAP" ? r.seconds : secondsToSettle(r, tol)]),
  );
  const sortedUsers = Int32Array.from(data.userCounts).sort();
  const sortedItems = Int32Array.from(data.itemCounts).sort();
  const median = (a: Int32Array) => a[Math.floor(a.length / 2)];
  const rows: (string | number | null)[][] = ["MAP", "HMC", "QNHMC", "HMC-BFGS"].map((name) => {
    const r = runs.find((x) => x.name === name);
    return [
      name === "MAP" ? "MAP (ALS)" : name === "HMC-BFGS" ? "HMC-BFGS (not run)" : name,
      _PAPER[name][0],
      r?.rmse ?? null,
      _PAPER[name][1],
      r?.seconds ?? null,
      r === undefined ? null : settle.get(name) ?? null,
      r === undefined || Number.isNaN(r.acceptance) ? null : r.acceptance,
    ];
  });
  const trace: Record<string, string | number>[] = [];
  for (const r of [hmc, qn]) {
    r.rmseTrace.forEach((v, k) => trace.push({ method: r.name, iteration: k, rmse: v }));
  }
  for (let k = 0; k <= iterations; k += Math.max(1, Math.floor(iterations / 20))) {
    trace.push({ method: "MAP", iteration: k, rmse: map.rmse });
  }
  const moved = hmc.acceptance >= 0.05 && qn.acceptance >= 0.05;
  const verdicts: Verdict[] = [
    {
      claim: "Table 3: the sampling methods (HMC, QNHMC) predict better than MAP",
      paper: "RMSE MAP 0.8701, HMC 0.8607, QNHMC 0.8628",
      ours: `MAP ${map.rmse.toFixed(4)}, HMC ${hmc.rmse.toFixed(4)}, QNHMC ${qn.rmse.toFixed(4)}`,
      outcome: outcomeOf(
        hmc.rmse < map.rmse && qn.rmse < map.rmse,
        hmc.rmse < map.rmse || qn.rmse < map.rmse,
      ),
      reason:
        "threshold: both samplers' test RMSE below MAP's (partly: one); synthetic ML-1M-shaped ratings",
    },
    {
      claim: "Table 3: HMC and QNHMC predict comparably",
      paper: "0.8607 vs 0.8628 (Δ 0.002)",
      ours: `${hmc.rmse.toFixed(4)} vs ${qn.rmse.toFixed(4)} (Δ ${
        Math.abs(hmc.rmse - qn.rmse).toFixed(4)
      })`,
      outcome: outcomeOf(
        moved && Math.abs(hmc.rmse - qn.rmse) < 0.01,
        moved && Math.abs(hmc.rmse - qn.rmse) < 0.03,
      ),
      reason:
        "threshold: both samplers accept ≥ 5 % of proposals and |Δ RMSE| < 0.01 (partly < 0.03); two " +
        "chains that never leave the MAP agree trivially",
    },
    {
      claim: "Table 3: QNHMC converges faster than HMC",
      paper: "running time 108 s vs 202 s",
      ours: `running RMSE settles (within ${tol}) after ${
        (settle.get("QNHMC") ?? NaN).toFixed(1)
      } s (QNHMC) vs ${
        (settle.get("HMC") ?? NaN).toFixed(1)
      } s (HMC); ${iterations} iterations take ${qn.seconds.toFixed(1)} s vs ${
        hmc.seconds.toFixed(1)
      } s`,
      outcome: outcomeOf(
        qn.rmse < map.rmse && (settle.get("QNHMC") ?? Infinity) < 0.75 * (settle.get("HMC") ?? NaN),
        qn.rmse < map.rmse && (settle.get("QNHMC") ?? Infinity) < (settle.get("HMC") ?? NaN),
      ),
      reason:
        "threshold: QNHMC improves on MAP and its settling time is below ¾ of HMC's (partly: below); the " +
        "paper does not say how its running time is measured, so ours is the wall time until the running test " +
        "RMSE stays within 0.002 of its end value — a chain that does not move settles at once, hence the first " +
        "condition",
    },
  ];
  return {
    verdicts,
    summary:
      `Synthetic ratings shaped like MovieLens-1M (not in the repository): ${
        users.toLocaleString("en")
      } users × ${items.toLocaleString("en")} items, ${
        (data.train.rating.length + data.test.rating.length).toLocaleString("en")
      } ratings at ML-1M's ` +
      `1–5 frequencies; ratings per user median ${median(sortedUsers)}, max ${
        sortedUsers[sortedUsers.length - 1]
      }; ` +
      `per item median ${median(sortedItems)}, max ${
        sortedItems[sortedItems.length - 1]
      }. 90/10 split. PMF ` +
      `posterior with 10 latent dimensions, σ² = 0.8, prior precision 2 (d = ${
        ((users + items) * PMF_RANK).toLocaleString("en")
      }). MAP by ${alsSweeps} sweeps of alternating least squares (max |∇ log π| there ${
        mapGradient.toExponential(1)
      }); HMC and QNHMC (L-BFGS, m = 7) from the MAP, ε = 0.01, ` +
      `L = 10, ${iterations} iterations, prediction = average over the draws after the first quarter. HMC-BFGS not ` +
      `run. Online: ${numBatches} mini-batches of the training ratings per epoch (fresh random order each ` +
      `epoch); iteration t targets log p(batch_t | θ) + log p(θ)/${numBatches} (its gradient and Metropolis ` +
      `test on the batch only).`,
    tables: [{
      name: "table3",
      caption: "QNHMC Table 3: test RMSE and running time, paper vs ours.",
      columns: [
        "method",
        "paper RMSE",
        "ours RMSE",
        "paper running time (s)",
        "ours wall time (s)",
        "ours time to settle (s)",
        "acceptance",
      ],
      rows,
    }],
    figures: [{
      name: "rmse",
      caption:
        "Test RMSE of the running posterior-mean prediction vs iteration (MAP for reference).",
      spec: {
        $schema: VEGA_LITE_SCHEMA,
        data: { values: trace },
        width: 340,
        height: 220,
        mark: { type: "line" },
        encoding: {
          x: { field: "iteration", type: "quantitative" },
          y: { field: "rmse", type: "quantitative", scale: { zero: false }, title: "test RMSE" },
          color: { field: "method", type: "nominal", title: null },
        },
      },
    }],
    comparison: [
      `Acceptance at ε = 0.01, L = 10: HMC ${hmc.acceptance.toFixed(2)}, QNHMC ${
        qn.acceptance.toFixed(2)
      } ` +
      `(d = ${((users + items) * PMF_RANK).toLocaleString("en")}).` +
      (hmc.acceptance < 0.05
        ? " HMC accepted almost nothing even on batches of a ninth of the ratings: the batch's curvature still " +
          "puts ε√λ_max near the leapfrog's limit."
        : " With all training ratings in every gradient (not online) the same ε accepted 0 of 30 proposals at " +
          "full size for both samplers (ε√λ_max ≈ 0.6); on batches of a ninth of the ratings the trajectories' " +
          "energy error is small enough to accept."),
      `RMSE — paper: MAP 0.8701, HMC 0.8607, QNHMC 0.8628, HMC-BFGS 0.8618. Ours: MAP ${
        map.rmse.toFixed(4)
      }, ` +
      `HMC ${hmc.rmse.toFixed(4)}, QNHMC ${
        qn.rmse.toFixed(4)
      } (synthetic data: the level is not comparable, ` +
      `the ordering is).`,
      `Time — paper: QNHMC 108 s vs HMC 202 s. Ours: ${qn.seconds.toFixed(1)} s vs ${
        hmc.seconds.toFixed(1)
      } s for ` +
      `${iterations} iterations each.`,
    ],
  };
}

/** R17 — QNHMC Table 3 (Bayesian PMF). */
export const r17QnhmcPmf: Experiment = {
  name: "r17",
  title: "R17 — QNHMC Table 3: Bayesian PMF on MovieLens-1M-shaped ratings",
  source: "qnhmc_fu-2016.md, §5.3, Table 3",
  run,
};
