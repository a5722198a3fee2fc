/**
 * `tallmc sample --sampler hmc-ecs --data postgres://…?table=T&key=K` (or
 * `clickhouse://…`) with the rows left in the engine: the model is an
 * `engines/database_glm.ts` GLM, which fetches each subsample update's rows
 * by key and runs every full-data pass (HMC-ECS's centring at θ*, its Newton
 * steps) as SQL where the rows are. Nothing of size n is read into this
 * process and no temporary file is written.
 *
 * The flags are interpreted exactly as for a file: the first
 * {@link PROBE_ROWS} rows (in key order) are read into a private CSV file and
 * the command line's own model builder runs on it; the database model is
 * then opened with that model's columns, response, family and prior, and its
 * rows by key must equal the builder's rows bit for bit. When they cannot —
 * a flag whose meaning needs every row in this process — the caller reads
 * the whole table instead, and says why:
 *
 * ```
 *  --formula, --prior, --prior-intercept, --prior-file, --standardize
 *                       default priors and transforms from all rows' moments
 *  --f32                the rows would be rounded in this process only
 *  --offset/--trials/--success, a text response, a family with a scale
 *                       not in the SQL (only logistic, poisson, gaussian with --sigma)
 *  no &key=COLUMN       rows are fetched by key
 *  --sampler ≠ hmc-ecs  every other sampler needs every row at every step
 * ```
 *
 * The centring is made once for all chains ({@link databaseCentring}):
 * Newton from a strided subset's MAP to the full-data MAP, each step one SQL
 * pass (S, A, B at θ), and the sums at the last θ are HMC-ECS's precomputed
 * `centring` for every chain. So the SQL passes do not grow with --chains;
 * the chains start apart, each at its own draw from the Laplace
 * approximation at θ* (or at --init).
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import { freeGlmData, glmDataFromArrays } from "../data/dataset.ts";
import type { DatabaseGlmModel } from "../engines/database_glm.ts";
import type { ExternalGlmModel } from "../models/external_glm.ts";
import { cholesky, choleskySolve } from "../math/linalg.ts";
import { GlmModel } from "../models/glm.ts";
import { Rng } from "../random/rng.ts";
import type { PrecomputedCentring } from "../samplers/hmc_ecs/options.ts";
import { hasModelFlags } from "./model_flags.ts";

/** Rows read to interpret the flags and to check the database model against. */
export const PROBE_ROWS = 1000;

/**
 * Why the rows must be read into this process (a reason for a note), or null
 * when the database model may serve them.
 *
 * @param url The `--data` URL, or the key column of a source named otherwise (DuckDB).
 * @param values The parsed flags.
 * @param samplerName The sampler.
 * @returns The reason, or null.
 */
export function databaseRefusal(
  url: string | { key: string | null },
  values: Record<string, unknown>,
  samplerName: string,
): string | null {
  if (samplerName !== "hmc-ecs") {
    return `--sampler ${samplerName} evaluates every row at every step (only hmc-ecs fetches rows by key)`;
  }
  if (values["family-source"] !== undefined) {
    return "--family-source: a family written in AssemblyScript is evaluated in this process, not as SQL";
  }
  let key: string | null = null;
  if (typeof url !== "string") key = url.key;
  else {
    try {
      key = new URL(url).searchParams.get("key");
    } catch {
      return null; // the reader names the bad URL
    }
  }
  if (!key) return "the URL names no &key=COLUMN to fetch rows by";
  if (hasModelFlags(values)) {
    return "--formula, --prior, --prior-intercept, --prior-file and --standardize take defaults or transforms from every row";
  }
  if (values.f32) return "--f32 stores rows rounded in this process";
  for (const f of ["offset", "trials", "success"]) {
    if (values[f] !== undefined) return `--${f} is a per-row column the row source does not carry`;
  }
  return null;
}

/**
 * How {@link openDatabaseModel} reaches an engine other than PostgreSQL and
 * ClickHouse (DuckDB: ./duckdb_data.ts).
 */
export interface DatabaseEngine {
  /** The first `limit` rows in key order, as a private CSV file. */
  probe(limit: number): Promise<{ path: string; remove: () => Promise<void> }>;
  /** The model over the rows left in the engine, with `glm`'s family, prior and columns. */
  open(glm: GlmModel): Promise<DatabaseGlmModel>;
}

/**
 * Open the database model for the flags, or say why not.
 *
 * @param url The `--data` URL.
 * @param response The `--response` column.
 * @param build The command line's model builder, run on a CSV file.
 * @param engine How to read the probe and open the model (default: the
 *   URL's PostgreSQL or ClickHouse table through engines/database_glm.ts).
 * @returns The model, or the reason to read the whole table instead (an
 *   engine's refusal of the family, in its words).
 */
export async function openDatabaseModel(
  url: string,
  response: string,
  build: (path: string) => Promise<GlmModel>,
  engine?: DatabaseEngine,
): Promise<{ model: DatabaseGlmModel } | { reason: string }> {
  const { probe: readProbe, open } = engine ?? await _urlEngine(url, response);
  const probe = await readProbe(PROBE_ROWS);
  let glm: GlmModel;
  try {
    glm = await build(probe.path);
  } finally {
    await probe.remove();
  }
  if (glm.options.offset !== undefined || glm.options.trials !== undefined) {
    return { reason: "the family's per-row column is not carried by the row source" };
  }
  let model: DatabaseGlmModel;
  try {
    model = await open(glm);
  } catch (e) {
    return { reason: (e as Error).message };
  }
  const why = probeMismatch(glm, model);
  if (why !== null) {
    model.close();
    return { reason: why };
  }
  model.fetches.numQueries = model.fetches.numRows = model.fetches.numPasses = 0;
  return { model };
}

/**
 * Why the model's first rows, read by index, are not the rows `glm` was
 * built on (the builder transformed or recoded them, or they cannot be
 * read), or null when they are the same bit for bit.
 *
 * @param glm The model the command line's builder made from the first rows.
 * @param model The model over all the rows.
 * @returns The reason, or null.
 */
export function probeMismatch(glm: GlmModel, model: ExternalGlmModel): string | null {
  const names = glm.data.columnNames;
  const k = glm.numRows, d = glm.numCols;
  const x = new Float64Array(k * d), y = new Float64Array(k);
  try {
    model.readRows(Int32Array.from({ length: k }, (_, i) => i), x, y);
  } catch (e) {
    return (e as Error).message;
  }
  const v = dataViews(glm.data);
  for (let i = 0; i < k * d; i++) {
    if (x[i] !== v.x[i]) {
      return `column ${names[i % d]} of row ${Math.floor(i / d)} is transformed by the flags`;
    }
  }
  for (let i = 0; i < k; i++) {
    if (y[i] !== v.y[i]) return `the response of row ${i} is recoded by the flags`;
  }
  return null;
}

/** PostgreSQL or ClickHouse: the URL's table through engines/database_glm.ts. */
async function _urlEngine(url: string, response: string): Promise<DatabaseEngine> {
  const { databaseTableToCsv } = await import("../engines/database_rows.ts");
  const { openDatabaseGlm } = await import("../engines/database_glm.ts");
  return {
    probe: (limit) => databaseTableToCsv(url, { limit }),
    open(glm) {
      if (glm.dim !== glm.numCols) {
        throw new Error(
          `family ${glm.family} has a scale parameter the centring SQL does not cover`,
        );
      }
      const names = glm.data.columnNames, intercept = names[0] === "(Intercept)";
      const { offset: _o, trials: _t, ...options } = glm.options;
      return openDatabaseGlm({
        connection: url,
        columns: names.slice(intercept ? 1 : 0),
        response,
        intercept,
        glm: options,
      });
    },
  };
}

/** A model whose pass sums the Hessians of a sample of rows (models/sharded_glm.ts). */
interface SampledHessianSums {
  controlVariateSumsSampledHessian(
    thetaStar: Float64Array,
    gradSum: Float64Array,
    hessSum: Float64Array,
    sample: { stride: number; seed: number },
  ): number;
}

/** Most full-data passes of {@link databaseCentring} (HMC-ECS's own Newton limit). */
export const MAX_CENTRING_PASSES = 10;

/** What {@link databaseCentring} returns. */
export interface SharedCentring {
  /** θ* and S, A, B there: HMC-ECS's `centring` for every chain. */
  centring: PrecomputedCentring;
  /** Full-data passes made (one SQL aggregate each). */
  numPasses: number;
  /** Whether Newton's decrement fell below the tolerance (by default: its step below a thousandth of a posterior sd). */
  converged: boolean;
  /** Cholesky factor (lower, row-major) of −∇² log π(θ*): the Laplace precision. */
  precisionFactor: Float64Array;
}

interface Sums {
  ll: number;
  grad: Float64Array;
  hess: Float64Array;
}

/** Newton to the mode of log p(θ) + ℓ(θ), one `pass` per step, step halving. */
function newton(
  model: ExternalGlmModel,
  start: Float64Array,
  pass: (theta: Float64Array) => Sums,
  limits: { maxPasses: number; tolerance: number },
): {
  theta: Float64Array;
  sums: Sums;
  numPasses: number;
  converged: boolean;
  factor: Float64Array;
} {
  const d = model.dim;
  const post = (at: Float64Array, s: Sums) => {
    const g = new Float64Array(d), h = new Float64Array(d * d);
    const lp = model.logPrior(at, g) + s.ll;
    model.logPriorHessian(at, h);
    for (let j = 0; j < d; j++) g[j] += s.grad[j];
    for (let i = 0; i < d * d; i++) h[i] = -(h[i] + s.hess[i]);
    return { lp, g, neg: h };
  };
  let at = Float64Array.from(start), cur = pass(at), p = post(at, cur);
  let numPasses = 1, converged = false, scale = 1;
  if (!Number.isFinite(p.lp)) {
    throw new RangeError(`the log posterior at the Newton start is ${p.lp}`);
  }
  let factor = cholesky(p.neg, { name: "the negative log-posterior Hessian" });
  let step = choleskySolve(factor, p.g);
  for (;;) {
    if (scale === 1) {
      // Newton decrement per dimension: the step's squared length in posterior sds.
      let dec = 0;
      for (let j = 0; j < d; j++) dec += p.g[j] * step[j];
      if (dec / d < limits.tolerance) {
        converged = true;
        break;
      }
    }
    if (numPasses >= limits.maxPasses) break;
    const next = at.map((v, j) => v + scale * step[j]);
    const r = pass(next);
    numPasses++;
    const q = post(next, r);
    if (Number.isFinite(q.lp) && q.lp >= p.lp - 1e-12 * Math.abs(p.lp)) {
      at = next;
      cur = r;
      p = q;
      scale = 1;
      factor = cholesky(p.neg, { name: "the negative log-posterior Hessian" });
      step = choleskySolve(factor, p.g);
    } else if ((scale /= 2) < 2 ** -30) break;
  }
  return { theta: at, sums: cur, numPasses, converged, factor };
}

/**
 * One HMC-ECS centring for every chain, made in the engine: Newton's method
 * from the MAP of a strided subset of the rows (fetched by key; likelihood
 * scaled by n/ñ) to the full-data MAP, each step one SQL pass of the sums
 * S, A, B at θ (`controlVariateSums`), stopping when the Newton decrement
 * gᵀP⁻¹g/d is below `tolerance` (default 10⁻⁶: the step is below a
 * thousandth of a posterior sd per dimension) or after
 * {@link MAX_CENTRING_PASSES} passes. θ* is the last point summed, so the
 * sums are exact there whether or not Newton converged.
 *
 * With `quasiNewtonFirst`, the first pass at the subset's MAP sums S and A
 * only, and the first step takes the subset's Hessian (scaled by n/ñ) for
 * the full-data one: it lands ≈ q·2d/ñ posterior sd² per dimension from the
 * MAP, q ≈ n/ñ the subset MAP's own distance, so with a tolerance of 1 (the
 * HMC-ECS chains' own Newton centring's, `recenterTolerance`) one pass with
 * B at that point usually ends it: a pass of ℓ and ∇ℓ and one with the
 * Hessian, where Newton from the subset's MAP makes two or three with it.
 *
 * With `hessianSample` and a model that sums a sample of rows' Hessians in
 * its pass (`controlVariateSumsSampledHessian`, a row store's shards), B is
 * the estimate B̂ from one row in each group of `stride` (the HMC-ECS
 * chains' `hessianFraction`, as their own centring takes it): a pass then
 * costs about one of ℓ and ∇ℓ.
 *
 * `subsetRun` reads the subset as evenly spaced runs of that many
 * consecutive rows (at most 1 % of the subset each) instead of single rows:
 * one read per run from a file, where single rows spaced far apart cost a
 * read each (10⁵ reads at 10⁸ rows). It changes only the Newton start.
 *
 * @param model The rows' model (a database's, a row store's shards).
 * @param options `tolerance` and `quasiNewtonFirst` (see above).
 * @returns The centring, the passes made, and the Laplace precision's factor.
 * @throws {Error} Naming the table and the server when a query fails.
 */
export function databaseCentring(
  model: ExternalGlmModel,
  options: {
    tolerance?: number;
    quasiNewtonFirst?: boolean;
    hessianSample?: { stride: number; seed: number };
    subsetRun?: number;
  } = {},
): SharedCentring {
  const tolerance = options.tolerance ?? 1e-6;
  const n = model.numRows, d = model.dim;
  // The subset: every (n/ñ)-th row, ñ = 1 % of n between 1 000 and 100 000.
  const k = Math.min(n, Math.max(1000, Math.min(100_000, Math.ceil(n / 100))));
  // Runs of `run` consecutive rows, evenly spaced (one row each by default).
  const run = Math.max(1, Math.min(Math.floor(options.subsetRun ?? 1), Math.floor(k / 100) || 1));
  const runs = Math.ceil(k / run);
  const rows = Int32Array.from({ length: k }, (_, i) => {
    const r = Math.floor(i / run), first = Math.floor((r * n) / runs);
    return Math.min(n - 1, first + (i % run));
  });
  const x = new Float64Array(k * d), y = new Float64Array(k);
  model.readRows(rows, x, y);
  const data = glmDataFromArrays(loadCore(), x, y, { numCols: d });
  const glmOptions = model.glmOptions;
  if (glmOptions === null) throw new TypeError("a database model needs a built-in GLM family");
  let start: Float64Array = new Float64Array(d);
  // Cholesky factor of −(∇² log p + (n/ñ)·the subset's ∇²ℓ) at its MAP.
  let subsetFactor: Float64Array | null = null;
  try {
    const sub = new GlmModel(data, glmOptions), w = n / k;
    const fit = newton(model, start, (theta) => {
      const grad = new Float64Array(d), hess = new Float64Array(d * d);
      const ll = sub.logLikelihood(theta, grad) * w;
      sub.logLikelihoodHessian(theta, hess);
      for (let j = 0; j < d; j++) grad[j] *= w;
      for (let i = 0; i < d * d; i++) hess[i] *= w;
      return { ll, grad, hess };
    }, { maxPasses: 50, tolerance: 1e-6 });
    if (fit.theta.every(Number.isFinite)) {
      start = fit.theta;
      subsetFactor = fit.factor;
    }
  } catch {
    // No subset MAP (e.g. separable rows): Newton on the full data from 0.
  } finally {
    freeGlmData(data);
  }
  let firstPasses = 0;
  if (options.quasiNewtonFirst === true && subsetFactor !== null) {
    // S and A at the subset's MAP, then a step with its Hessian.
    const grad = new Float64Array(d), g = new Float64Array(d);
    model.controlVariateSums(start, grad);
    firstPasses = 1;
    model.logPrior(start, g);
    for (let j = 0; j < d; j++) g[j] += grad[j];
    const step = choleskySolve(subsetFactor, g);
    const next = start.map((v, j) => v + step[j]);
    if (next.every(Number.isFinite) && Number.isFinite(model.logPrior(next))) start = next;
  }
  const sampled = options.hessianSample !== undefined && options.hessianSample.stride > 1 &&
      "controlVariateSumsSampledHessian" in model
    ? { model: model as SampledHessianSums, sample: options.hessianSample }
    : null;
  const full = newton(model, start, (theta) => {
    const grad = new Float64Array(d), hess = new Float64Array(d * d);
    const ll = sampled !== null
      ? sampled.model.controlVariateSumsSampledHessian(theta, grad, hess, sampled.sample)
      : model.controlVariateSums(theta, grad, hess);
    return { ll, grad, hess };
  }, { maxPasses: MAX_CENTRING_PASSES - firstPasses, tolerance });
  return {
    centring: {
      thetaStar: full.theta,
      llStarSum: full.sums.ll,
      gradSum: full.sums.grad,
      hessSum: full.sums.hess,
    },
    numPasses: firstPasses + full.numPasses,
    converged: full.converged,
    precisionFactor: full.factor,
  };
}

/**
 * A start per chain: θ* plus a draw from N(0, P⁻¹), P the Laplace
 * precision at θ* (factor L, P = LLᵀ: the draw is L⁻ᵀz = P⁻¹Lz).
 *
 * @param shared The centring.
 * @param numChains Chains.
 * @param seed The run's seed.
 * @returns One position per chain.
 */
export function laplaceStarts(
  shared: SharedCentring,
  numChains: number,
  seed: number,
): Float64Array[] {
  const t = shared.centring.thetaStar, l = shared.precisionFactor, d = t.length;
  const rng = new Rng(`database-centring-starts:${seed}`);
  return Array.from({ length: numChains }, () => {
    const z = Float64Array.from({ length: d }, () => rng.normal());
    const lz = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      for (let j = 0; j <= i; j++) lz[i] += l[i * d + j] * z[j];
    }
    const v = choleskySolve(l, lz);
    return t.map((ti, j) => ti + v[j]);
  });
}
