// AssemblyScript: one row group's columns → row-major X, with the checks and column
// statistics of the Parquet reader (part of the tallmc core; entry file kernels.ts).
//
//   cols ─► d u32 pointers, column k's n values (f32 or f64, `src64`) at cols[k]
//   x    ─► n × d row-major out (f32 or f64, `dst64`): x[i·d + k] = cols[k][i]
//   lo, hi, sum ─► d f64 each; h ─► d i32: updated in row order per column, as
//        data/csv_checks.ts's ColumnStats does it: lo = v < lo ? v : lo, hi = v > hi ? v : hi,
//        sum += v, h = (h ^ high word of v's f64 bits) · 0x01000193 + low word (wrapping)
//
// Returns 1 when every cell v has |v| ≤ maxAbs (false for NaN) and |v| ≥ minAbs or v = 0,
// else 0 (the host then finds and names the first bad cell itself). The f32 rounding of the
// output is round-to-nearest-even, as a store into a Float32Array.
//
// The rows go in tiles of TILE rows; within a tile, four columns at a time: their values of
// one row are one f32x4 (or two f64x2) store into the row, and their statistics are four
// lanes whose per-lane arithmetic is the scalar one (so the same numbers, bit for bit).

// @ts-ignore: decorator
@inline
const TILE: i32 = 1024;

// @ts-ignore: decorator
@inline
const F32_MAX: f32 = 3.4028234663852886e38;

// @ts-ignore: decorator
@inline
function ld<S>(p: usize, i: i32): f64 {
  return <f64>load<S>(p + (<usize>i << alignof<S>()));
}

/** Columns k0 … k0+3 over rows [i0, i1). Returns the bad-cell mask lanes. */
// @ts-ignore: decorator
@inline
function quad<S, D>(
  cols: usize,
  k0: i32,
  i0: i32,
  i1: i32,
  d: i32,
  x: usize,
  lo: usize,
  hi: usize,
  sum: usize,
  h: usize,
  minAbs: v128,
  maxAbs: v128,
): v128 {
  const c0 = <usize>load<u32>(cols + (<usize>k0 << 2));
  const c1 = <usize>load<u32>(cols + (<usize>k0 << 2), 4);
  const c2 = <usize>load<u32>(cols + (<usize>k0 << 2), 8);
  const c3 = <usize>load<u32>(cols + (<usize>k0 << 2), 12);
  const o8 = <usize>k0 << 3;
  let lA = v128.load(lo + o8), lB = v128.load(lo + o8, 16);
  let uA = v128.load(hi + o8), uB = v128.load(hi + o8, 16);
  let sA = v128.load(sum + o8), sB = v128.load(sum + o8, 16);
  let hh = v128.load(h + (<usize>k0 << 2));
  let bad = i64x2.splat(0);
  const zero = f64x2.splat(0);
  const prime = i32x4.splat(0x01000193);
  const rowBytes = <usize>d << alignof<D>();
  let out = x + <usize>i0 * rowBytes + (<usize>k0 << alignof<D>());
  for (let i = i0; i < i1; i++, out += rowBytes) {
    const vA = f64x2.replace_lane(f64x2.splat(ld<S>(c0, i)), 1, ld<S>(c1, i));
    const vB = f64x2.replace_lane(f64x2.splat(ld<S>(c2, i)), 1, ld<S>(c3, i));
    if (sizeof<D>() == 4) {
      v128.store(
        out,
        v128.shuffle<i32>(f32x4.demote_f64x2_zero(vA), f32x4.demote_f64x2_zero(vB), 0, 1, 4, 5),
      );
    } else {
      v128.store(out, vA);
      v128.store(out, vB, 16);
    }
    const aA = f64x2.abs(vA), aB = f64x2.abs(vB);
    bad = v128.or(
      bad,
      v128.or(
        v128.or(v128.not(f64x2.le(aA, maxAbs)), v128.not(f64x2.le(aB, maxAbs))),
        v128.or(
          v128.and(f64x2.lt(aA, minAbs), f64x2.ne(aA, zero)),
          v128.and(f64x2.lt(aB, minAbs), f64x2.ne(aB, zero)),
        ),
      ),
    );
    // pmin(l, v) = v < l ? v : l; pmax(u, v) = u < v ? v : u.
    lA = f64x2.pmin(lA, vA);
    lB = f64x2.pmin(lB, vB);
    uA = f64x2.pmax(uA, vA);
    uB = f64x2.pmax(uB, vB);
    sA = f64x2.add(sA, vA);
    sB = f64x2.add(sB, vB);
    // Words of (vA, vB) as i32 lanes: lo0 hi0 lo1 hi1 | lo2 hi2 lo3 hi3.
    const high = v128.shuffle<i32>(vA, vB, 1, 3, 5, 7);
    const low = v128.shuffle<i32>(vA, vB, 0, 2, 4, 6);
    hh = i32x4.add(i32x4.mul(v128.xor(hh, high), prime), low);
  }
  v128.store(lo + o8, lA);
  v128.store(lo + o8, lB, 16);
  v128.store(hi + o8, uA);
  v128.store(hi + o8, uB, 16);
  v128.store(sum + o8, sA);
  v128.store(sum + o8, sB, 16);
  v128.store(h + (<usize>k0 << 2), hh);
  return bad;
}

/**
 * {@link quad} for f32 columns: the cells are checked on the columns' own 16-byte vectors (four
 * rows of one column), which a 4 × 4 shuffle turns into four rows of four cells; each row is one
 * f32x4 (compared and stored as f32; promoted to f64 only for the sum and the hash, in row order).
 * The same numbers as quad when the running minima and maxima are f32 values and the bounds are
 * f32 (see transpose).
 *
 * The checks go by the bits of |v| (sign cleared), whose order as integers is that of the values
 * for every non-NaN v and puts NaN above +∞: |v| ≤ maxAbs fails exactly when bits(|v|) >
 * bits(maxAbs) (signed), and 0 < |v| < minAbs holds exactly when bits(|v|) − 1 < bits(minAbs) − 1
 * (unsigned) for minAbs > 0. So the largest bits and the smallest bits − 1 over the cells decide.
 */
// @ts-ignore: decorator
@inline
function quad32<D>(
  cols: usize,
  k0: i32,
  i0: i32,
  i1: i32,
  d: i32,
  x: usize,
  lo: usize,
  hi: usize,
  sum: usize,
  h: usize,
  minAbs: f32,
  maxAbs: f32,
): v128 {
  const c0 = <usize>load<u32>(cols + (<usize>k0 << 2));
  const c1 = <usize>load<u32>(cols + (<usize>k0 << 2), 4);
  const c2 = <usize>load<u32>(cols + (<usize>k0 << 2), 8);
  const c3 = <usize>load<u32>(cols + (<usize>k0 << 2), 12);
  const o8 = <usize>k0 << 3;
  let l = v128.shuffle<i32>(
    f32x4.demote_f64x2_zero(v128.load(lo + o8)),
    f32x4.demote_f64x2_zero(v128.load(lo + o8, 16)),
    0, 1, 4, 5,
  );
  let u = v128.shuffle<i32>(
    f32x4.demote_f64x2_zero(v128.load(hi + o8)),
    f32x4.demote_f64x2_zero(v128.load(hi + o8, 16)),
    0, 1, 4, 5,
  );
  let sA = v128.load(sum + o8), sB = v128.load(sum + o8, 16);
  let hh = v128.load(h + (<usize>k0 << 2));
  // Largest bits(|v|) (signed) and smallest bits(|v|) − 1 (unsigned) so far.
  let top = i32x4.splat(0), low1 = i32x4.splat(-1);
  const absMask = i32x4.splat(0x7fffffff), one = i32x4.splat(1);
  const prime = i32x4.splat(0x01000193);
  const rowBytes = <usize>d << alignof<D>();
  let out = x + <usize>i0 * rowBytes + (<usize>k0 << alignof<D>());
  let i = i0;
  for (; i + 4 <= i1; i += 4) {
    const o = <usize>i << 2;
    const a0 = v128.load(c0 + o), a1 = v128.load(c1 + o);
    const a2 = v128.load(c2 + o), a3 = v128.load(c3 + o);
    const b0 = v128.and(a0, absMask), b1 = v128.and(a1, absMask);
    const b2 = v128.and(a2, absMask), b3 = v128.and(a3, absMask);
    top = i32x4.max_s(top, i32x4.max_s(i32x4.max_s(b0, b1), i32x4.max_s(b2, b3)));
    low1 = i32x4.min_u(
      low1,
      i32x4.min_u(
        i32x4.min_u(i32x4.sub(b0, one), i32x4.sub(b1, one)),
        i32x4.min_u(i32x4.sub(b2, one), i32x4.sub(b3, one)),
      ),
    );
    // 4 × 4: t0 = (a0[0] a1[0] a0[1] a1[1]), t1 = (a0[2] a1[2] a0[3] a1[3]), t2, t3 likewise.
    const t0 = v128.shuffle<i32>(a0, a1, 0, 4, 1, 5), t1 = v128.shuffle<i32>(a0, a1, 2, 6, 3, 7);
    const t2 = v128.shuffle<i32>(a2, a3, 0, 4, 1, 5), t3 = v128.shuffle<i32>(a2, a3, 2, 6, 3, 7);
    for (let r = 0; r < 4; r++, out += rowBytes) {
      const v = r == 0
        ? v128.shuffle<i64>(t0, t2, 0, 2)
        : r == 1
        ? v128.shuffle<i64>(t0, t2, 1, 3)
        : r == 2
        ? v128.shuffle<i64>(t1, t3, 0, 2)
        : v128.shuffle<i64>(t1, t3, 1, 3);
      const vA = f64x2.promote_low_f32x4(v);
      const vB = f64x2.promote_low_f32x4(v128.shuffle<i64>(v, v, 1, 1));
      if (sizeof<D>() == 4) {
        v128.store(out, v);
      } else {
        v128.store(out, vA);
        v128.store(out, vB, 16);
      }
      l = f32x4.pmin(l, v);
      u = f32x4.pmax(u, v);
      sA = f64x2.add(sA, vA);
      sB = f64x2.add(sB, vB);
      const high = v128.shuffle<i32>(vA, vB, 1, 3, 5, 7);
      const lw = v128.shuffle<i32>(vA, vB, 0, 2, 4, 6);
      hh = i32x4.add(i32x4.mul(v128.xor(hh, high), prime), lw);
    }
  }
  for (; i < i1; i++, out += rowBytes) {
    const o = <usize>i << 2;
    let v = f32x4.splat(load<f32>(c0 + o));
    v = f32x4.replace_lane(v, 1, load<f32>(c1 + o));
    v = f32x4.replace_lane(v, 2, load<f32>(c2 + o));
    v = f32x4.replace_lane(v, 3, load<f32>(c3 + o));
    const b = v128.and(v, absMask);
    top = i32x4.max_s(top, b);
    low1 = i32x4.min_u(low1, i32x4.sub(b, one));
    const vA = f64x2.promote_low_f32x4(v);
    const vB = f64x2.promote_low_f32x4(v128.shuffle<i64>(v, v, 1, 1));
    if (sizeof<D>() == 4) {
      v128.store(out, v);
    } else {
      v128.store(out, vA);
      v128.store(out, vB, 16);
    }
    l = f32x4.pmin(l, v);
    u = f32x4.pmax(u, v);
    sA = f64x2.add(sA, vA);
    sB = f64x2.add(sB, vB);
    const high = v128.shuffle<i32>(vA, vB, 1, 3, 5, 7);
    const lw = v128.shuffle<i32>(vA, vB, 0, 2, 4, 6);
    hh = i32x4.add(i32x4.mul(v128.xor(hh, high), prime), lw);
  }
  v128.store(lo + o8, f64x2.promote_low_f32x4(l));
  v128.store(lo + o8, f64x2.promote_low_f32x4(v128.shuffle<i32>(l, l, 2, 3, 2, 3)), 16);
  v128.store(hi + o8, f64x2.promote_low_f32x4(u));
  v128.store(hi + o8, f64x2.promote_low_f32x4(v128.shuffle<i32>(u, u, 2, 3, 2, 3)), 16);
  v128.store(sum + o8, sA);
  v128.store(sum + o8, sB, 16);
  v128.store(h + (<usize>k0 << 2), hh);
  let bad = i32x4.gt_s(top, i32x4.splat(reinterpret<i32>(maxAbs)));
  if (minAbs > 0) {
    bad = v128.or(bad, i32x4.lt_u(low1, i32x4.splat(reinterpret<i32>(minAbs) - 1)));
  }
  return bad;
}

/** Column k over rows [i0, i1), scalar. Returns whether every cell passed. */
// @ts-ignore: decorator
@inline
function single<S, D>(
  cols: usize,
  k: i32,
  i0: i32,
  i1: i32,
  d: i32,
  x: usize,
  lo: usize,
  hi: usize,
  sum: usize,
  h: usize,
  minAbs: f64,
  maxAbs: f64,
): bool {
  const c = <usize>load<u32>(cols + (<usize>k << 2));
  const o8 = <usize>k << 3, o4 = <usize>k << 2;
  let l = load<f64>(lo + o8), u = load<f64>(hi + o8), s = load<f64>(sum + o8);
  let hv = load<i32>(h + o4);
  let ok = true;
  const rowBytes = <usize>d << alignof<D>();
  let out = x + <usize>i0 * rowBytes + (<usize>k << alignof<D>());
  for (let i = i0; i < i1; i++, out += rowBytes) {
    const v = ld<S>(c, i), a = abs<f64>(v);
    if (!(a <= maxAbs) || (a < minAbs && a != 0)) ok = false;
    if (v < l) l = v;
    if (v > u) u = v;
    s += v;
    const bits = reinterpret<u64>(v);
    hv = (hv ^ <i32>(bits >> 32)) * 0x01000193 + <i32>bits;
    if (sizeof<D>() == 4) store<f32>(out, <f32>v);
    else store<f64>(out, v);
  }
  store<f64>(lo + o8, l);
  store<f64>(hi + o8, u);
  store<f64>(sum + o8, s);
  store<i32>(h + o4, hv);
  return ok;
}

function transpose<S, D>(
  cols: usize,
  n: i32,
  d: i32,
  x: usize,
  lo: usize,
  hi: usize,
  sum: usize,
  h: usize,
  minAbs: f64,
  maxAbs: f64,
): i32 {
  const vMin = f64x2.splat(minAbs), vMax = f64x2.splat(maxAbs);
  const d4 = d & ~3;
  let bad = i64x2.splat(0);
  let ok = true;
  // f32 columns take quad32 when that gives the same numbers: the running minima and maxima
  // are f32 values (so their f32 comparisons are the f64 ones), minAbs is an f32 value, and
  // maxAbs is one or is at least the largest f32 (then every finite f32 passes it, as in f64).
  let f32Lanes = sizeof<S>() == 4 && <f64><f32>minAbs == minAbs &&
    (maxAbs >= <f64>F32_MAX || <f64><f32>maxAbs == maxAbs);
  for (let k = 0; k < d4 && f32Lanes; k++) {
    const a = load<f64>(lo + (<usize>k << 3)), b = load<f64>(hi + (<usize>k << 3));
    if (<f64><f32>a != a || <f64><f32>b != b) f32Lanes = false;
  }
  const min32 = <f32>minAbs;
  const max32 = maxAbs >= <f64>F32_MAX ? F32_MAX : <f32>maxAbs;
  for (let i0 = 0; i0 < n; i0 += TILE) {
    const i1 = min(n, i0 + TILE);
    for (let k = 0; k < d4; k += 4) {
      bad = v128.or(
        bad,
        f32Lanes
          ? quad32<D>(cols, k, i0, i1, d, x, lo, hi, sum, h, min32, max32)
          : quad<S, D>(cols, k, i0, i1, d, x, lo, hi, sum, h, vMin, vMax),
      );
    }
    for (let k = d4; k < d; k++) {
      if (!single<S, D>(cols, k, i0, i1, d, x, lo, hi, sum, h, minAbs, maxAbs)) ok = false;
    }
  }
  return ok && !v128.any_true(bad) ? 1 : 0;
}

/**
 * x[i·d + k] = cols[k][i] for i < n, k < d, with the checks and statistics above. `src64`:
 * the columns are f64 (else f32); `dst64`: x is f64 (else f32). Returns 1 if every cell
 * passed the checks, else 0.
 */
export function pqTranspose(
  cols: usize,
  src64: i32,
  n: i32,
  d: i32,
  x: usize,
  dst64: i32,
  lo: usize,
  hi: usize,
  sum: usize,
  h: usize,
  minAbs: f64,
  maxAbs: f64,
): i32 {
  if (src64 != 0) {
    return dst64 != 0
      ? transpose<f64, f64>(cols, n, d, x, lo, hi, sum, h, minAbs, maxAbs)
      : transpose<f64, f32>(cols, n, d, x, lo, hi, sum, h, minAbs, maxAbs);
  }
  return dst64 != 0
    ? transpose<f32, f64>(cols, n, d, x, lo, hi, sum, h, minAbs, maxAbs)
    : transpose<f32, f32>(cols, n, d, x, lo, hi, sum, h, minAbs, maxAbs);
}
