/**
 * Per-row Hessians of a GLM over rows in one arena: the arithmetic of
 * {@link GlmModel.perRowHessians}, shared with the models whose rows are
 * gathered from elsewhere.
 *
 * @module
 */
import type { GlmKernels } from "../core/glm_kernels.ts";
import type { GlmData } from "../data/dataset.ts";

/**
 * Per-row Hessians ∇²ℓᵢ(θ) of rows `rows` of `data` into `out` (m × P × P,
 * P = θ's length): ℓ_ηη xᵢxᵢᵀ, and for families with τ the border ℓ_ητ xᵢ and
 * corner ℓ_ττ (with a sampled ν also ℓ_ηω xᵢ, ℓ_τω and ℓ_ωω). The arithmetic
 * of {@link GlmModel.perRowHessians}, shared with the models whose rows are
 * gathered from elsewhere (models/sharded_glm.ts), so a row's Hessian is the
 * same bits wherever the row lives. Counts nothing; θ is not checked.
 *
 * @param kernels The family's kernels (their aux column set for `data`).
 * @param data The rows.
 * @param theta θ (length P).
 * @param rows Row indices into `data`.
 * @param out Output, at least m·P² values.
 * @returns Nothing.
 * @internal
 */
export function glmRowHessians(
  kernels: GlmKernels,
  data: GlmData,
  theta: Float64Array,
  rows: Int32Array,
  out: Float64Array,
): void {
  const m = rows.length, P = theta.length, d = data.numCols;
  if (out.length < m * P * P) {
    throw new RangeError(`out must hold ${m * P * P} values, got ${out.length}`);
  }
  const xs = kernels.gatherRows(data, rows, new Float64Array(m * d));
  const b = new Float64Array(m), c = new Float64Array(m), e = new Float64Array(m);
  const S = P > d + 1 ? 10 : 6; // per-row record length (families with ω: 10)
  if (kernels.hasCompactCache) {
    const one = new Float64Array(P * P);
    for (let k = 0; k < m; k++) {
      kernels.hessian(data, theta, {
        out: one,
        range: { start: rows[k], end: rows[k] + 1 },
      });
      out.set(one, k * P * P);
    }
  } else {
    const dv = kernels.rowDerivatives(data, theta, {
      rows,
      out: new Float64Array(S * m),
    });
    for (let k = 0; k < m; k++) {
      b[k] = dv[S * k + 2];
      c[k] = dv[S * k + 4];
      e[k] = dv[S * k + 5];
    }
    for (let k = 0; k < m; k++) {
      const o = k * P * P, xo = k * d;
      for (let j = 0; j < d; j++) {
        const bx = b[k] * xs[xo + j];
        for (let l = 0; l < d; l++) out[o + j * P + l] = bx * xs[xo + l];
        if (P > d) out[o + j * P + d] = out[o + d * P + j] = c[k] * xs[xo + j];
      }
      if (P > d) out[o + d * P + d] = e[k];
      if (P > d + 1) {
        const r = S * k, w = d + 1;
        for (let j = 0; j < d; j++) {
          out[o + j * P + w] = out[o + w * P + j] = dv[r + 7] * xs[xo + j];
        }
        out[o + d * P + w] = out[o + w * P + d] = dv[r + 8];
        out[o + w * P + w] = dv[r + 9];
      }
    }
  }
}
