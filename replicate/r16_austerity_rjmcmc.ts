/**
 * R16 — Austerity §5.3, Figs. 6–7: reversible-jump variable selection in
 * logistic regression with the approximate MH test.
 *
 * ```
 *  posterior (eq. 9, ν integrated out):  p(β, γ | X, y, λ) ∝ l_N(β, γ) ‖β‖₁^{−k} λ^k B(k, D − k + 1)
 *  moves: update (βⱼ += N(0, σ_u²), j active), birth (γⱼ = 1, βⱼ ~ N(0, σ_b²)), death (γⱼ = 0)
 *  move probabilities: ⅓ each; ½ update ½ birth at k = 1; ½ update ½ death at k = D
 *  μ₀ (eqs. 10–12) = [log u − log π-ratio without the likelihood − log q-ratio] / N, with
 *  p(γ → γ') = p_birth(k)/(D − k) for a birth and p_death(k)/k for a death
 * ```
 *
 * Data: MiniBooNE is not in the repository, so a stand-in with its shape:
 * 130,065 rows × 50 features plus a constant (D = 51, the constant selectable
 * like the others, as in the paper), 28 % positive, split 80/20. Features
 * come from a five-factor Gaussian model, a fifth of them made skewed
 * (log-normal) and a fifth heavy-tailed (Student-t, ν = 3), each
 * standardised; the labels from a logistic model with 12 active features
 * (|β| ∈ [0.5, 1.5]) and the intercept that gives 28 % positives.
 *
 * Every move changes one coefficient βⱼ by Δ, so a row's difference is
 * lᵢ = yᵢ Δ xᵢⱼ − [s(ηᵢ + Δ xᵢⱼ) − s(ηᵢ)] with s(η) = log(1 + e^η): the chain
 * keeps ηᵢ and s(ηᵢ) of the current β per row, stamped with the accepted-move
 * count (a stale row is recomputed over the k active columns). This costs one
 * softplus per row, several times less than the two 51-column dot products
 * of a general GLM pass.
 *
 * Note: with p(ν) ∝ 1/ν, eq. 9's ‖β‖₁^{−k} is not integrable at β = 0 (in k
 * dimensions ∫ r^{−k} r^{k−1} dr diverges logarithmically), so the posterior
 * is improper there; random-walk updates from a fitted β practically never
 * approach 0 and the runs are unaffected, but no quadrature reference exists.
 *
 * Every chain starts, as the paper's Fig. 6 runs, with one variable (the
 * constant, at logit 0.28). Ground truth: one exact reversible-jump run from
 * the same start (its first quarter dropped); its predictive means on the
 * test points and inclusion probabilities are the reference. Risk: mean over
 * test points and chains of the squared error of the running predictive mean
 * (on a fixed subset of the test set, stated). Budget as R15: wall seconds
 * per chain in full mode, rows evaluated in quick mode.
 *
 * References: Korattikara, Chen & Welling (2014), §5.3, eqs. 7–12, Figs. 6–7;
 * Chen, Wang & McKeown (2011) for the moves.
 *
 * @module
 */
import { Rng } from "../random/rng.ts";
import { approxMhTest, newRowOrder } from "../subsampling/austerity.ts";
import { softplusTable } from "./ica_stiefel.ts";
import type { Experiment, ExperimentContext, ExperimentResult } from "./experiment.ts";
import { VEGA_LITE_SCHEMA } from "./figures.ts";
import { outcomeOf, type Verdict } from "./verdicts.ts";

/** The stand-in data set: train and test rows with a leading constant column. */
export interface RjData {
  /** Columns D (51: constant + 50 features). */
  readonly d: number;
  /** Training rows, row-major n × d. */
  readonly xTrain: Float64Array;
  /** Training labels. */
  readonly yTrain: Float64Array;
  /** Test rows. */
  readonly xTest: Float64Array;
  /** Test labels. */
  readonly yTest: Float64Array;
  /** The generating coefficients (index 0 the constant). */
  readonly trueBeta: Float64Array;
  /** Fraction of positive labels over all rows. */
  readonly positiveRate: number;
}

function _sigmoid(t: number): number {
  return t >= 0 ? 1 / (1 + Math.exp(-t)) : Math.exp(t) / (1 + Math.exp(t));
}

/**
 * A data set with MiniBooNE's shape (see the module comment).
 *
 * @param seed Seed.
 * @param n Rows (the paper: 130,065); 80 % train, 20 % test.
 * @returns Train and test rows.
 */
export function miniBooNEShaped(seed: number | string, n: number): RjData {
  if (!Number.isInteger(n) || n < 100) throw new RangeError(`n must be an integer ≥ 100, got ${n}`);
  const p = 50, d = p + 1, numFactors = 5;
  const rng = new Rng(`${seed}/r16-data`);
  const loadings = new Float64Array(p * numFactors);
  rng.fillNormal(loadings, { sd: 0.6 });
  const x = new Float64Array(n * d), f = new Float64Array(numFactors);
  for (let i = 0; i < n; i++) {
    rng.fillNormal(f);
    x[i * d] = 1;
    for (let j = 0; j < p; j++) {
      let z = rng.normal();
      for (let q = 0; q < numFactors; q++) z += loadings[j * numFactors + q] * f[q];
      if (j % 5 === 1) z = Math.exp(0.5 * z);
      else if (j % 5 === 2) {
        const chi2 = rng.normal() ** 2 + rng.normal() ** 2 + rng.normal() ** 2;
        z *= Math.sqrt(3 / chi2) / 1.7;
      }
      x[i * d + 1 + j] = z;
    }
  }
  for (let j = 1; j < d; j++) {
    let mean = 0, sq = 0;
    for (let i = 0; i < n; i++) mean += x[i * d + j];
    mean /= n;
    for (let i = 0; i < n; i++) sq += (x[i * d + j] - mean) ** 2;
    const sd = Math.sqrt(sq / n);
    for (let i = 0; i < n; i++) x[i * d + j] = (x[i * d + j] - mean) / sd;
  }
  const trueBeta = new Float64Array(d);
  const active = new Set<number>();
  while (active.size < 12) active.add(1 + rng.int(p));
  for (const j of active) trueBeta[j] = (rng.uniform() < 0.5 ? -1 : 1) * (0.5 + rng.uniform());
  const eta = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 1; j < d; j++) eta[i] += trueBeta[j] * x[i * d + j];
  }
  // Intercept for 28 % positives (bisection on the mean probability).
  let lo = -20, hi = 20;
  for (let it = 0; it < 60; it++) {
    const mid = (lo + hi) / 2;
    let s = 0;
    for (let i = 0; i < n; i++) s += _sigmoid(mid + eta[i]);
    if (s / n > 0.28) hi = mid;
    else lo = mid;
  }
  trueBeta[0] = (lo + hi) / 2;
  const y = new Float64Array(n);
  let positives = 0;
  for (let i = 0; i < n; i++) {
    y[i] = rng.uniform() < _sigmoid(trueBeta[0] + eta[i]) ? 1 : 0;
    positives += y[i];
  }
  const perm = newRowOrder(n);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  const nTrain = Math.round(0.8 * n), nTest = n - nTrain;
  const xTrain = new Float64Array(nTrain * d), yTrain = new Float64Array(nTrain);
  const xTest = new Float64Array(nTest * d), yTest = new Float64Array(nTest);
  for (let q = 0; q < n; q++) {
    const i = perm[q];
    if (q < nTrain) {
      xTrain.set(x.subarray(i * d, (i + 1) * d), q * d);
      yTrain[q] = y[i];
    } else {
      xTest.set(x.subarray(i * d, (i + 1) * d), (q - nTrain) * d);
      yTest[q - nTrain] = y[i];
    }
  }
  return { d, xTrain, yTrain, xTest, yTest, trueBeta, positiveRate: positives / n };
}

/**
 * Probabilities of the birth, death and update moves at model size k of D:
 * ⅓ each, ½ birth ½ update at k = 1, ½ death ½ update at k = D.
 *
 * @param k Model size (1 … D).
 * @param d D.
 * @returns The three probabilities.
 */
export function rjMoveProbabilities(
  k: number,
  d: number,
): { birth: number; death: number; update: number } {
  if (k <= 1) return { birth: 0.5, death: 0, update: 0.5 };
  if (k >= d) return { birth: 0, death: 0.5, update: 0.5 };
  return { birth: 1 / 3, death: 1 / 3, update: 1 / 3 };
}

/**
 * The non-likelihood part of the log MH ratio of a move (what eqs. 10–12 put
 * in μ₀ besides log u): log prior ratio of eq. 9 plus the log proposal ratio.
 *
 * @param kind The move.
 * @param k Model size before the move.
 * @param d D.
 * @param l1 ‖β‖₁ before.
 * @param l1New ‖β'‖₁ after.
 * @param betaJ The coefficient born (birth) or removed (death); unused for an update.
 * @param options λ and σ_birth.
 * @returns log[π(β', γ')/π(β, γ)] − log-likelihood ratio + log[q(back)/q(forth)].
 */
export function rjLogRatio(
  kind: "update" | "birth" | "death",
  k: number,
  d: number,
  l1: number,
  l1New: number,
  betaJ: number,
  options: { lambda: number; sigmaBirth: number },
): number {
  const logNormal = -0.5 * (betaJ / options.sigmaBirth) ** 2 -
    Math.log(options.sigmaBirth * Math.sqrt(2 * Math.PI));
  if (kind === "update") return -k * Math.log(l1New) + k * Math.log(l1);
  if (kind === "birth") {
    const newK = k + 1;
    return -newK * Math.log(l1New) + k * Math.log(l1) + Math.log(options.lambda) +
      Math.log(k / newK) +
      Math.log(rjMoveProbabilities(newK, d).death / rjMoveProbabilities(k, d).birth) - logNormal;
  }
  const newK = k - 1;
  return -newK * Math.log(l1New) + k * Math.log(l1) - Math.log(options.lambda) +
    Math.log(k / newK) +
    Math.log(rjMoveProbabilities(newK, d).birth / rjMoveProbabilities(k, d).death) + logNormal;
}

/** Settings of one reversible-jump chain. */
export interface RjChainOptions {
  /** ε of the test (0: exact). */
  epsilon: number;
  /** λ of the model-size prior. */
  lambda: number;
  /** σ of the update move. */
  sigmaUpdate: number;
  /** σ of the birth proposal. */
  sigmaBirth: number;
  /** Mini-batch size m. */
  batchSize: number;
  /** Stop after this many rows (full-data passes × N) or wall seconds. */
  budget: { passes: number } | { seconds: number } | { steps: number };
  /** Checkpoints on the budget axis where the running predictive mean is recorded. */
  checkpoints?: Float64Array;
  /** Steps dropped before the running means start (default 0). */
  discardSteps?: number;
}

/** What one chain returns. */
export interface RjChainResult {
  /** Running predictive mean at each checkpoint (one row of test points each). */
  readonly predictiveAt: Float64Array[];
  /** Final running predictive mean. */
  readonly predictive: Float64Array;
  /** Fraction of steps each feature was included. */
  readonly inclusion: Float64Array;
  /** Steps taken. */
  readonly steps: number;
  /** Mean model size k. */
  readonly meanSize: number;
  /** Acceptance of update and of birth/death moves. */
  readonly acceptUpdate: number;
  /** Acceptance of birth and death moves. */
  readonly acceptJump: number;
  /** Mean fraction of the data per test. */
  readonly fractionOfData: number;
  /** Wall seconds. */
  readonly seconds: number;
  /** Rows evaluated. */
  readonly rows: number;
  /** Per-step model size (thinned to at most 2000 values). */
  readonly sizeTrace: number[];
}

/**
 * log(1 + eᵗ) to 5e-10 by the table of `ica_stiefel.ts` (five times faster than
 * `Math.log1p(Math.exp(−|t|))`, which the exact reference run's 7,500 passes over the
 * training rows spent most of their time in); every chain and the reference use it,
 * so all target the same posterior.
 */
const _softplus = softplusTable;

/** The sampler's data and per-row caches, reused across chains. */
export class RjSampler {
  /** Columns D. */
  readonly d: number;
  /** Training rows N. */
  readonly n: number;
  /** Test rows used by the risk. */
  readonly testX: Float64Array;
  /** How many test rows. */
  readonly numTest: number;
  /** Training rows column-major (column c at c·n): a move reads one column of every row. */
  #xByColumn: Float64Array;
  /** Training rows row-major (row i at i·d): what a test on rows drawn at random reads. */
  #xByRow: Float64Array;
  #y: Float64Array;
  #order: Int32Array;
  #eta: Float64Array;
  #sp: Float64Array;
  #stamp: Int32Array;
  #newEta: Float64Array;
  #newSp: Float64Array;

  /**
   * @param data The data set.
   * @param numTest How many test points the risk uses (the first ones).
   */
  constructor(data: RjData, numTest: number) {
    this.d = data.d;
    this.n = data.yTrain.length;
    // A move reads column j of each row it tests: contiguous here, where the
    // row-major layout puts successive values d·8 bytes apart (one cache line
    // each). The same values in the same order, so the same sums.
    const xt = new Float64Array(this.n * this.d);
    for (let i = 0; i < this.n; i++) {
      for (let c = 0; c < this.d; c++) xt[c * this.n + i] = data.xTrain[i * this.d + c];
    }
    this.#xByColumn = xt;
    this.#xByRow = data.xTrain;
    this.#y = data.yTrain;
    this.numTest = Math.min(numTest, data.yTest.length);
    this.testX = data.xTest.subarray(0, this.numTest * data.d);
    this.#order = newRowOrder(this.n);
    this.#eta = new Float64Array(this.n);
    this.#sp = new Float64Array(this.n);
    this.#stamp = new Int32Array(this.n);
    this.#newEta = new Float64Array(this.n);
    this.#newSp = new Float64Array(this.n);
  }

  /**
   * Run one chain from the one-variable model (the constant at `start0`).
   *
   * @param rng Generator.
   * @param options ε, λ, σs, m, budget.
   * @param start0 The constant's starting coefficient.
   * @returns Predictive means, inclusion, acceptance and cost.
   */
  run(rng: Rng, options: RjChainOptions, start0: number): RjChainResult {
    const d = this.d, n = this.n, numTest = this.numTest, tx = this.testX;
    const beta = new Float64Array(d), prop = new Float64Array(d);
    const gamma = new Uint8Array(d);
    beta[0] = start0;
    gamma[0] = 1;
    let k = 1, l1 = Math.abs(start0);
    const x = this.#xByColumn, y = this.#y, eta = this.#eta, sp = this.#sp, stamp = this.#stamp;
    const newEta = this.#newEta, newSp = this.#newSp;
    stamp.fill(-1);
    let version = 0, moveJ = 0, moveDelta = 0;
    const activeList: number[] = [0];
    // The approximate test draws rows at random: there a row's values are read from the
    // row-major copy, where the |active| values a stale row needs share a few cache lines
    // instead of costing a miss each. The same values in the same order, so the same sums.
    const xr = this.#xByRow;
    const diffRandom = (rows: Int32Array, out: Float64Array): void => {
      for (let q = 0; q < rows.length; q++) {
        const i = rows[q], o = i * d;
        if (stamp[i] !== version) {
          let e = 0;
          for (const c of activeList) e += beta[c] * xr[o + c];
          eta[i] = e;
          sp[i] = _softplus(e);
          stamp[i] = version;
        }
        const step = moveDelta * xr[o + moveJ], e2 = eta[i] + step, s2 = _softplus(e2);
        newEta[i] = e2;
        newSp[i] = s2;
        out[q] = y[i] * step - (s2 - sp[i]);
      }
    };
    const diffSequential = (rows: Int32Array, out: Float64Array): void => {
      for (let q = 0; q < rows.length; q++) {
        const i = rows[q];
        if (stamp[i] !== version) {
          let e = 0;
          for (const c of activeList) e += beta[c] * x[c * n + i];
          eta[i] = e;
          sp[i] = _softplus(e);
          stamp[i] = version;
        }
        const step = moveDelta * x[moveJ * n + i], e2 = eta[i] + step, s2 = _softplus(e2);
        newEta[i] = e2;
        newSp[i] = s2;
        out[q] = y[i] * step - (s2 - sp[i]);
      }
    };
    const etaTest = new Float64Array(numTest), pTest = new Float64Array(numTest);
    for (let t = 0; t < numTest; t++) {
      etaTest[t] = start0 * tx[t * d];
      pTest[t] = _sigmoid(etaTest[t]);
    }
    const sum = new Float64Array(numTest), incl = new Float64Array(d);
    const cps = options.checkpoints ?? new Float64Array(0);
    const predictiveAt: Float64Array[] = [];
    const unit = "passes" in options.budget
      ? "passes"
      : "seconds" in options.budget
      ? "seconds"
      : "steps";
    const budget = "passes" in options.budget
      ? options.budget.passes
      : "seconds" in options.budget
      ? options.budget.seconds
      : options.budget.steps;
    const pB = (kk: number) => rjMoveProbabilities(kk, d).birth;
    const pD = (kk: number) => rjMoveProbabilities(kk, d).death;
    let steps = 0, rows = 0, frac = 0, sizeSum = 0;
    const discard = options.discardSteps ?? 0;
    let upTried = 0, upAcc = 0, jumpTried = 0, jumpAcc = 0, cp = 0;
    const sizeTrace: number[] = [];
    const t0 = performance.now();
    for (;;) {
      prop.set(beta);
      const u = rng.uniform(), b = pB(k), dd = pD(k);
      let j: number, newK = k, offset: number, kind: "update" | "birth" | "death";
      if (u < b) {
        kind = "birth";
        const inactive: number[] = [];
        for (let q = 0; q < d; q++) if (!gamma[q]) inactive.push(q);
        j = inactive[rng.int(inactive.length)];
        prop[j] = options.sigmaBirth * rng.normal();
        newK = k + 1;
        const l1New = l1 + Math.abs(prop[j]);
        offset = rjLogRatio("birth", k, d, l1, l1New, prop[j], options);
      } else if (u < b + dd) {
        kind = "death";
        const activeIdx: number[] = [];
        for (let q = 0; q < d; q++) if (gamma[q]) activeIdx.push(q);
        j = activeIdx[rng.int(activeIdx.length)];
        prop[j] = 0;
        newK = k - 1;
        const l1New = l1 - Math.abs(beta[j]);
        offset = rjLogRatio("death", k, d, l1, l1New, beta[j], options);
      } else {
        kind = "update";
        const activeIdx: number[] = [];
        for (let q = 0; q < d; q++) if (gamma[q]) activeIdx.push(q);
        j = activeIdx[rng.int(activeIdx.length)];
        prop[j] = beta[j] + options.sigmaUpdate * rng.normal();
        const l1New = l1 - Math.abs(beta[j]) + Math.abs(prop[j]);
        offset = rjLogRatio("update", k, d, l1, l1New, 0, options);
      }
      moveJ = j;
      moveDelta = prop[j] - beta[j];
      const r = approxMhTest(rng, {
        numRows: n,
        differencesFn: options.epsilon > 0 ? diffRandom : diffSequential,
        logPriorRatio: offset,
        epsilon: options.epsilon,
        batchSize: options.batchSize,
        rowOrder: this.#order,
      });
      rows += r.numRowsUsed;
      frac += r.fractionOfData;
      steps++;
      if (kind === "update") upTried++;
      else jumpTried++;
      if (r.isAccepted) {
        if (kind === "update") upAcc++;
        else jumpAcc++;
        const delta = prop[j] - beta[j];
        beta[j] = prop[j];
        gamma[j] = kind === "death" ? 0 : 1;
        k = newK;
        const used = this.#order.subarray(0, r.numRowsUsed);
        for (let q = 0; q < used.length; q++) {
          const i = used[q];
          eta[i] = newEta[i];
          sp[i] = newSp[i];
          stamp[i] = version + 1;
        }
        version++;
        activeList.length = 0;
        for (let q = 0; q < d; q++) if (gamma[q]) activeList.push(q);
        l1 = 0;
        for (let q = 0; q < d; q++) l1 += Math.abs(beta[q]);
        for (let t = 0; t < numTest; t++) {
          etaTest[t] += delta * tx[t * d + j];
          pTest[t] = _sigmoid(etaTest[t]);
        }
      }
      const spent = unit === "passes"
        ? rows / n
        : unit === "seconds"
        ? (performance.now() - t0) / 1000
        : steps;
      while (cp < cps.length && cps[cp] < spent) {
        const used = steps - 1 - discard;
        predictiveAt.push(used > 0 ? sum.map((v) => v / used) : Float64Array.from(pTest));
        cp++;
      }
      if (steps > discard) {
        for (let t = 0; t < numTest; t++) sum[t] += pTest[t];
        for (let q = 0; q < d; q++) incl[q] += gamma[q];
        sizeSum += k;
      }
      if (steps % 10 === 0) sizeTrace.push(k);
      if (spent >= budget) break;
    }
    const kept = Math.max(1, steps - discard);
    const predictive = sum.map((v) => v / kept);
    while (predictiveAt.length < cps.length) predictiveAt.push(predictive);
    return {
      predictiveAt,
      predictive,
      inclusion: incl.map((v) => v / kept),
      steps,
      meanSize: sizeSum / kept,
      acceptUpdate: upAcc / Math.max(1, upTried),
      acceptJump: jumpAcc / Math.max(1, jumpTried),
      fractionOfData: frac / steps,
      seconds: (performance.now() - t0) / 1000,
      rows,
      sizeTrace,
    };
  }
}

/** Mean squared difference of two vectors. */
export function meanSquaredError(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return s / a.length;
}

/** Settings of {@link runRjRisk}. */
export interface RjRiskOptions {
  /** Seed. */
  seed: number | string;
  /** Rows of the stand-in (80 % train). */
  n: number;
  /** ε values (0 = exact). */
  epsilons: readonly number[];
  /** Chains per ε. */
  numChains: number;
  /** Steps of the exact ground-truth run (a quarter more are run and dropped first). */
  truthSteps: number;
  /** Budget per chain in full-data passes. */
  passes: number;
  /** Test points in the risk. */
  numTest: number;
  /** λ (default 1). */
  lambda?: number;
  /** Progress. */
  log?: (message: string) => void;
}

/** One ε's outcome in {@link runRjRisk}. */
export interface RjEpsilonOutcome {
  /** ε. */
  readonly epsilon: number;
  /** Risk at each checkpoint. */
  readonly risk: Float64Array;
  /** Per-chain squared error at the end. */
  readonly finalErrors: readonly number[];
  /** Mean steps per chain. */
  readonly stepsPerChain: number;
  /** Mean data per test. */
  readonly fractionOfData: number;
  /** Update and jump acceptance (pooled). */
  readonly acceptUpdate: number;
  /** Birth/death acceptance. */
  readonly acceptJump: number;
  /** Mean model size over the chains' draws. */
  readonly meanSize: number;
  /** Inclusion probabilities pooled over chains. */
  readonly inclusion: Float64Array;
  /** Wall ns per row. */
  readonly nsPerRow: number;
}

/** What {@link runRjRisk} returns. */
export interface RjRiskResult {
  /** The data. */
  readonly data: RjData;
  /** The truth chain. */
  readonly truth: RjChainResult;
  /** Checkpoints (full-data passes). */
  readonly checkpoints: Float64Array;
  /** Per ε. */
  readonly outcomes: readonly RjEpsilonOutcome[];
  /** Classification error of the truth's predictive mean on the risk's test points. */
  readonly truthTestError: number;
  /** σ_update, σ_birth, λ used. */
  readonly settings: { sigmaUpdate: number; sigmaBirth: number; lambda: number };
}

/**
 * Figs. 6–7: the exact ground-truth run, then `numChains` chains per ε from
 * the one-variable model with the same budget in rows.
 *
 * @param options Sizes and seed.
 * @returns Risks, inclusion probabilities, acceptance.
 */
export function runRjRisk(options: RjRiskOptions): RjRiskResult {
  const log = options.log ?? (() => {});
  const data = miniBooNEShaped(options.seed, options.n);
  const sampler = new RjSampler(data, options.numTest);
  const lambda = options.lambda ?? 1;
  const sigmaUpdate = 4.5 / Math.sqrt(sampler.n), sigmaBirth = 0.3, m = 500;
  const start0 = Math.log(0.28 / 0.72);
  const base = { lambda, sigmaUpdate, sigmaBirth, batchSize: m };
  const discard = Math.ceil(options.truthSteps / 4);
  const truth = sampler.run(
    new Rng(`${options.seed}/r16/truth`),
    { ...base, epsilon: 0, budget: { steps: discard + options.truthSteps }, discardSteps: discard },
    start0,
  );
  let wrong = 0;
  for (let t = 0; t < sampler.numTest; t++) {
    wrong += (truth.predictive[t] > 0.5 ? 1 : 0) !== data.yTest[t] ? 1 : 0;
  }
  log(
    `r16 truth: ${truth.steps} exact steps in ${truth.seconds.toFixed(1)} s, mean size ${
      truth.meanSize.toFixed(1)
    }, acceptance update ${truth.acceptUpdate.toFixed(2)} / jump ${truth.acceptJump.toFixed(3)}`,
  );
  const numCheckpoints = 14;
  const checkpoints = Float64Array.from(
    { length: numCheckpoints },
    (_, k) => options.passes * Math.pow(0.03, 1 - k / (numCheckpoints - 1)),
  );
  const outcomes: RjEpsilonOutcome[] = [];
  for (const epsilon of options.epsilons) {
    const risk = new Float64Array(numCheckpoints), finalErrors: number[] = [];
    const inclusion = new Float64Array(data.d);
    let steps = 0, frac = 0, au = 0, aj = 0, size = 0, seconds = 0, rows = 0;
    for (let c = 0; c < options.numChains; c++) {
      const r = sampler.run(
        new Rng(`${options.seed}/r16/${epsilon}`).stream(c),
        { ...base, epsilon, budget: { passes: options.passes }, checkpoints },
        start0,
      );
      for (let q = 0; q < numCheckpoints; q++) {
        risk[q] += meanSquaredError(r.predictiveAt[q], truth.predictive) / options.numChains;
      }
      finalErrors.push(meanSquaredError(r.predictive, truth.predictive));
      for (let j = 0; j < data.d; j++) inclusion[j] += r.inclusion[j] / options.numChains;
      steps += r.steps;
      frac += r.fractionOfData * r.steps;
      au += r.acceptUpdate;
      aj += r.acceptJump;
      size += r.meanSize;
      seconds += r.seconds;
      rows += r.rows;
    }
    const k = options.numChains;
    const o: RjEpsilonOutcome = {
      epsilon,
      risk,
      finalErrors,
      stepsPerChain: steps / k,
      fractionOfData: frac / steps,
      acceptUpdate: au / k,
      acceptJump: aj / k,
      meanSize: size / k,
      inclusion,
      nsPerRow: (seconds * 1e9) / rows,
    };
    outcomes.push(o);
    log(
      `r16 ε = ${epsilon}: ${o.stepsPerChain.toFixed(0)} steps/chain, ${
        (100 * o.fractionOfData).toFixed(1)
      } % data/test, mean size ${o.meanSize.toFixed(1)}, final risk ${
        risk[numCheckpoints - 1].toExponential(2)
      }`,
    );
  }
  return {
    data,
    truth,
    checkpoints,
    outcomes,
    truthTestError: wrong / sampler.numTest,
    settings: { sigmaUpdate, sigmaBirth, lambda },
  };
}

/** Mean and standard error over chains. */
export function meanAndSe(values: readonly number[]): { mean: number; se: number } {
  const k = values.length, mean = values.reduce((a, b) => a + b, 0) / k;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, k - 1));
  return { mean, se: sd / Math.sqrt(k) };
}

/** Run R16. */
async function run(ctx: ExperimentContext): Promise<ExperimentResult> {
  const quick = ctx.quick;
  const n = quick ? 6_500 : 130_065;
  const epsilons = [0, 0.01, 0.05, 0.1];
  const numChains = 10, passes = 30, numTest = quick ? 500 : 2_000;
  const truthSteps = quick ? 3_000 : 6_000;
  await Promise.resolve();
  const res = runRjRisk({
    seed: ctx.seed,
    n,
    epsilons,
    numChains,
    truthSteps,
    passes,
    numTest,
    log: ctx.log,
  });
  const last = res.checkpoints.length - 1;
  const fin = res.outcomes.map((o) => ({ o, ...meanAndSe(o.finalErrors) }));
  const exact = fin.find((f) => f.o.epsilon === 0)!;
  const best = [...fin].sort((a, b) => a.mean - b.mean)[0];
  const bestApprox = [...fin.filter((f) => f.o.epsilon > 0)].sort((a, b) => a.mean - b.mean)[0];
  const diffSe = Math.sqrt(exact.se ** 2 + bestApprox.se ** 2);
  const riskValues: Record<string, string | number>[] = [];
  for (const o of res.outcomes) {
    for (let k = 0; k <= last; k++) {
      riskValues.push({ epsilon: `ε = ${o.epsilon}`, passes: res.checkpoints[k], risk: o.risk[k] });
    }
  }
  const inclValues: Record<string, string | number>[] = [];
  for (let j = 0; j < res.data.d; j++) {
    const feature = j === 0 ? "const" : `x${j}`;
    inclValues.push({ j, feature, series: "exact (ground truth)", p: res.truth.inclusion[j] });
    for (const o of res.outcomes) {
      if (o.epsilon === 0.05) {
        inclValues.push({ j, feature, series: `ε = 0.05, ${numChains} chains`, p: o.inclusion[j] });
      }
    }
    inclValues.push({
      j,
      feature,
      series: "active in the generating model",
      p: res.data.trueBeta[j] !== 0 ? 1 : 0,
    });
  }
  const activeTrue = Array.from(res.data.trueBeta).filter((v, j) => j > 0 && v !== 0).length;
  const au = res.truth.acceptUpdate, aj = res.truth.acceptJump;
  const earlyJump = res.outcomes.find((o) => o.epsilon === 0.1)?.acceptJump ?? NaN;
  const verdicts: Verdict[] = [
    {
      claim: "Fig. 6: the lowest risk in the predictive mean after the budget is at ε > 0",
      paper: "lowest at ε > 0 (ε = 0, 0.01, 0.05, 0.1 over ≈ 3500 s)",
      ours: `lowest at ε = ${best.o.epsilon} (${best.mean.toExponential(2)}); ε = 0: ${
        exact.mean.toExponential(2)
      } ± ${exact.se.toExponential(1)}, ε = ${bestApprox.o.epsilon}: ${
        bestApprox.mean.toExponential(2)
      } ± ${bestApprox.se.toExponential(1)}`,
      outcome: outcomeOf(
        best.o.epsilon > 0 && exact.mean - bestApprox.mean > 2 * diffSe,
        best.o.epsilon > 0,
      ),
      reason:
        "threshold: the best ε > 0 beats ε = 0 by more than 2 standard errors of the difference over " +
        "chains; partly: lowest but within 2 se",
    },
    {
      claim:
        "§5.3: update acceptance ≈ 50 %; birth/death ≈ 20 % early, ≈ 2 % once a good model is found",
      paper: "≈ 50 %; ≈ 20 % → ≈ 2 %",
      ours:
        `update ${(100 * au).toFixed(0)} %; birth/death ${
          (100 * earlyJump).toFixed(0)
        } % in the short ` +
        `ε = 0.1 chains, ${(100 * aj).toFixed(1)} % in the long exact run`,
      outcome: outcomeOf(
        au > 0.35 && au < 0.7 && earlyJump > 0.1 && earlyJump < 0.35 && aj < 0.05,
        au > 0.25 && au < 0.8 && earlyJump > aj,
      ),
      reason:
        "threshold: update in (35 %, 70 %), early birth/death in (10 %, 35 %) and late < 5 % " +
        "(partly: update in (25 %, 80 %) and early > late); σ_update = 4.5/√N is our choice",
    },
    {
      claim:
        "§5.3: from one variable the sampler learns ≈ 12 features with ≈ 15 % classification error",
      paper: "≈ 12 features, ≈ 15 % error",
      ours: `${
        res.truth.meanSize.toFixed(1)
      } features (generating model: ${activeTrue} + constant), ${
        (100 * res.truthTestError).toFixed(1)
      } % error`,
      outcome: outcomeOf(
        res.truth.meanSize >= 8 && res.truth.meanSize <= 20 && res.truthTestError > 0.1 &&
          res.truthTestError < 0.2,
        res.truth.meanSize >= 5 && res.truth.meanSize <= 30,
      ),
      reason:
        "threshold: 8–20 features and 10–20 % error (partly: 5–30 features); the stand-in is built " +
        "with 12 active features, so this checks the sampler finds them, not MiniBooNE itself",
    },
  ];
  const rows = fin.map((f) => [
    f.o.epsilon,
    f.o.stepsPerChain,
    100 * f.o.fractionOfData,
    f.o.acceptUpdate,
    f.o.acceptJump,
    f.o.meanSize,
    f.o.nsPerRow,
    f.mean,
    f.se,
  ]);
  return {
    verdicts,
    summary:
      `MiniBooNE-shaped stand-in (MiniBooNE itself is not in the repository): ${
        n.toLocaleString("en")
      } rows × 50 features + constant (D = 51), ${
        (100 * res.data.positiveRate).toFixed(1)
      } % positive, five-factor correlated features with skewed and heavy-tailed columns, labels from a ` +
      `logistic model with ${activeTrue} active features; 80/20 split. Reversible jump with update, birth ` +
      `and death moves (eqs. 9–12), λ = ${res.settings.lambda}, σ_update = ${
        res.settings.sigmaUpdate.toPrecision(2)
      }, σ_birth = ${res.settings.sigmaBirth} (the paper gives none), m = 500. Ground truth: ${
        truthSteps.toLocaleString("en")
      } exact steps after ${
        Math.ceil(truthSteps / 4).toLocaleString("en")
      } dropped (the paper: 400K); ` +
      `${numChains} chains per ε from the one-variable model, each for ${passes} full-data passes of rows ` +
      `(the paper: ≈ 3500 s). Risk: squared error of the running predictive mean on ${
        res.outcomes.length > 0 ? numTest : 0
      } ` +
      `test points, averaged over points and chains.`,
    tables: [{
      name: "fig6",
      caption:
        `Austerity Fig. 6: steps, data per test, acceptance, model size and the risk in the predictive ` +
        `mean after ${passes} passes, mean ± standard error over ${numChains} chains.`,
      columns: [
        "ε",
        "steps per chain",
        "data per test (%)",
        "update acceptance",
        "birth/death acceptance",
        "mean model size",
        "ns per row",
        "risk at end",
        "risk se",
      ],
      rows,
    }],
    figures: [
      {
        name: "fig6",
        caption:
          "Austerity Fig. 6: risk in the predictive mean of the test points vs full-data passes.",
        spec: {
          $schema: VEGA_LITE_SCHEMA,
          data: { values: riskValues },
          width: 340,
          height: 230,
          mark: { type: "line", point: true },
          encoding: {
            x: {
              field: "passes",
              type: "quantitative",
              scale: { type: "log" },
              title: "full-data passes",
            },
            y: { field: "risk", type: "quantitative", scale: { type: "log" }, title: "risk" },
            color: { field: "epsilon", type: "nominal", title: null },
          },
        },
      },
      {
        name: "fig7",
        caption: "Austerity Fig. 7: marginal probability of each feature being in the model.",
        spec: {
          $schema: VEGA_LITE_SCHEMA,
          data: { values: inclValues },
          width: 520,
          height: 200,
          mark: { type: "point", filled: true },
          encoding: {
            x: { field: "j", type: "quantitative", title: "feature (0 = constant)" },
            y: {
              field: "p",
              type: "quantitative",
              title: "p(γⱼ = 1 | data)",
              scale: { domain: [0, 1] },
            },
            color: { field: "series", type: "nominal", title: null },
            shape: { field: "series", type: "nominal", title: null },
          },
        },
      },
    ],
    comparison: [
      `Fig. 6 — paper: lowest risk at ε > 0 after ≈ 3500 s. Ours after ${passes} passes: ${
        fin.map((f) => `ε = ${f.o.epsilon}: ${f.mean.toExponential(2)}`).join(", ")
      }.`,
      `Acceptance — paper: updates ≈ 50 %, birth/death ≈ 20 % falling to ≈ 2 %. Ours: ${
        (100 * au).toFixed(0)
      } % and ${(100 * aj).toFixed(1)} % in the exact run; ${
        (100 * earlyJump).toFixed(0)
      } % in the short chains.`,
      `Model size — paper ≈ 12 features from one, ≈ 15 % error. Ours: ${
        res.truth.meanSize.toFixed(1)
      }, ${
        (100 * res.truthTestError).toFixed(1)
      } % (stand-in built with ${activeTrue} active features).`,
    ],
  };
}

/** R16 — Austerity Figs. 6–7 (reversible-jump variable selection). */
export const r16AusterityRjmcmc: Experiment = {
  name: "r16",
  title: "R16 — Austerity Figs. 6–7: reversible-jump variable selection in logistic regression",
  source: "austerity-mh_korattikara-2014.md, §5.3, Figs. 6–7",
  run,
};
