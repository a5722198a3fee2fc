/**
 * Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari &
 * Gelman 2018, Algorithm 2): for each replication draw θ̃ from the prior and
 * ỹ from the likelihood, run the sampler on ỹ, keep L thinned draws and
 * record the rank of θ̃ among them, r = #{ℓ : θ_ℓ < θ̃} ∈ {0, …, L}. For an
 * exact sampler the ranks are uniform on {0, …, L}; a χ² test on B bins of
 * the ranks tests that, per parameter.
 *
 * Runs through the API (`sample()`), one chain per replication, on small
 * GLMs with an intercept, one N(0, 1) covariate and, for the Gaussian and
 * negative-binomial families, σ or φ.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { freeGlmData, glmDataFromArrays } from "../data/dataset.ts";
import { GlmModel, type GlmModelFamily } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import { sample } from "../samplers/sample.ts";
import { _logGamma } from "../diagnostics/_special.ts";

/** A sampler of the calibration check. */
export interface SbcSampler {
  /** Label in the report (and in `--pairs`). */
  label: string;
  /** Registered sampler name. */
  sampler: string;
  /** Its options. */
  options: Record<string, unknown>;
  /** Thinning: keep every `thin`-th post-warm-up draw. */
  thin: number;
  /** Warm-up iterations. */
  warmup: number;
  /** Whether the sampler is exact (targets the posterior itself). */
  exact: boolean;
}

/** The samplers checked. */
export const SBC_SAMPLERS: readonly SbcSampler[] = [
  { label: "hmc", sampler: "hmc", options: {}, thin: 4, warmup: 300, exact: true },
  {
    label: "hmc-ecs-signed",
    sampler: "hmc-ecs",
    options: { variant: "signed" },
    thin: 4,
    warmup: 300,
    exact: true,
  },
  {
    label: "hmc-ecs-perturbed",
    sampler: "hmc-ecs",
    options: { variant: "perturbed" },
    thin: 4,
    warmup: 300,
    exact: false,
  },
  { label: "qnhmc", sampler: "qnhmc", options: {}, thin: 4, warmup: 300, exact: true },
  { label: "rwmh", sampler: "rwmh", options: {}, thin: 20, warmup: 1000, exact: true },
  {
    label: "austerity-eps0",
    sampler: "austerity-rwmh",
    options: { epsilon: 0 },
    thin: 20,
    warmup: 1000,
    exact: true,
  },
];

/** The families checked. */
export const SBC_FAMILIES = ["logistic", "poisson", "gaussian", "negative-binomial"] as const;

/** Number of thinned draws per replication (ranks take L + 1 values). */
export const SBC_L = 99;
/** Number of χ² bins (each holds (L + 1)/B rank values). */
export const SBC_BINS = 20;
/** Rows of each simulated data set. */
export const SBC_ROWS = 200;
/** Prior sd of the coefficients. */
export const SBC_PRIOR_SD = 1;
/** Prior of σ (Gaussian) or φ (negative binomial): half-normal with this scale. */
export const SBC_SCALE_PRIOR = { gaussian: 1, "negative-binomial": 5 } as const;

/** Per-parameter calibration result. */
export interface SbcParameter {
  name: string;
  /** Rank counts per bin. */
  histogram: number[];
  chi2: number;
  df: number;
  pValue: number;
}

/** Result of one sampler × family. */
export interface SbcResult {
  sampler: string;
  family: string;
  exact: boolean;
  reps: number;
  /** Replications whose run failed or stopped early (left out of the ranks). */
  failed: number;
  /** The first few failures: replication index and message. */
  failures?: string[];
  L: number;
  thin: number;
  rows: number;
  seconds: number;
  parameters: SbcParameter[];
}

/**
 * Regularised upper incomplete gamma Q(a, x), by the series for x < a + 1
 * and Legendre's continued fraction otherwise (modified Lentz).
 */
export function upperGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lg = _logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a, term = 1 / a;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return 1 - sum * Math.exp(-x + a * Math.log(x) - lg);
  }
  const tiny = 1e-300;
  let b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.exp(-x + a * Math.log(x) - lg) * h;
}

/**
 * χ² test of uniformity of ranks in {0, …, L}, binned into `bins` equal bins
 * ((L + 1) must be a multiple of `bins`).
 *
 * @returns The histogram, the statistic, its degrees of freedom and p-value.
 */
export function rankUniformityTest(
  ranks: ArrayLike<number>,
  L: number,
  bins: number,
): { histogram: number[]; chi2: number; df: number; pValue: number } {
  if ((L + 1) % bins !== 0) throw new RangeError(`L + 1 = ${L + 1} is not a multiple of ${bins}`);
  const width = (L + 1) / bins;
  const histogram = new Array<number>(bins).fill(0);
  for (let i = 0; i < ranks.length; i++) histogram[Math.floor(ranks[i] / width)]++;
  const expected = ranks.length / bins;
  let chi2 = 0;
  for (const h of histogram) chi2 += (h - expected) ** 2 / expected;
  const df = bins - 1;
  return { histogram, chi2, df, pValue: upperGammaQ(df / 2, chi2 / 2) };
}

/** One simulated data set and its true θ (on the sampled scale: log σ, log φ). */
export function simulate(
  family: string,
  rng: Rng,
  rows: number,
): { x: Float64Array; y: Float64Array; theta: number[]; names: string[] } {
  const d = 2;
  const beta = [SBC_PRIOR_SD * rng.normal(), SBC_PRIOR_SD * rng.normal()];
  const x = new Float64Array(rows * d), y = new Float64Array(rows);
  const eta = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    x[i * d] = 1;
    x[i * d + 1] = rng.normal();
    eta[i] = beta[0] + beta[1] * x[i * d + 1];
  }
  const names = ["(Intercept)", "x1"];
  const theta = [...beta];
  switch (family) {
    case "logistic":
      for (let i = 0; i < rows; i++) y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta[i])) ? 1 : 0;
      break;
    case "poisson":
      for (let i = 0; i < rows; i++) y[i] = rng.poisson(Math.exp(eta[i]));
      break;
    case "gaussian": {
      const sigma = Math.abs(SBC_SCALE_PRIOR.gaussian * rng.normal());
      for (let i = 0; i < rows; i++) y[i] = eta[i] + sigma * rng.normal();
      theta.push(Math.log(sigma));
      names.push("log_sigma");
      break;
    }
    case "negative-binomial": {
      const phi = Math.abs(SBC_SCALE_PRIOR["negative-binomial"] * rng.normal());
      // NB2 as a gamma–Poisson mixture: λ ~ Gamma(φ, rate φ/μ), y ~ Poisson(λ).
      for (let i = 0; i < rows; i++) {
        const mu = Math.exp(eta[i]);
        y[i] = rng.poisson(rng.gamma(phi) * mu / phi);
      }
      theta.push(Math.log(phi));
      names.push("log_phi");
      break;
    }
    default:
      throw new RangeError(`unknown SBC family ${family}`);
  }
  return { x, y, theta, names };
}

function _modelFamily(family: string): GlmModelFamily {
  return family === "gaussian" ? "gaussian-scale" : family as GlmModelFamily;
}

/**
 * Run simulation-based calibration of one sampler on one family.
 *
 * @param samplerLabel A label of {@link SBC_SAMPLERS}.
 * @param family One of {@link SBC_FAMILIES}.
 * @param options `reps` replications, `seed`, `rows` per data set, `firstRep`
 *   (default 0; replication k uses data stream k and sampler seed 1000 + k).
 */
export function runSbc(
  samplerLabel: string,
  family: string,
  options: { reps: number; seed?: number; rows?: number; firstRep?: number },
): SbcResult {
  const s = SBC_SAMPLERS.find((x) => x.label === samplerLabel);
  if (s === undefined) {
    throw new RangeError(
      `unknown SBC sampler ${samplerLabel}; known: ${SBC_SAMPLERS.map((x) => x.label)}`,
    );
  }
  if (!(SBC_FAMILIES as readonly string[]).includes(family)) {
    throw new RangeError(`unknown SBC family ${family}; known: ${SBC_FAMILIES}`);
  }
  const rows = options.rows ?? SBC_ROWS;
  const arena = loadCore({ backend: "auto" });
  const root = new Rng(options.seed ?? 1);
  const ranks: number[][] = [];
  let names: string[] = [];
  let failed = 0;
  const failures: string[] = [];
  const t0 = performance.now();
  const first = options.firstRep ?? 0;
  for (let rep = first; rep < first + options.reps; rep++) {
    const rng = root.stream(rep);
    const sim = simulate(family, rng, rows);
    names = sim.names;
    const data = glmDataFromArrays(arena, sim.x, sim.y, { numCols: 2 });
    const scale = family === "gaussian" || family === "negative-binomial"
      ? { scalePrior: { family: "half_normal" as const, scale: SBC_SCALE_PRIOR[family] } }
      : {};
    const model = new GlmModel(data, {
      family: _modelFamily(family),
      priorScale: SBC_PRIOR_SD,
      ...scale,
    });
    try {
      const r = sample(model, {
        sampler: s.sampler,
        ...s.options,
        seed: 1000 + rep,
        numChains: 1,
        numWarmup: s.warmup,
        numSamples: SBC_L * s.thin,
        thin: s.thin,
      });
      const chain = r.draws[0];
      if (r.chains[0].stop !== null || chain[0].length < SBC_L) {
        failed++;
        if (failures.length < 5) {
          failures.push(`rep ${rep}: stopped: ${JSON.stringify(r.chains[0].stop)}`);
        }
        continue;
      }
      const rk = sim.theta.map((t, j) => {
        let c = 0;
        const col = chain[j];
        for (let l = 0; l < SBC_L; l++) if (col[l] < t) c++;
        return c;
      });
      ranks.push(rk);
    } catch (e) {
      failed++;
      if (failures.length < 5) failures.push(`rep ${rep}: ${(e as Error).message}`);
    } finally {
      model.dispose();
      freeGlmData(data);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const parameters = names.map((name, j) => ({
    name,
    ...rankUniformityTest(ranks.map((r) => r[j]), SBC_L, SBC_BINS),
  }));
  return {
    sampler: s.label,
    family,
    exact: s.exact,
    reps: ranks.length,
    failed,
    failures,
    L: SBC_L,
    thin: s.thin,
    rows,
    seconds,
    parameters,
  };
}
