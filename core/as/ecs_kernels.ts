// AssemblyScript: one evaluation of HMC-ECS's difference estimator with its
// gradient, in one call (part of the tallmc core; entry file kernels.ts).
//
//   taylor ─► θ* (d) | A (d) | B (d × d, row-major)        f64, read only
//   work ──► δ (d) | ∇Σq (d) | Σwx (d)                    f64 scratch
//   grad ──► d f64 (written, not accumulated)
//   out ───► ℓ̂ₘ, σ̂²ₘ                                       f64
//   x, y, cv, diff, r, w: a row buffer's blocks (rows f64, positions 0…m−1)
//
// The same operations in the same order as the TypeScript composition it
// replaces (subsampling/subsample_control_variates.ts `taylorSum` with
// math/linalg.ts `matVecInto`, then cvDiffRange, the sums and weights of
// subsampling/difference_estimator.ts, xtwRange into a zeroed vector and the
// final addition), so the results are the same to the last bit: the Taylor
// sum and the row sums are plain f64 multiplies and adds (no fused
// multiply-add, in either build).

import { _invalidArgument, _setup, Gaussian, Logistic, Poisson } from "./family";
import { _cvDiff } from "./cv_kernels";
import { _xtw } from "./moments";

/**
 * Σₖqₖ(θ) = S + Aᵀδ + ½δᵀBδ (δ = θ − θ*) by order, with its gradient A + Bδ
 * written to g; Bδ four rows at a time, each row summed in order of its
 * columns from 0.
 */
function _taylor(
  d: i32,
  order: i32,
  theta: usize,
  taylor: usize,
  llStar: f64,
  delta: usize,
  g: usize,
): f64 {
  const dd = <usize>d << 3;
  const ts = taylor, a = taylor + dd, b = a + dd;
  for (let j = 0; j < d; j++) {
    const o = <usize>j << 3;
    store<f64>(delta + o, load<f64>(theta + o) - load<f64>(ts + o));
  }
  let v = llStar;
  if (order == 0) {
    for (let j = 0; j < d; j++) store<f64>(g + (<usize>j << 3), 0);
    return v;
  }
  for (let j = 0; j < d; j++) {
    const o = <usize>j << 3;
    v += load<f64>(a + o) * load<f64>(delta + o);
  }
  if (order == 1) {
    for (let j = 0; j < d; j++) {
      const o = <usize>j << 3;
      store<f64>(g + o, load<f64>(a + o));
    }
    return v;
  }
  // (Bδ)ᵢ into g (then g = A + Bδ below), four rows side by side.
  let i = 0;
  for (; i + 4 <= d; i += 4) {
    const r0 = b + <usize>i * dd, r1 = r0 + dd, r2 = r1 + dd, r3 = r2 + dd;
    let t0: f64 = 0, t1: f64 = 0, t2: f64 = 0, t3: f64 = 0;
    for (let k = 0; k < d; k++) {
      const o = <usize>k << 3;
      const xk = load<f64>(delta + o);
      t0 += load<f64>(r0 + o) * xk;
      t1 += load<f64>(r1 + o) * xk;
      t2 += load<f64>(r2 + o) * xk;
      t3 += load<f64>(r3 + o) * xk;
    }
    const o = <usize>i << 3;
    store<f64>(g + o, t0);
    store<f64>(g + o, t1, 8);
    store<f64>(g + o, t2, 16);
    store<f64>(g + o, t3, 24);
  }
  for (; i < d; i++) {
    const r = b + <usize>i * dd;
    let t: f64 = 0;
    for (let k = 0; k < d; k++) {
      const o = <usize>k << 3;
      t += load<f64>(r + o) * load<f64>(delta + o);
    }
    store<f64>(g + (<usize>i << 3), t);
  }
  let quad: f64 = 0;
  for (let j = 0; j < d; j++) {
    const o = <usize>j << 3;
    const bj = load<f64>(g + o);
    quad += load<f64>(delta + o) * bj;
    store<f64>(g + o, load<f64>(a + o) + bj);
  }
  return v + 0.5 * quad;
}

/**
 * The difference estimator over positions [0, m) of a row buffer at θ and
 * its gradient: Σq and ∇Σq from S, A, B at θ* (`taylor`, `llStar`); dᵢ and rᵢ
 * computed for positions [start, end) (the others' are in `diff` and `r`
 * already, at this θ); d̄, Σ(dᵢ − d̄)² and the weights
 * wᵢ = rᵢ·(n/m − (n/m)²(dᵢ − d̄)) (or rᵢ·n/m without the bias correction);
 * grad = ∇Σq + Σwᵢxᵢ. Writes ℓ̂ₘ = Σq + n·d̄ and σ̂²ₘ = (n/m)²Σ(dᵢ − d̄)² to
 * out and returns ℓ̂ₘ − σ̂²ₘ/2; NaN for a bad family or order.
 */
export function ecsEstimate(
  family: i32,
  famParam: f64,
  x: usize,
  y: usize,
  cv: usize,
  d: i32,
  m: i32,
  start: i32,
  end: i32,
  theta: usize,
  order: i32,
  diff: usize,
  r: usize,
  w: usize,
  taylor: usize,
  llStar: f64,
  numRows: f64,
  corrected: i32,
  work: usize,
  grad: usize,
  out: usize,
): f64 {
  if (!_setup(family, famParam)) return NaN;
  if (order < 0 || order > 2) {
    _invalidArgument(1, <f64>order);
    return NaN;
  }
  const dd = <usize>d << 3;
  const delta = work, qg = work + dd, rg = qg + dd;
  const sumQ = _taylor(d, order, theta, taylor, llStar, delta, qg);
  if (end > start) {
    const c = cv + (<usize>start << 5), o = <usize>start << 3;
    if (family == 0) _cvDiff<Logistic>(x, y, c, d, start, end, theta, order, diff + o, r + o);
    else if (family == 1) {
      _cvDiff<Gaussian>(x, y, c, d, start, end, theta, order, diff + o, r + o);
    } else _cvDiff<Poisson>(x, y, c, d, start, end, theta, order, diff + o, r + o);
  }
  let s: f64 = 0;
  for (let i = 0; i < m; i++) s += load<f64>(diff + (<usize>i << 3));
  const mean = s / <f64>m;
  const nm = numRows / <f64>m, nm2 = nm * nm;
  let ss: f64 = 0;
  for (let i = 0; i < m; i++) {
    const o = <usize>i << 3;
    const e = load<f64>(diff + o) - mean;
    ss += e * e;
    store<f64>(w + o, load<f64>(r + o) * (corrected != 0 ? nm - nm2 * e : nm));
  }
  for (let j = 0; j < d; j++) store<f64>(rg + (<usize>j << 3), 0);
  _xtw<f64>(x, d, 0, m, w, rg);
  for (let j = 0; j < d; j++) {
    const o = <usize>j << 3;
    store<f64>(grad + o, load<f64>(qg + o) + load<f64>(rg + o));
  }
  const logLikelihood = sumQ + numRows * mean;
  const variance = (numRows / <f64>m) * (numRows / <f64>m) * ss;
  store<f64>(out, logLikelihood);
  store<f64>(out, variance, 8);
  return logLikelihood - 0.5 * variance;
}
