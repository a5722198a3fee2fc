import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";
import { gaussianLinearRegression } from "../../../data/synthetic.ts";
import { mcseMean } from "../../../diagnostics/mcse.ts";
import { essBulk } from "../../../diagnostics/ess.ts";
import { mcseSd } from "../../../diagnostics/mcse.ts";
import { GlmModel } from "../../../models/glm.ts";
import { NormalGammaModel } from "../../../examples/models/normal_gamma.ts";
import { Rng } from "../../../random/rng.ts";
import { parameterDraws, totalCost } from "../../../samplers/driver.ts";
import { passEquivalents, runHmcEcs, signCorrectedMeans } from "../../../samplers/hmc_ecs/mod.ts";
import { metricFromNegativeHessian } from "../../../samplers/metric.ts";
import { runHmc } from "../../../samplers/hmc/run.ts";
import { hmcEcsChainSampler } from "../../../samplers/hmc_ecs/chain_sampler.ts";
import { laplaceDraws, subsetMap } from "../../../subsampling/tuning.ts";

const N = 5000, D = 3, SIGMA = 1, PRIOR_SD = 5;

/** Gaussian linear regression with its exact posterior N(μ, P⁻¹). */
function gaussianProblem(seed: number) {
  const arena = loadCore();
  const { data } = gaussianLinearRegression(arena, { n: N, d: D, sigma: SIGMA, seed });
  const model = new GlmModel(data, { family: "gaussian", sigma: SIGMA, priorScale: PRIOR_SD });
  const x = arena.readF64(data.x, N * D), y = arena.readF64(data.y, N);
  const prec = new Float64Array(D * D), b = new Float64Array(D);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < D; j++) {
      b[j] += (x[i * D + j] * y[i]) / SIGMA ** 2;
      for (let k = 0; k < D; k++) prec[j * D + k] += (x[i * D + j] * x[i * D + k]) / SIGMA ** 2;
    }
  }
  for (let j = 0; j < D; j++) prec[j * D + j] += 1 / PRIOR_SD ** 2;
  const chol = cholesky(prec);
  const mean = cholSolve(chol, b);
  const sd = new Float64Array(D);
  for (let j = 0; j < D; j++) {
    const e = new Float64Array(D);
    e[j] = 1;
    sd[j] = Math.sqrt(cholSolve(chol, e)[j]);
  }
  return { model, x, mean, sd, chol };
}

function cholesky(a: Float64Array): Float64Array {
  const d = Math.round(Math.sqrt(a.length)), l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * d + j];
      for (let k = 0; k < j; k++) s -= l[i * d + k] * l[j * d + k];
      l[i * d + j] = i === j ? Math.sqrt(s) : s / l[j * d + j];
    }
  }
  return l;
}

function cholSolve(l: Float64Array, b: Float64Array): Float64Array {
  const d = b.length, z = Float64Array.from(b);
  for (let i = 0; i < d; i++) {
    for (let k = 0; k < i; k++) z[i] -= l[i * d + k] * z[k];
    z[i] /= l[i * d + i];
  }
  for (let i = d - 1; i >= 0; i--) {
    for (let k = i + 1; k < d; k++) z[i] -= l[k * d + i] * z[k];
    z[i] /= l[i * d + i];
  }
  return z;
}

/**
 * Leading-order perturbation of the perturbed posterior mean (eq. 13). With
 * X = ℓ̂ₘ − σ̂²ₘ/2 and population central moments μ₂, μ₃, μ₄ of dₖ(θ) over
 * the n rows, a cumulant expansion gives
 *   log E_u[L̂ₘ(θ)] − ℓ(θ) ≈ ε(θ) = σ²/(2m) − n³μ₃/(3m²) + n⁴(μ₄ − μ₂²)/(8m³),
 * σ² = n²μ₂/m, so π̄ₘ ∝ π e^ε and the mean shifts by E_π[θe^ε]/E_π[e^ε] − E_π[θ].
 * For the Gaussian model and first-order control variates
 * dₖ(θ) = −½(xₖᵀ(θ − θ*))²/σ² exactly. Returns the shift per coordinate and
 * its importance-sampling standard error from K exact posterior draws.
 */
function perturbationShift(
  p: ReturnType<typeof gaussianProblem>,
  thetaStar: Float64Array,
  m: number,
): { shift: Float64Array; se: Float64Array } {
  const K = 3000, rng = new Rng(99), n = N;
  const draws: Float64Array[] = [], w: number[] = [];
  const dk = new Float64Array(n);
  for (let k = 0; k < K; k++) {
    // θ = μ + L⁻ᵀz
    const z = new Float64Array(D).map(() => rng.normal());
    for (let i = D - 1; i >= 0; i--) {
      for (let r = i + 1; r < D; r++) z[i] -= p.chol[r * D + i] * z[r];
      z[i] /= p.chol[i * D + i];
    }
    const theta = p.mean.map((v, j) => v + z[j]);
    let s1 = 0;
    for (let i = 0; i < n; i++) {
      let e = 0;
      for (let j = 0; j < D; j++) e += p.x[i * D + j] * (theta[j] - thetaStar[j]);
      dk[i] = (-0.5 * e * e) / SIGMA ** 2;
      s1 += dk[i];
    }
    const mu = s1 / n;
    let m2 = 0, m3 = 0, m4 = 0;
    for (let i = 0; i < n; i++) {
      const c = dk[i] - mu;
      m2 += (c * c) / n;
      m3 += (c * c * c) / n;
      m4 += (c * c * c * c) / n;
    }
    const s2 = (n * n * m2) / m;
    const eps = s2 / (2 * m) - (n ** 3 * m3) / (3 * m * m) +
      (n ** 4 * (m4 - m2 * m2)) / (8 * m ** 3);
    draws.push(theta);
    w.push(eps);
  }
  const wmax = Math.max(...w);
  const ww = w.map((v) => Math.exp(v - wmax));
  const wsum = ww.reduce((a, b) => a + b, 0);
  const shift = new Float64Array(D), se = new Float64Array(D);
  for (let j = 0; j < D; j++) {
    let plain = 0, weighted = 0;
    for (let k = 0; k < K; k++) {
      plain += draws[k][j] / K;
      weighted += (ww[k] * draws[k][j]) / wsum;
    }
    shift[j] = weighted - plain;
    let v = 0;
    for (let k = 0; k < K; k++) {
      const r = (K * ww[k]) / wsum;
      v += ((r - 1) * (draws[k][j] - plain)) ** 2;
    }
    se[j] = Math.sqrt(v) / K;
  }
  return { shift, se };
}

Deno.test("runHmcEcs() claim: perturbed HMC-ECS recovers the exact Gaussian-regression posterior mean", () => {
  // First-order control variates (second-order ones are exact for a Gaussian
  // likelihood). Tolerance: 4 MCSE of the chain mean plus the predicted
  // O(1/(nm²)) perturbation of the target and 4 of its IS standard errors.
  const p = gaussianProblem(11);
  const r = runHmcEcs(p.model, {
    controlVariateOrder: 1,
    seed: 5,
    numChains: 2,
    numWarmup: 600,
    numSamples: 2000,
  });
  const tuning = r.chains[0].tuning;
  const m = tuning.subsampleSize as number;
  assert.ok(m >= 2);
  const { shift, se } = perturbationShift(p, tuning.thetaStar as Float64Array, m);
  for (let j = 0; j < D; j++) {
    const chains = parameterDraws(r, j);
    const est = chains.flatMap((c) => Array.from(c)).reduce((a, b) => a + b, 0) / (2 * r.numDraws);
    const mcse = mcseMean(chains);
    const tol = 4 * mcse + Math.abs(shift[j]) + 4 * se[j];
    assert.ok(
      Math.abs(est - p.mean[j]) < tol,
      `θ${j}: ${est} vs exact ${p.mean[j]} (tol ${tol}, mcse ${mcse}, shift ${shift[j]})`,
    );
  }
  const accU = r.chains[0].info.sampling.subsampleAcceptanceRate;
  assert.ok(accU.every((a) => a >= 0 && a <= 1));
});

/**
 * A logistic regression (n = 5000, d = 3) and its posterior mean by
 * self-normalised importance sampling from a Gaussian proposal centred at the
 * full-data MAP with 1.5² × the Laplace covariance, with its delta-method
 * standard error: an independent, unbiased-in-the-limit reference.
 */
function logisticProblem(seed: number) {
  const arena = loadCore();
  const rng = new Rng(seed);
  const beta = [-0.5, 1, -0.7];
  const x = new Float64Array(N * D), y = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let eta = 0;
    for (let j = 0; j < D; j++) {
      x[i * D + j] = j === 0 ? 1 : rng.normal();
      eta += beta[j] * x[i * D + j];
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: D }), {
    family: "logistic",
    priorScale: PRIOR_SD,
  });
  const fit = subsetMap(model, rng, { fraction: 1 });
  const K = 20000, scale = 1.5;
  const draws = laplaceDraws(fit.thetaStar, { precision: fit.precision, count: K, rng, scale });
  const lw = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    let quad = 0;
    for (let i = 0; i < D; i++) {
      for (let j = 0; j < D; j++) {
        quad += (draws[k][i] - fit.thetaStar[i]) * fit.precision[i * D + j] *
          (draws[k][j] - fit.thetaStar[j]);
      }
    }
    lw[k] = model.logDensity(draws[k]) + quad / (2 * scale * scale);
  }
  const mx = Math.max(...lw);
  const w = lw.map((v) => Math.exp(v - mx)), ws = w.reduce((a, b) => a + b, 0);
  const mean = new Float64Array(D), se = new Float64Array(D);
  for (let j = 0; j < D; j++) {
    for (let k = 0; k < K; k++) mean[j] += (w[k] * draws[k][j]) / ws;
    let v = 0;
    for (let k = 0; k < K; k++) v += (w[k] * (draws[k][j] - mean[j])) ** 2;
    se[j] = Math.sqrt(v) / ws;
  }
  return { model, mean, se };
}

Deno.test("runHmcEcs() claim: signed HMC-ECS sign-corrected means recover the posterior mean", () => {
  // Logistic regression with second-order control variates (for a Gaussian
  // likelihood they are exact and the estimator would be trivially exact).
  // Î_R = Σθs/Σs (eq. 17); its MCSE by the delta method is the MCSE of the
  // mean of zⱼ = sⱼ(θⱼ − Î_R)/s̄. Tolerance: 4 × √(MCSE² + SE_IS²).
  const p = logisticProblem(12);
  const r = runHmcEcs(p.model, {
    variant: "signed",
    seed: 6,
    numChains: 2,
    numWarmup: 600,
    numSamples: 2000,
  });
  const means = signCorrectedMeans(r);
  const signs = r.chains.map((c) => c.info.sampling.sign);
  const sbar = signs.flatMap((s) => Array.from(s)).reduce((a, b) => a + b, 0) / (2 * r.numDraws);
  assert.ok(sbar > 0);
  for (let j = 0; j < D; j++) {
    const z = parameterDraws(r, j).map((c, ci) =>
      c.map((v, k) => (signs[ci][k] * (v - means[j])) / sbar)
    );
    const mcse = mcseMean(z);
    const tol = 4 * Math.hypot(mcse, p.se[j]);
    assert.ok(
      Math.abs(means[j] - p.mean[j]) < tol,
      `θ${j}: ${means[j]} vs reference ${p.mean[j]} (tol ${tol})`,
    );
  }
  assert.equal(r.chains[0].tuning.variant, "signed");
  assert.ok((r.chains[0].tuning.numProducts as number) >= 50);
  const mb = r.chains[0].tuning.batchSize as number;
  assert.ok(Number.isInteger(mb) && mb >= 2 && mb <= 30, `batch size ${mb}`);
});

/**
 * ℓ and ∇ℓ rows of iteration i as the GLM path counts them: the proposed
 * block's b ℓ rows; when u' is accepted, m (ℓ and ∇ℓ) rows, or only the
 * block's group of 4 positions (`group`) when the previous trajectory was
 * accepted, so that every other row's values at θ are known; m per leapfrog step.
 */
function rowsOfIteration(
  info: Record<string, Float64Array>,
  i: number,
  atLatest: boolean,
  m: number,
  b: number,
  group: number,
): { ll: number; grad: number } {
  const steps = info.numIntegrationSteps[i] * m;
  const refresh = info.isSubsampleAccepted[i] ? (atLatest ? group : m) : 0;
  return { ll: b + refresh + steps, grad: refresh + steps };
}

Deno.test("runHmcEcs() claim: every row evaluation is counted (u-step block, re-evaluation, leapfrog)", () => {
  // With θ* given and no re-centring, sampling cost per iteration is exactly
  // b log-likelihood rows for the proposed block, plus m (ℓ and ∇) rows when
  // u' is accepted (4 when the other rows' values at θ are known), plus m
  // per leapfrog step.
  const p = gaussianProblem(13);
  const m = 200, G = 100;
  const r = runHmcEcs(p.model, {
    controlVariateOrder: 1,
    thetaStar: p.mean,
    subsampleSize: m,
    numBlocks: G,
    seed: 7,
    numChains: 1,
    numWarmup: 50,
    numSamples: 300,
    updateEvery: 0,
  });
  const info = r.chains[0].info.sampling, warm = r.chains[0].info.warmup;
  let ll = 0, grad = 0, reused = 0;
  for (let i = 0; i < 300; i++) {
    const atLatest = (i === 0 ? warm.isAccepted[49] : info.isAccepted[i - 1]) === 1;
    const k = rowsOfIteration(info, i, atLatest, m, m / G, 4); // blocks of 2 in groups of 4
    ll += k.ll;
    grad += k.grad;
    if (atLatest && info.isSubsampleAccepted[i]) reused++;
    assert.equal(info.numRowsEvaluated[i], k.ll);
  }
  assert.ok(reused > 100, `${reused} re-evaluations reused the rows' values`);
  const c = totalCost(r, "sampling");
  assert.equal(c.numLogLikRows, ll);
  assert.equal(c.numGradRows, grad);
  assert.equal(c.numHessianRows, 0);
  // Warmup includes the initial full-data pass of the control variates.
  assert.ok(totalCost(r, "warmup").numLogLikRows >= N);
});

Deno.test("runHmcEcs() claim: Hessian rows are counted apart from gradient rows, and pass-equivalents weigh them by w", () => {
  // θ* given, no Newton steps (so B is the exact full-data Hessian) and no
  // re-centring: the warm-up's only Hessian evaluation is that one pass of N
  // rows, and its ℓ and ∇ℓ rows are the centring's N + N plus the
  // iterations' (counted by the u-step and leapfrog, as in the test above).
  const p = gaussianProblem(13);
  const m = 200, G = 100, numWarmup = 20;
  const r = runHmcEcs(p.model, {
    controlVariateOrder: 2,
    thetaStar: p.mean,
    maxNewtonSteps: 0,
    subsampleSize: m,
    numBlocks: G,
    seed: 7,
    numChains: 1,
    numWarmup,
    numSamples: 10,
    updateEvery: 0,
  });
  const w = r.chains[0].cost.warmup, s = r.chains[0].cost.sampling;
  assert.equal(w.numHessianRows, N);
  assert.equal(s.numHessianRows, 0);
  const info = r.chains[0].info.warmup;
  let grad = 0;
  for (let i = 0; i < numWarmup; i++) {
    // The first u-step is at the initial state, evaluated last.
    const atLatest = i === 0 || info.isAccepted[i - 1] === 1;
    grad += rowsOfIteration(info, i, atLatest, m, m / G, 4).grad;
  }
  // The initial state's estimate and gradient (m rows) and the step-size
  // search's trial steps touch rows as well: at least the centring's N.
  assert.ok(w.numGradRows >= N + grad, `${w.numGradRows} gradient rows, expected ≥ ${N + grad}`);
  assert.ok(w.numGradRows < N + grad + 10 * m, `${w.numGradRows} gradient rows`);
  const pe = passEquivalents(w, { numRows: N, hessianCostRatio: 3 });
  assert.equal(pe.hessianPasses, 3);
  assert.equal(pe.gradientPasses, (w.numLogLikRows + w.numGradRows) / (2 * N));
});

Deno.test("runHmcEcs() claim: Newton centring moves a far θ* to the full-data MAP and close windows skip re-centring", () => {
  // θ* = 0 is ≈ 30 posterior sds from the MAP of this logistic posterior, so
  // the centring first takes a 10 % subset MAP, then full-data Newton steps
  // until the decrement gᵀP⁻¹g/d < 0.1. The warmup windows' means then lie
  // within Monte Carlo error (≈ IF/100 sd² per dimension) of θ*, far below the
  // 0.1 tolerance, so all three scheduled re-centrings are skipped; with
  // tolerance 0 every one of them is made (the paper's schedule).
  const p = logisticProblem(21);
  const map = subsetMap(p.model, new Rng(1), { fraction: 1 });
  const common = {
    thetaStar: new Float64Array(D),
    seed: 4,
    numChains: 1,
    numWarmup: 400,
    numSamples: 100,
    updateEvery: 100,
    // The exact-Hessian Newton path at the former default tolerance (the
    // one-pass default is checked by the pass-equivalents test below).
    hessianFraction: 1,
    recenterTolerance: 0.1,
  };
  const r = runHmcEcs(p.model, common);
  const t = r.chains[0].tuning;
  const newton = t.numNewtonSteps as number;
  assert.ok(newton >= 2, `expected a subset step and a Newton step, got ${newton} passes`);
  assert.equal(t.numSkippedCenterings, 3);
  assert.equal(t.numCenterings, 1 + newton);
  const star = Float64Array.from(Object.values(t.thetaStar as Record<string, number>));
  let q = 0;
  for (let i = 0; i < D; i++) {
    for (let j = 0; j < D; j++) {
      q += (star[i] - map.thetaStar[i]) * map.precision[i * D + j] * (star[j] - map.thetaStar[j]);
    }
  }
  assert.ok(q / D < 0.1, `θ* is ${q / D} sd² per dimension from the MAP`);

  const paper = runHmcEcs(p.model, { ...common, recenterTolerance: 0 });
  assert.equal(paper.chains[0].tuning.numSkippedCenterings, 0);
  const paperNewton = paper.chains[0].tuning.numNewtonSteps as number;
  assert.equal(paper.chains[0].tuning.numCenterings, 1 + paperNewton + 3);
  const noNewton = runHmcEcs(p.model, { ...common, maxNewtonSteps: 0 });
  assert.equal(noNewton.chains[0].tuning.numNewtonSteps, 0);
  // Skipping saves the three re-centring passes' 3N log-likelihood rows
  // (the paper run's extra Newton steps cost more still).
  const ll = (x: typeof r) => totalCost(x, "warmup").numLogLikRows;
  assert.ok(ll(paper) - ll(r) >= 3 * N, `${ll(paper)} vs ${ll(r)}`);
});

Deno.test("[e2e] runHmcEcs() claim: warm-up costs at most 3 full-data pass-equivalents on a 1e5-row logistic problem, and the posterior matches full-data HMC", () => {
  // Pass-equivalents (samplers/hmc_ecs/passes.ts): ℓ and ∇ℓ rows / (2n) plus
  // w × Hessian rows / n, w = t(Hessian pass)/t(gradient pass). The row counts
  // are fixed by the seed; w is a time ratio that moves with the machine's load
  // (6.1 was measured with other test files running beside this one), so it is
  // fixed here at 1.5 (this file run alone measured w < 1.67 at d = 10), and the
  // claim is checked on the rows.
  // The warm-up: subset MAP, one full-data pass at it, one Newton step with
  // its exact gradient, one full-data centring at the Newton point with a
  // subsample Hessian, pilot for m, ε by dual averaging over the iterations.
  // The iterations cost (L + 1 + 1)·m rows each whatever n is, so at this small
  // n (the claim is for n ≥ 1e6, where 1000 iterations cost ≈ 0.4 passes)
  // the warm-up is 100 iterations from the Laplace metric.
  const n = 100_000, d = 10;
  const rng = new Rng(2024);
  const beta = Array.from({ length: d }, (_, j) => (j === 0 ? 0.2 : 0.5 * rng.normal()));
  const x = new Float64Array(n * d), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      x[i * d + j] = j === 0 ? 1 : rng.normal();
      eta += beta[j] * x[i * d + j];
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(loadCore(), x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 10,
  });
  const w = 1.5;
  const ecs = runHmcEcs(model, { seed: 5, numChains: 1, numWarmup: 100, numSamples: 6000 });
  const tuning = ecs.chains[0].tuning;
  const passes = passEquivalents(ecs.chains[0].cost.warmup, {
    numRows: n,
    hessianCostRatio: w,
  });
  // The subset MAP's Newton steps and the subsample Hessian are part of it.
  assert.ok(passes.hessianPasses > 0, "the warm-up evaluated no Hessian rows");
  assert.ok(
    passes.total <= 3,
    `warm-up took ${passes.total.toFixed(3)} pass-equivalents (${
      passes.gradientPasses.toFixed(3)
    } of ℓ and ∇ℓ, ${passes.hessianPasses.toFixed(3)} of Hessians at w = ${w.toFixed(2)})`,
  );
  assert.equal(tuning.numCenterings, 2);

  // Full-data HMC from the MAP with the Laplace metric at the MAP.
  const map = subsetMap(model, new Rng(1), { fraction: 1 });
  const hmc = runHmc(model, {
    seed: 9,
    numChains: 1,
    numWarmup: 150,
    numSamples: 2000,
    metric: metricFromNegativeHessian(map.precision.map((v) => -v)),
    initialPosition: map.thetaStar,
  });
  const meanSd = (a: Float64Array) => {
    let s = 0, q = 0;
    for (const v of a) s += v;
    const m = s / a.length;
    for (const v of a) q += (v - m) ** 2;
    return [m, Math.sqrt(q / (a.length - 1))];
  };
  for (let j = 0; j < d; j++) {
    const [me, se] = meanSd(parameterDraws(ecs, j)[0]);
    const [mh, sh] = meanSd(parameterDraws(hmc, j)[0]);
    assert.ok(Math.abs(me - mh) <= 0.1 * sh, `θ${j}: mean ${me} vs HMC's ${mh} (sd ${sh})`);
    assert.ok(Math.abs(se / sh - 1) <= 0.1, `θ${j}: sd ${se} vs HMC's ${sh}`);
  }
});

Deno.test("runHmcEcs() rejects bad re-centring options with messages naming the value", () => {
  const p = gaussianProblem(3);
  assert.throws(
    () => runHmcEcs(p.model, { recenterTolerance: -1, seed: 1, numWarmup: 10, numSamples: 10 }),
    /recenterTolerance must be a finite number ≥ 0, got -1/,
  );
  assert.throws(
    () => runHmcEcs(p.model, { maxNewtonSteps: 1.5, seed: 1, numWarmup: 10, numSamples: 10 }),
    /maxNewtonSteps must be a non-negative integer, got 1.5/,
  );
});

Deno.test("runHmcEcs() claim: on a non-GLM DataModel (normal-gamma, per-row Hessians in TypeScript) both variants recover the exact posterior mean and sd", async (t) => {
  // x ~ N(1, 2²), n = 20000: the exact Normal-Gamma posterior moments.
  // Tolerance: 4 MCSE for the mean and the sd (signed: all signs must be
  // +1 here, so the sign-corrected mean is the plain mean), after checking
  // the bulk-ESS the MCSE relies on.
  const rng = new Rng(3);
  const x = Float64Array.from({ length: 20000 }, () => 1 + 2 * rng.normal());
  const model = new NormalGammaModel(x);
  const exact = model.posteriorMoments();
  for (const variant of ["perturbed", "signed"] as const) {
    await t.step(variant, () => {
      const r = runHmcEcs(model, {
        variant,
        seed: 2,
        numChains: 2,
        numWarmup: 500,
        numSamples: 1500,
        initialPosition: new Float64Array([0, 1]),
      });
      const means = signCorrectedMeans(r);
      for (let j = 0; j < 2; j++) {
        const chains = parameterDraws(r, j);
        const ess = essBulk(chains);
        assert.ok(ess > 1000, `ESS ${ess} of ${model.parameterNames[j]} is too small for MCSE`);
        const all = chains.flatMap((c) => Array.from(c));
        const mean = all.reduce((a, b) => a + b, 0) / all.length;
        assert.equal(means[j], mean);
        const sd = Math.sqrt(all.reduce((a, b) => a + (b - mean) ** 2, 0) / (all.length - 1));
        const exactSd = Math.sqrt(exact.variance[j]);
        const tolMean = 4 * mcseMean(chains), tolSd = 4 * mcseSd(chains);
        assert.ok(
          Math.abs(mean - exact.mean[j]) < tolMean,
          `${variant} mean ${j}: ${mean} vs exact ${exact.mean[j]} (tol ${tolMean})`,
        );
        assert.ok(
          Math.abs(sd - exactSd) < tolSd,
          `${variant} sd ${j}: ${sd} vs exact ${exactSd} (tol ${tolSd})`,
        );
      }
      assert.equal(r.chains[0].tuning.variant, variant);
    });
  }
});

Deno.test("runHmcEcs() claim: a divergent trajectory is data — flagged in info, and the run returns all its draws", () => {
  // ε = 50 on a normal-gamma posterior whose sds are ≈ 0.01: trajectories
  // leave γ > 0 (non-finite log density) or blow up the energy.
  const model = new NormalGammaModel(
    Float64Array.from({ length: 2000 }, (_, i) => 1 + 2 * Math.sin(1.3 * i)),
  );
  const r = runHmcEcs(model, {
    seed: 1,
    numChains: 1,
    numWarmup: 0,
    numSamples: 50,
    stepSize: 50,
    numIntegrationSteps: 3,
    initialPosition: new Float64Array([0, 1]),
  });
  const info = r.chains[0].info.sampling;
  assert.equal(r.draws[0][0].length, 50);
  assert.ok(info.isDivergent.every((v) => v === 1), "every step should diverge at ε = 50");
  assert.ok(r.draws[0].every((p) => p.every(Number.isFinite)));
});

/** A small logistic regression (d = 3) of `n` rows. */
function smallLogistic(n: number, seed: number): GlmModel {
  const arena = loadCore();
  const rng = new Rng(seed);
  const x = new Float64Array(n * D), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = rng.normal(), b = rng.normal();
    x.set([1, a, b], i * D);
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-(0.5 + a - b))) ? 1 : 0;
  }
  return new GlmModel(glmDataFromArrays(arena, x, y, { numCols: D }), { family: "logistic" });
}

Deno.test("hmcEcsChainSampler() claim: on data too small for subsampling it refuses, naming the fix, or stops a chain that runs off", async (t) => {
  await t.step("n = 30, 50, 60 rows (m = n/10 < 2(d + 1)): refused before sampling", () => {
    // Before: coefficients of ±10²–10³ (posterior sd 0.5) reported as a result.
    for (const n of [30, 50, 60]) {
      assert.throws(
        () => hmcEcsChainSampler(smallLogistic(n, n), {}),
        (e: Error) =>
          e instanceof RangeError &&
          new RegExp(`n = ${n} rows for d = 3 .* at least 2\\(d \\+ 1\\) = 8 .*--sampler hmc`)
            .test(e.message),
      );
    }
  });
  await t.step("m ≥ n, a batch as large as the data, fewer rows than 2(d + 1): refused", () => {
    const model = smallLogistic(200, 1);
    assert.throws(
      () => hmcEcsChainSampler(model, { subsampleSize: 200 }),
      /subsampleSize must be < n = 200, got 200/,
    );
    assert.throws(
      () => hmcEcsChainSampler(model, { variant: "signed", batchSize: 500 }),
      /batchSize must be < n = 200, got 500/,
    );
    assert.throws(
      () => hmcEcsChainSampler(smallLogistic(5, 1), { variant: "signed" }),
      /got n = 5/,
    );
  });
  await t.step("n = 200: runs and agrees with full-data HMC's scale (|θ| < 5)", () => {
    const r = runHmcEcs(smallLogistic(200, 2), {
      seed: 1,
      numWarmup: 200,
      numSamples: 100,
      numChains: 1,
    });
    assert.equal(r.chains[0].stop, null);
    assert.ok(r.chains[0].draws.every((d) => d.every((v) => Math.abs(v) < 5)));
  });
  await t.step("a step that leaves θ far from θ* stops the chain, saying why", () => {
    const sampler = hmcEcsChainSampler(smallLogistic(200, 3), { numWarmup: 0 });
    const rng = new Rng(1);
    const s = sampler.init(new Float64Array(D), rng);
    assert.equal(sampler.step(rng, s, "sampling", 0).stop, undefined);
    // Put θ 10³ posterior sds away, as a chain on an improper estimate drifts.
    s.kernel.hmc.position.set([300, -300, 300]);
    const r = sampler.step(rng, s, "sampling", 1);
    assert.match(r.stop ?? "", /ran off to \d+ posterior sds .*--sampler hmc/);
    sampler.dispose(s);
  });
});

Deno.test("HMC-ECS log density: a point outside the likelihood's domain is −∞ (a divergent leapfrog step), other errors still throw", async () => {
  const { logDensityFn } = await import("../../../samplers/hmc_ecs/kernel.ts");
  const { invalidArgumentError } = await import("../../../core/reference.ts");
  const { positiveDefinitePrecision } = await import("../../../samplers/hmc_ecs/centring.ts");
  const prior = (_t: Float64Array, g: Float64Array) => (g.fill(0), 0);
  const estimate = { value: 0, variance: 0, sign: 1 };
  const throwing = (err: Error) =>
    ({
      evaluate: () => {
        throw err;
      },
    }) as unknown as Parameters<typeof logDensityFn>[0];
  const last = { estimate, gradient: new Float64Array(2) };
  const grad = new Float64Array(2);
  const f = logDensityFn(throwing(invalidArgumentError(4, -786.17)), prior, last);
  assert.equal(f(new Float64Array([0, -786.17]), grad), -Infinity);
  const g = logDensityFn(throwing(new RangeError("other")), prior, last);
  assert.throws(() => g(new Float64Array([0, 0]), grad), /other/);
  // An indefinite precision (far from the mode) is shrunk toward its diagonal;
  // a positive-definite one is returned as it is.
  const indefinite = new Float64Array([1, 2, 2, 1]);
  const p = positiveDefinitePrecision(indefinite);
  assert.ok(p[0] > 0 && p[0] * p[3] - p[1] * p[2] > 0, `${p}`);
  const pd = new Float64Array([2, 1, 1, 2]);
  assert.equal(positiveDefinitePrecision(pd), pd);
});
