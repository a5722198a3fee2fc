// AssemblyScript: one evaluation of HMC-ECS's difference estimator with its
// gradient, in one call (part of the tallmc core; entry file kernels.ts).
//
//   taylor ─► θ* (d) | A (d) | B (d × d)                   f64, read only; B's rows
//             in pairs: rows 2q, 2q + 1 interleaved column by column
//             (B[2q][k], B[2q+1][k] side by side), an odd last row as it is
//   work ──► δ (d) | ∇Σq (d) | Σwx (d)                    f64 scratch
//   grad ──► d f64 (written, not accumulated)
//   out ───► ℓ̂ₘ, σ̂²ₘ, Σq                                   f64
//   x, y, cv, diff, r, w: a row buffer's blocks (rows f64, positions 0…m−1)
//
// The same operations in the same order as the TypeScript composition it
// replaces (subsampling/subsample_control_variates.ts `taylorSum` with
// math/linalg.ts `matVecInto`, then cvDiffRange, the sums and weights of
// subsampling/difference_estimator.ts, xtwRange into a zeroed vector and the
// final addition), so the results are the same to the last bit: the Taylor
// sum and the row sums are plain f64 multiplies and adds (no fused
// multiply-add, in either build); each (Bδ)ᵢ is summed in order of its
// columns from 0 (two rows in the lanes of one vector), and each column of
// Σwᵢxᵢ row after row from 0 with xtwRange's multiply-add (up to 128 KB of
// rows with its columns held in registers over the rows instead of a pass
// over the output per row pair).

import { _invalidArgument, _setup, Gaussian, Logistic, Poisson } from "./family";
import { _cvDiff } from "./cv_kernels";
import { _axpy1, _axpy2 } from "./rows";
import { madd, smadd, ZERO } from "./vmath";

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
  // (Bδ)ᵢ into g (then g = A + Bδ below): rows in pairs, two pairs at a time.
  let i = 0;
  for (; i + 4 <= d; i += 4) {
    const r0 = b + <usize>i * dd, r1 = r0 + 2 * dd;
    let t0 = ZERO, t1 = ZERO;
    for (let k = 0; k < d; k++) {
      const o = <usize>k << 4;
      const xk = v128.load64_splat(delta + (<usize>k << 3));
      t0 = f64x2.add(t0, f64x2.mul(v128.load(r0 + o), xk));
      t1 = f64x2.add(t1, f64x2.mul(v128.load(r1 + o), xk));
    }
    const o = <usize>i << 3;
    v128.store(g + o, t0);
    v128.store(g + o, t1, 16);
  }
  for (; i + 2 <= d; i += 2) {
    const r0 = b + <usize>i * dd;
    let t0 = ZERO;
    for (let k = 0; k < d; k++) {
      const xk = v128.load64_splat(delta + (<usize>k << 3));
      t0 = f64x2.add(t0, f64x2.mul(v128.load(r0 + (<usize>k << 4)), xk));
    }
    v128.store(g + (<usize>i << 3), t0);
  }
  if (i < d) {
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
 * out = Σᵢ wᵢxᵢ over rows [0, m) of f64 rows: each column (pair) summed row
 * after row from 0 with the multiply-add of xtwRange (madd for column pairs,
 * smadd for an odd last column), so the same bits as xtwRange into a zeroed
 * out; eight columns at a time in registers.
 */
function _xtwColumns(x: usize, d: i32, m: i32, w: usize, out: usize): void {
  const rowBytes = <usize>d << 3;
  let j = 0;
  for (; j + 8 <= d; j += 8) {
    let a0 = ZERO, a1 = ZERO, a2 = ZERO, a3 = ZERO;
    let p = x + (<usize>j << 3);
    for (let i = 0; i < m; i++) {
      const wi = v128.load64_splat(w + (<usize>i << 3));
      a0 = madd(v128.load(p), wi, a0);
      a1 = madd(v128.load(p, 16), wi, a1);
      a2 = madd(v128.load(p, 32), wi, a2);
      a3 = madd(v128.load(p, 48), wi, a3);
      p += rowBytes;
    }
    const o = out + (<usize>j << 3);
    v128.store(o, a0);
    v128.store(o, a1, 16);
    v128.store(o, a2, 32);
    v128.store(o, a3, 48);
  }
  for (; j + 2 <= d; j += 2) {
    let a0 = ZERO;
    let p = x + (<usize>j << 3);
    for (let i = 0; i < m; i++) {
      a0 = madd(v128.load(p), v128.load64_splat(w + (<usize>i << 3)), a0);
      p += rowBytes;
    }
    v128.store(out + (<usize>j << 3), a0);
  }
  if (j < d) {
    let a: f64 = 0;
    let p = x + (<usize>j << 3);
    for (let i = 0; i < m; i++) {
      a = smadd(load<f64>(p), load<f64>(w + (<usize>i << 3)), a);
      p += rowBytes;
    }
    store<f64>(out + (<usize>j << 3), a);
  }
}

/**
 * Most entries of X (m·d) for which {@link _xtwColumns} reads the rows
 * column group by column group (128 KB of f64); a larger block is read row
 * after row, as xtwRange reads it (the columns' strides then miss the
 * prefetcher and the TLB).
 */
const _COLUMNS_MAX: usize = 16384;

/**
 * out = Σᵢ wᵢxᵢ row after row (xtwRange's order and operations: pairs of rows
 * by _axpy2, an odd last row by _axpy1) into a zeroed out.
 */
function _xtwRows(x: usize, d: i32, m: i32, w: usize, out: usize): void {
  for (let j = 0; j < d; j++) store<f64>(out + (<usize>j << 3), 0);
  const rowBytes = <usize>d << 3;
  let i = 0;
  for (; i + 2 <= m; i += 2) {
    const p0 = x + <usize>i * rowBytes;
    _axpy2<f64>(out, p0, p0 + rowBytes, v128.load(w + (<usize>i << 3)), d);
  }
  if (i < m) _axpy1<f64>(out, x + <usize>i * rowBytes, load<f64>(w + (<usize>i << 3)), d);
}

/**
 * The difference estimator over positions [0, m) of a row buffer at θ and
 * its gradient: Σq and ∇Σq from S, A, B at θ* (`taylor`, `llStar`); dᵢ and rᵢ
 * computed for positions [start, end) (the others' are in `diff` and `r`
 * already, at this θ); d̄, Σ(dᵢ − d̄)² and the weights
 * wᵢ = rᵢ·(n/m − (n/m)²(dᵢ − d̄)) (or rᵢ·n/m without the bias correction);
 * grad = ∇Σq + Σwᵢxᵢ. Writes ℓ̂ₘ = Σq + n·d̄, σ̂²ₘ = (n/m)²Σ(dᵢ − d̄)² and Σq
 * to out and returns ℓ̂ₘ − σ̂²ₘ/2; NaN for a bad family or order.
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
  if (<usize>m * <usize>d <= _COLUMNS_MAX) _xtwColumns(x, d, m, w, rg);
  else _xtwRows(x, d, m, w, rg);
  for (let j = 0; j < d; j++) {
    const o = <usize>j << 3;
    store<f64>(grad + o, load<f64>(qg + o) + load<f64>(rg + o));
  }
  const logLikelihood = sumQ + numRows * mean;
  const variance = (numRows / <f64>m) * (numRows / <f64>m) * ss;
  store<f64>(out, logLikelihood);
  store<f64>(out, variance, 8);
  store<f64>(out, sumQ, 16);
  return logLikelihood - 0.5 * variance;
}
