// AssemblyScript: the per-row log-likelihood differences of the ICA model of
// Austerity §5.2 (part of the tallmc core; entry file kernels.ts; bound by
// core/ica_kernels.ts, whose TypeScript fallback is the same arithmetic).
//
//   x ──► n rows of 4 f64 (row i at x + 32·i)
//   w, wp ─► W and W' (4 × 4 f64 row-major); a proposal changes rows j and k
//   tab ─► 512 intervals × 4 f64: g(q/32), g'(q/32)/32, g((q+1)/32), g'((q+1)/32)/32
//          of g(a) = 2 log(1 + e^{−a}) (the caller builds it)
//   idx ─► m i32 rows;  out ─► m f64
//   cached: c0 … c3 ─► n f64 each, f(w_rᵀx_i) of the current W (one column per
//           row r of W); stamp ─► n i32; nj, nk ─► n f64 (f at W' for rows j, k)
//
//   f(z) = log(4 cosh²(z/2)) = a + g(a), a = |z|:  a < 16: cubic Hermite on the
//          table (q = ⌊32a⌋, t = 32a − q); a ≥ 16 (and NaN): a + 2e^{−a}
//   l_i  = f(w_jᵀx_i) + f(w_kᵀx_i) − f(w'_jᵀx_i) − f(w'_kᵀx_i), summed in that order
//
// Every operation is an IEEE f64 multiply, add or subtract in the order the
// TypeScript loop writes it (no fused multiply-add, in either build), so the
// results are those of the TypeScript arithmetic bit for bit. e^{−a} is a
// port of fdlibm's exp, the routine V8's Math.exp uses.
//
// Vector layout: one f64x2 holds (f for row j of W, f for row k of W) of one
// data row; its dot products broadcast the row's four entries.

// ─── f(z) ───────────────────────────────────────────────────────────────────

// fdlibm e_exp.c constants.
const _LN2_HI: f64 = 6.93147180369123816490e-01;
const _LN2_LO: f64 = 1.90821492927058770002e-10;
const _INV_LN2: f64 = 1.44269504088896338700e+00;
const _P1: f64 = 1.66666666666666019037e-01;
const _P2: f64 = -2.77777777770155933842e-03;
const _P3: f64 = 6.61375632143793436117e-05;
const _P4: f64 = -1.65339022054652515390e-06;
const _P5: f64 = 4.13813679705723846039e-08;
const _TWOM1000: f64 = 9.33263618503218878990e-302;

/** e^x for x ≤ −16 (or NaN): fdlibm's __ieee754_exp on that branch. */
function _expNeg(x: f64): f64 {
  if (x != x) return x + x;
  if (x < -7.45133219101941108420e+02) return 0.0;
  // |x| ≥ 16 > 1.5 ln2: k = (int)(x/ln2 − ½)
  const k = <i32>(_INV_LN2 * x - 0.5);
  const t = <f64>k;
  const hi = x - t * _LN2_HI;
  const lo = t * _LN2_LO;
  const r = hi - lo;
  const t2 = r * r;
  const c = r - t2 * (_P1 + t2 * (_P2 + t2 * (_P3 + t2 * (_P4 + t2 * _P5))));
  const y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  if (k >= -1021) {
    return reinterpret<f64>(reinterpret<u64>(y) + (<u64>(<i64>k) << 52));
  }
  return reinterpret<f64>(reinterpret<u64>(y) + (<u64>(<i64>(k + 1000)) << 52)) * _TWOM1000;
}

/** f(z) on one value (the scalar path: stale rows, |z| ≥ 16, NaN). */
// @ts-ignore: decorator
@inline function _f1(z: f64, tab: usize): f64 {
  const a = abs<f64>(z);
  if (!(a < 16.0)) return a + 2.0 * _expNeg(-a);
  const u = a * 32.0;
  const q = <i32>u;
  const t = u - <f64>q;
  const t2 = t * t;
  const t3 = t2 * t;
  const p = tab + (<usize>q << 5);
  return a + (2.0 * t3 - 3.0 * t2 + 1.0) * load<f64>(p) + (t3 - 2.0 * t2 + t) * load<f64>(p, 8) +
    (3.0 * t2 - 2.0 * t3) * load<f64>(p, 16) + (t3 - t2) * load<f64>(p, 24);
}

/** f on both lanes: the same operations as {@link _f1}, lane by lane. */
// @ts-ignore: decorator
@inline function _f2(z: v128, tab: usize): v128 {
  const a = f64x2.abs(z);
  if (!i64x2.all_true(f64x2.lt(a, f64x2.splat(16.0)))) {
    return f64x2.replace_lane(
      f64x2.splat(_f1(f64x2.extract_lane(z, 0), tab)),
      1,
      _f1(f64x2.extract_lane(z, 1), tab),
    );
  }
  const u = f64x2.mul(a, f64x2.splat(32.0));
  const qi = i32x4.trunc_sat_f64x2_s_zero(u);
  const t = f64x2.sub(u, f64x2.convert_low_i32x4_s(qi));
  const p0 = tab + (<usize>i32x4.extract_lane(qi, 0) << 5);
  const p1 = tab + (<usize>i32x4.extract_lane(qi, 1) << 5);
  const lo0 = v128.load(p0), hi0 = v128.load(p0, 16);
  const lo1 = v128.load(p1), hi1 = v128.load(p1, 16);
  const t2 = f64x2.mul(t, t);
  const t3 = f64x2.mul(t2, t);
  const two = f64x2.splat(2.0), three = f64x2.splat(3.0);
  const ca = f64x2.add(f64x2.sub(f64x2.mul(two, t3), f64x2.mul(three, t2)), f64x2.splat(1.0));
  const cb = f64x2.add(f64x2.sub(t3, f64x2.mul(two, t2)), t);
  const cc = f64x2.sub(f64x2.mul(three, t2), f64x2.mul(two, t3));
  const cd = f64x2.sub(t3, t2);
  let s = f64x2.add(a, f64x2.mul(ca, f64x2.shuffle(lo0, lo1, 0, 2)));
  s = f64x2.add(s, f64x2.mul(cb, f64x2.shuffle(lo0, lo1, 1, 3)));
  s = f64x2.add(s, f64x2.mul(cc, f64x2.shuffle(hi0, hi1, 0, 2)));
  return f64x2.add(s, f64x2.mul(cd, f64x2.shuffle(hi0, hi1, 1, 3)));
}

/** (w_aᵀx, w_bᵀx) for the row at p: ((w0·x0 + w1·x1) + w2·x2) + w3·x3 per lane. */
// @ts-ignore: decorator
@inline function _z2(p: usize, c0: v128, c1: v128, c2: v128, c3: v128): v128 {
  let z = f64x2.add(
    f64x2.mul(c0, v128.load64_splat(p)),
    f64x2.mul(c1, v128.load64_splat(p, 8)),
  );
  z = f64x2.add(z, f64x2.mul(c2, v128.load64_splat(p, 16)));
  return f64x2.add(z, f64x2.mul(c3, v128.load64_splat(p, 24)));
}

/** Column c of rows a and b of a 4 × 4 matrix: (m[a][c], m[b][c]). */
// @ts-ignore: decorator
@inline function _col2(m: usize, a: i32, b: i32, c: i32): v128 {
  return f64x2.replace_lane(
    f64x2.splat(load<f64>(m + (<usize>(a * 4 + c) << 3))),
    1,
    load<f64>(m + (<usize>(b * 4 + c) << 3)),
  );
}

// ─── kernels ────────────────────────────────────────────────────────────────

/**
 * l for the m rows idx[0 … m) without a cache: f at W and W' for rows j and
 * k of every row. The rows are first copied to `g` (m × 4 f64) so that their
 * loads, at random places in x, overlap. Returns 0, or −(q + 1) when idx[q]
 * is outside [0, n) (nothing computed).
 */
export function icaDiff(
  x: usize,
  n: i32,
  w: usize,
  wp: usize,
  j: i32,
  k: i32,
  tab: usize,
  idx: usize,
  m: i32,
  g: usize,
  out: usize,
): i32 {
  for (let q = 0; q < m; q++) {
    const i = load<i32>(idx + (<usize>q << 2));
    if (<u32>i >= <u32>n) return -(q + 1);
    const src = x + (<usize>i << 5);
    const dst = g + (<usize>q << 5);
    v128.store(dst, v128.load(src));
    v128.store(dst, v128.load(src, 16), 16);
  }
  const a0 = _col2(w, j, k, 0), a1 = _col2(w, j, k, 1);
  const a2 = _col2(w, j, k, 2), a3 = _col2(w, j, k, 3);
  const b0 = _col2(wp, j, k, 0), b1 = _col2(wp, j, k, 1);
  const b2 = _col2(wp, j, k, 2), b3 = _col2(wp, j, k, 3);
  for (let q = 0; q < m; q++) {
    const p = g + (<usize>q << 5);
    const fc = _f2(_z2(p, a0, a1, a2, a3), tab);
    const fp = _f2(_z2(p, b0, b1, b2, b3), tab);
    store<f64>(
      out + (<usize>q << 3),
      f64x2.extract_lane(fc, 0) + f64x2.extract_lane(fc, 1) - f64x2.extract_lane(fp, 0) -
        f64x2.extract_lane(fp, 1),
    );
  }
  return 0;
}

/** A stale row's four columns anew (f of every row of W); returns 1. Kept out of line: rare. */
function _refresh(
  p: usize,
  o: usize,
  w: usize,
  c0: usize,
  c1: usize,
  c2: usize,
  c3: usize,
  tab: usize,
): i32 {
  const f01 = _f2(_z2(p, _col2(w, 0, 1, 0), _col2(w, 0, 1, 1), _col2(w, 0, 1, 2), _col2(w, 0, 1, 3)), tab);
  const f23 = _f2(_z2(p, _col2(w, 2, 3, 0), _col2(w, 2, 3, 1), _col2(w, 2, 3, 2), _col2(w, 2, 3, 3)), tab);
  store<f64>(c0 + o, f64x2.extract_lane(f01, 0));
  store<f64>(c1 + o, f64x2.extract_lane(f01, 1));
  store<f64>(c2 + o, f64x2.extract_lane(f23, 0));
  store<f64>(c3 + o, f64x2.extract_lane(f23, 1));
  return 1;
}

/**
 * l for the m rows idx[0 … m) with the per-row cache of f at W. A row is
 * current when stamp[i] ≥ valid (evaluated or refreshed at or after the
 * last accepted proposal); a stale row first gets all four columns anew.
 * Every row gets stamp[i] = proposal and nj, nk = f at W' for rows j, k.
 * Returns the number of stale rows refreshed, or −(q + 1) when idx[q] is
 * outside [0, n) (the rows before it are done).
 */
export function icaDiffCached(
  x: usize,
  n: i32,
  c0: usize,
  c1: usize,
  c2: usize,
  c3: usize,
  stamp: usize,
  proposal: i32,
  valid: i32,
  nj: usize,
  nk: usize,
  w: usize,
  wp: usize,
  j: i32,
  k: i32,
  tab: usize,
  idx: usize,
  m: i32,
  out: usize,
): i32 {
  const cj = j == 0 ? c0 : j == 1 ? c1 : j == 2 ? c2 : c3;
  const ck = k == 0 ? c0 : k == 1 ? c1 : k == 2 ? c2 : c3;
  const b0 = _col2(wp, j, k, 0), b1 = _col2(wp, j, k, 1);
  const b2 = _col2(wp, j, k, 2), b3 = _col2(wp, j, k, 3);
  let refreshed = 0;
  let q = 0;
  // Two rows per step: their f are independent, so the two chains of operations overlap.
  for (; q + 2 <= m; q += 2) {
    const ra = load<i32>(idx + (<usize>q << 2));
    if (<u32>ra >= <u32>n) return -(q + 1);
    const rb = load<i32>(idx + (<usize>q << 2), 4);
    if (<u32>rb >= <u32>n) return -(q + 2);
    const ia = <usize>ra, ib = <usize>rb;
    const pa = x + (ia << 5), pb = x + (ib << 5);
    const oa = ia << 3, ob = ib << 3;
    if (load<i32>(stamp + (ia << 2)) < valid) refreshed += _refresh(pa, oa, w, c0, c1, c2, c3, tab);
    store<i32>(stamp + (ia << 2), proposal);
    if (load<i32>(stamp + (ib << 2)) < valid) refreshed += _refresh(pb, ob, w, c0, c1, c2, c3, tab);
    store<i32>(stamp + (ib << 2), proposal);
    const fa = _f2(_z2(pa, b0, b1, b2, b3), tab);
    const fb = _f2(_z2(pb, b0, b1, b2, b3), tab);
    const fja = f64x2.extract_lane(fa, 0), fka = f64x2.extract_lane(fa, 1);
    const fjb = f64x2.extract_lane(fb, 0), fkb = f64x2.extract_lane(fb, 1);
    store<f64>(nj + oa, fja);
    store<f64>(nk + oa, fka);
    store<f64>(nj + ob, fjb);
    store<f64>(nk + ob, fkb);
    store<f64>(out + (<usize>q << 3), load<f64>(cj + oa) + load<f64>(ck + oa) - fja - fka);
    store<f64>(out + (<usize>q << 3), load<f64>(cj + ob) + load<f64>(ck + ob) - fjb - fkb, 8);
  }
  if (q < m) {
    const r = load<i32>(idx + (<usize>q << 2));
    if (<u32>r >= <u32>n) return -(q + 1);
    const i = <usize>r;
    const p = x + (i << 5);
    const o = i << 3;
    if (load<i32>(stamp + (i << 2)) < valid) refreshed += _refresh(p, o, w, c0, c1, c2, c3, tab);
    store<i32>(stamp + (i << 2), proposal);
    const fp = _f2(_z2(p, b0, b1, b2, b3), tab);
    const fj = f64x2.extract_lane(fp, 0), fk = f64x2.extract_lane(fp, 1);
    store<f64>(nj + o, fj);
    store<f64>(nk + o, fk);
    store<f64>(out + (<usize>q << 3), load<f64>(cj + o) + load<f64>(ck + o) - fj - fk);
  }
  return refreshed;
}
