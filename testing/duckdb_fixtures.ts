/**
 * Fixtures for the DuckDB tests and bench: a data set in the arena written to
 * a Parquet file by DuckDB itself, X as DOUBLE (f64 storage) or FLOAT (f32),
 * and the error bound of the centring sums between two engines.
 */
import type { DuckDBConnection } from "npm:@duckdb/node-api@1.5.5-r.5";
import type { GlmData } from "../data/dataset.ts";
import { quoteIdentifier } from "../engines/control_variate_sql.ts";

/**
 * Write columns `fromCol`… of X and y (named `response`) to `path` as
 * Parquet: DOUBLE columns for f64 storage, FLOAT for f32 (the arena's f32
 * values, unchanged). Returns the column names written for X.
 */
export async function writeParquet(
  conn: DuckDBConnection,
  data: GlmData,
  path: string,
  options: { fromCol?: number; response?: string; table?: string } = {},
): Promise<string[]> {
  const n = data.numRows, d = data.numCols, from = options.fromCol ?? 0;
  const table = options.table ?? "glm_rows", resp = options.response ?? "y";
  const names = data.columnNames.slice(from);
  const type = data.storage === "f64" ? "DOUBLE" : "FLOAT";
  const cols = names.map((c) => `${quoteIdentifier(c)} ${type}`);
  await conn.run(
    `CREATE OR REPLACE TABLE ${quoteIdentifier(table)} (${cols.join(", ")}, ${
      quoteIdentifier(resp)
    } DOUBLE)`,
  );
  const x = data.storage === "f64" ? data.arena.f64(data.x, n * d) : data.arena.f32(data.x, n * d);
  const y = data.arena.f64(data.y, n);
  const app = await conn.createAppender(table);
  const f64 = data.storage === "f64";
  for (let i = 0; i < n; i++) {
    for (let j = from; j < d; j++) {
      if (f64) app.appendDouble(x[i * d + j]);
      else app.appendFloat(x[i * d + j]);
    }
    app.appendDouble(y[i]);
    app.endRow();
  }
  app.closeSync();
  await conn.run(
    `COPY ${quoteIdentifier(table)} TO '${path.replaceAll("'", "''")}' (FORMAT PARQUET)`,
  );
  await conn.run(`DROP TABLE ${quoteIdentifier(table)}`);
  return names;
}

/**
 * Per-quantity bounds on |S₁ − S₂|, |A₁ − A₂|, |B₁ − B₂| between two
 * evaluations of the centring sums from the same f64 inputs that differ in
 * summation order (of η and of the sums over rows) and in libm's exp, log and
 * lnΓ (each within a few ulp):
 *
 * ```
 *  wₖ = 1 + |yₖ| + Σⱼ|θⱼxₖⱼ|     bounds |ηₖ|, |yₖ| and the rounding of η: |Δηₖ| ≤ d·u·wₖ
 *  |ΔS|    ≤ C·u·Σₖ (|ℓₖ| + lnΓ(yₖ+1) + (|aₖ| + 1)·wₖ)
 *  |ΔA_j|  ≤ C·u·Σₖ |xₖⱼ|·(|aₖ| + |yₖ| + 1 + |bₖ|·wₖ)
 *  |ΔB_jl| ≤ C·u·Σₖ |xₖⱼxₖₗ|·|bₖ|·(1 + wₖ)        C = n + d + 64,  u = 2⁻⁵³
 * ```
 *
 * Each summand is a perturbation of the term times its magnitude: the
 * recursive-summation error of n terms ((n − 1)·u·Σ|term|, Higham 2002,
 * §4.2; any other order — pairwise, SIMD lanes, parallel partial sums — has
 * a bound no larger), η's d roundings propagated through |dℓ/dη| = |a|,
 * |da/dη| = |b| and |db/dη| ≤ |b| (logistic: |σ′(1 − 2σ)| ≤ σ′; Poisson:
 * = |b|; Gaussian: 0), the cancellation in y − σ, y − μ, y − η (u·(|y| + |a|
 * + 1)), and the per-row libm and arithmetic roundings, fewer than 64 ulp of
 * a term's parts. θ is taken as exact (SQL prints it round-trip).
 *
 * `aux`: the offsets of "poisson" (η = xᵀθ + oₖ: |oₖ| joins wₖ) or the
 * trials Nₖ of "binomial" (ℓ = ln C(Nₖ, yₖ) + yη − Nₖ·softplus(η),
 * a = y − Nₖσ, b = −Nₖσ(1 − σ); the three lnΓ, Nₖ·softplus and the
 * cancellation in y − Nₖσ join the terms).
 */
export function centringBounds(
  data: GlmData,
  family: "logistic" | "poisson" | "gaussian" | "binomial",
  theta: Float64Array,
  sigma = 1,
  logGammaFn: (x: number) => number = () => 0,
  aux?: Float64Array,
): { s: number; a: Float64Array; b: Float64Array } {
  const n = data.numRows, d = data.numCols;
  const x = data.storage === "f64" ? data.arena.f64(data.x, n * d) : data.arena.f32(data.x, n * d);
  const y = data.arena.f64(data.y, n);
  const C = (n + d + 64) * 2 ** -53;
  let s = 0;
  const a = new Float64Array(d), b = new Float64Array(d * d);
  for (let k = 0; k < n; k++) {
    let eta = 0, w = 1 + Math.abs(y[k]);
    for (let j = 0; j < d; j++) {
      eta += theta[j] * x[k * d + j];
      w += Math.abs(theta[j] * x[k * d + j]);
    }
    let l: number, ak: number, bk: number, lg = 0, extra = 0;
    if (aux !== undefined && family === "poisson") {
      eta += aux[k];
      w += Math.abs(aux[k]);
    }
    if (family === "binomial") {
      const nk = aux![k], sig = 1 / (1 + Math.exp(-eta));
      const sp = Math.max(eta, 0) + Math.log1p(Math.exp(-Math.abs(eta)));
      lg = Math.abs(logGammaFn(nk + 1)) + Math.abs(logGammaFn(y[k] + 1)) +
        Math.abs(logGammaFn(nk - y[k] + 1));
      l = y[k] * eta - nk * sp;
      ak = y[k] - nk * sig;
      bk = -nk * sig * (1 - sig);
      extra = nk * (sp + 1);
    } else if (family === "logistic") {
      const sig = 1 / (1 + Math.exp(-eta));
      l = y[k] * eta - Math.max(eta, 0) - Math.log1p(Math.exp(-Math.abs(eta)));
      ak = y[k] - sig;
      bk = -sig * (1 - sig);
    } else if (family === "poisson") {
      const mu = Math.exp(eta);
      lg = Math.abs(logGammaFn(y[k] + 1));
      l = y[k] * eta - mu - lg;
      ak = y[k] - mu;
      bk = -mu;
    } else {
      const r = y[k] - eta;
      l = -0.5 * r * r / (sigma * sigma);
      ak = r / (sigma * sigma);
      bk = -1 / (sigma * sigma);
    }
    s += Math.abs(l) + lg + (Math.abs(ak) + 1) * w + extra;
    const ga = Math.abs(ak) + Math.abs(y[k]) + 1 + extra + Math.abs(bk) * w;
    const hb = Math.abs(bk) * (1 + w);
    for (let j = 0; j < d; j++) {
      const xj = Math.abs(x[k * d + j]);
      a[j] += xj * ga;
      for (let m = j; m < d; m++) b[j * d + m] += xj * Math.abs(x[k * d + m]) * hb;
    }
  }
  for (let j = 0; j < d; j++) {
    a[j] *= C;
    for (let m = j; m < d; m++) b[j * d + m] = b[m * d + j] = b[j * d + m] * C;
  }
  return { s: s * C + 1e-300, a, b };
}

/**
 * Bounds on |ΔS|, |ΔA|, |ΔB| of "gaussian-scale" (θ = (β, τ = log σ)) between
 * two engines: the β parts as the known-σ Gaussian's at σ = e^τ
 * (`centringBounds`), the τ parts by the same reasoning (r = y − η carries
 * d·u·wₖ of η's rounding, r² twice that relative to |r|).
 */
export function scaleCentringBounds(
  data: GlmData,
  theta: Float64Array,
): { s: number; a: Float64Array; b: Float64Array } {
  const n = data.numRows, d = data.numCols, tau = theta[d];
  const beta = theta.subarray(0, d), inv = Math.exp(-2 * tau);
  const base = centringBounds(data, "gaussian", beta, Math.exp(tau));
  const x = data.arena.f64(data.x, n * d), y = data.arena.f64(data.y, n);
  const C = (n + d + 64) * 2 ** -53, D = d + 1;
  let at = 0, btt = 0, s = 0;
  const bt = new Float64Array(d);
  for (let k = 0; k < n; k++) {
    let eta = 0, w = 1 + Math.abs(y[k]);
    for (let j = 0; j < d; j++) {
      eta += beta[j] * x[k * d + j];
      w += Math.abs(beta[j] * x[k * d + j]);
    }
    const r = Math.abs(y[k] - eta);
    at += 1 + inv * (r * r + 2 * r * w);
    btt += 2 * inv * (r * r + 2 * r * w);
    s += 1 + Math.abs(tau);
    for (let j = 0; j < d; j++) bt[j] += Math.abs(x[k * d + j]) * 2 * inv * (r + w);
  }
  const a = new Float64Array(D), b = new Float64Array(D * D);
  a.set(base.a);
  a[d] = C * at;
  for (let j = 0; j < d; j++) {
    for (let l = 0; l < d; l++) b[j * D + l] = base.b[j * d + l];
    b[j * D + d] = b[d * D + j] = C * bt[j];
  }
  b[d * D + d] = C * btt;
  return { s: base.s + C * s, a, b };
}
