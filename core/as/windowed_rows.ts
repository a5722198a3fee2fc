// AssemblyScript: ℓ and ∇ℓ over rows stored as column constants plus short
// windows of deviations (part of the tallmc core; entry file kernels.ts).
//
//   row i of X = c + δᵢ, δᵢ non-zero only inside its windows:
//   ptr ─► n + 1 i32: row i's windows are ptr[i] … ptr[i+1] − 1
//   col ─► one u16 per window: its first column s (0 ≤ s ≤ d − 4)
//   dev ─► four f64 per window: δᵢ at columns s … s + 3 (0 where an earlier
//          window of the row holds the column)
//   y ──► n f64;  θ ─► d f64;  base = cᵀθ (the caller's sum)
//
//   ηᵢ = base + Σ_w dev_w · θ[s_w … s_w + 3]
//   tab ─► d × 4 f64, ACCUMULATED: tab[s][q] += ℓ'(ηᵢ)·dev_w[q] for each
//          window w of row i with first column s
//   wsum ─► one f64, written: Σᵢ ℓ'(ηᵢ)
//   ∇ = (Σᵢ ℓ'(ηᵢ))·c + Σ_{s+q=j} tab[s][q], folded by the caller.
//
// The sums are x·θ and Σℓ'x regrouped (constants apart, windows in their
// own order), so they agree with the dense kernels of likelihood.ts to
// rounding, not bit for bit. Rows go four at a time (two f64x2 through the
// family, their chains overlapping), the last n mod 4 one at a time; each window is two f64x2 multiply-adds for η and two
// for the table. Accumulating into a table row per first column (not into
// grad at s … s + 3) keeps the stores of neighbouring rows either on the same
// 16 bytes or apart.

import { _d1, _fam, _famD1, _setup, Gaussian, Logistic, Poisson } from "./family";
import { madd, ZERO } from "./vmath";

// Mode markers (compile-time): sizeof 1 = ℓ (and ∇ unless skipGrad),
// 2 = ∇ only (ℓ is not computed: no log1p or log Γ per row).
type WithValue = u8;
type GradOnly = u16;

/** δᵢᵀθ over windows a … b − 1 of one row. */
// @ts-ignore: decorator
@inline function _wDot(col: usize, dev: usize, a: i32, b: i32, th: usize): f64 {
  let s0 = ZERO, s1 = ZERO;
  for (let k = a; k < b; k++) {
    const q = th + (<usize>load<u16>(col + (<usize>k << 1)) << 3);
    const v = dev + (<usize>k << 5);
    s0 = madd(v128.load(v), v128.load(q), s0);
    s1 = madd(v128.load(v, 16), v128.load(q, 16), s1);
  }
  s0 = f64x2.add(s0, s1);
  return f64x2.extract_lane(s0, 0) + f64x2.extract_lane(s0, 1);
}

/** tab[s_w] += w·dev_w over windows a … b − 1 of one row (w splat in both lanes). */
// @ts-ignore: decorator
@inline function _wAxpy(col: usize, dev: usize, a: i32, b: i32, tab: usize, w: v128): void {
  for (let k = a; k < b; k++) {
    const q = tab + (<usize>load<u16>(col + (<usize>k << 1)) << 5);
    const v = dev + (<usize>k << 5);
    v128.store(q, madd(v128.load(v), w, v128.load(q)));
    v128.store(q, madd(v128.load(v, 16), w, v128.load(q, 16)), 16);
  }
}

function _wRows<F, M>(
  ptr: usize,
  col: usize,
  dev: usize,
  y: usize,
  start: i32,
  end: i32,
  th: usize,
  base: f64,
  tab: usize,
  wsum: usize,
  skipGrad: bool,
): f64 {
  let sum = ZERO, ws = ZERO;
  const b2 = f64x2.splat(base);
  let i = start;
  // Four rows per step: the two pairs' exp/log chains overlap.
  for (; i + 4 <= end; i += 4) {
    const pi = ptr + (<usize>i << 2);
    const a0 = load<i32>(pi), a1 = load<i32>(pi, 4), a2 = load<i32>(pi, 8);
    const a3 = load<i32>(pi, 12), a4 = load<i32>(pi, 16);
    const eA = _wDot(col, dev, a0, a1, th);
    const eB = _wDot(col, dev, a1, a2, th);
    const eC = _wDot(col, dev, a2, a3, th);
    const eD = _wDot(col, dev, a3, a4, th);
    const etaA = f64x2.add(b2, f64x2.replace_lane(f64x2.splat(eA), 1, eB));
    const etaB = f64x2.add(b2, f64x2.replace_lane(f64x2.splat(eC), 1, eD));
    const yA = v128.load(y + (<usize>i << 3));
    const yB = v128.load(y + (<usize>i << 3), 16);
    let d1A: v128;
    if (sizeof<M>() == 2) {
      _famD1<F>(etaA, yA);
      d1A = _d1;
      _famD1<F>(etaB, yB);
    } else {
      const lA = _fam<F>(etaA, yA);
      d1A = _d1;
      sum = f64x2.add(sum, f64x2.add(lA, _fam<F>(etaB, yB)));
    }
    if (skipGrad) continue;
    const d1B = _d1;
    ws = f64x2.add(ws, f64x2.add(d1A, d1B));
    _wAxpy(col, dev, a0, a1, tab, f64x2.splat(f64x2.extract_lane(d1A, 0)));
    _wAxpy(col, dev, a1, a2, tab, f64x2.splat(f64x2.extract_lane(d1A, 1)));
    _wAxpy(col, dev, a2, a3, tab, f64x2.splat(f64x2.extract_lane(d1B, 0)));
    _wAxpy(col, dev, a3, a4, tab, f64x2.splat(f64x2.extract_lane(d1B, 1)));
  }
  let total = f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1);
  let wt = f64x2.extract_lane(ws, 0) + f64x2.extract_lane(ws, 1);
  for (; i < end; i++) {
    const pi = ptr + (<usize>i << 2);
    const a0 = load<i32>(pi), a1 = load<i32>(pi, 4);
    const eta = f64x2.splat(base + _wDot(col, dev, a0, a1, th));
    const yv = f64x2.splat(load<f64>(y + (<usize>i << 3)));
    if (sizeof<M>() == 2) _famD1<F>(eta, yv);
    else total += f64x2.extract_lane(_fam<F>(eta, yv), 0);
    if (!skipGrad) {
      const w = f64x2.extract_lane(_d1, 0);
      wt += w;
      _wAxpy(col, dev, a0, a1, tab, f64x2.splat(w));
    }
  }
  if (!skipGrad) store<f64>(wsum, wt);
  return sizeof<M>() == 2 ? 0 : total;
}

/**
 * Over rows [start, end) of a windowed layout: mode 0 returns Σℓᵢ and
 * accumulates the gradient table (writing Σℓ'ᵢ to wsum), mode 1 the same
 * table and wsum without ℓ (returns 0), mode 2 Σℓᵢ alone.
 */
export function wrRange(
  family: i32,
  famParam: f64,
  ptr: usize,
  col: usize,
  dev: usize,
  y: usize,
  start: i32,
  end: i32,
  theta: usize,
  base: f64,
  tab: usize,
  wsum: usize,
  mode: i32,
): f64 {
  if (!_setup(family, famParam)) return NaN;
  if (end <= start) {
    if (mode != 2) store<f64>(wsum, 0);
    return 0;
  }
  const skip = mode == 2;
  if (mode == 1) {
    if (family == 0) {
      return _wRows<Logistic, GradOnly>(ptr, col, dev, y, start, end, theta, base, tab, wsum, false);
    }
    if (family == 1) {
      return _wRows<Gaussian, GradOnly>(ptr, col, dev, y, start, end, theta, base, tab, wsum, false);
    }
    return _wRows<Poisson, GradOnly>(ptr, col, dev, y, start, end, theta, base, tab, wsum, false);
  }
  if (family == 0) {
    return _wRows<Logistic, WithValue>(ptr, col, dev, y, start, end, theta, base, tab, wsum, skip);
  }
  if (family == 1) {
    return _wRows<Gaussian, WithValue>(ptr, col, dev, y, start, end, theta, base, tab, wsum, skip);
  }
  return _wRows<Poisson, WithValue>(ptr, col, dev, y, start, end, theta, base, tab, wsum, skip);
}
