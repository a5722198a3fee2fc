// AssemblyScript: the dense BFGS update of an inverse-Hessian approximation
// (part of the tallmc core; entry file kernels.ts; bound by core/dense_ops.ts,
// used by samplers/qnhmc/bfgs.ts).
//
//   c ─► d × d f64 row-major, symmetric, updated in place
//   pairs ─► K pairs, pair k = s (d f64) then y (d f64) at pairs + 16·d·k
//   rho ─► K f64, ρ = 1/sᵀy per pair
//   h ─► 2·d f64 scratch (C y of the current pair, and of the next)
//
//   per pair, in order:
//   h    = C y            row by row, four accumulators a0 … a3 over j ≡ 0 … 3 (mod 4),
//                          the tail j ≥ 4⌊d/4⌋ added to a0, then (a0 + a1) + (a2 + a3)
//   yᵀh  = Σᵢ yᵢhᵢ        in index order
//   C⁺ᵢⱼ = Cᵢⱼ + (κ (sᵢsⱼ) − ρ (sᵢhⱼ + hᵢsⱼ)),   κ = ρ² yᵀh + ρ
//
// These are the operations of the TypeScript update in samplers/qnhmc/bfgs.ts
// in its order (mul and add, no fused multiply-add, in both builds), so C⁺ is
// the same bit for bit; (i, j) and (j, i) come from the same products in
// commuted order, so a symmetric C stays exactly symmetric. One pass over C
// per pair: the product C⁺y of the next pair is summed from each row as soon
// as that row is updated (the same sums in the same order as a separate
// pass). Vector layout: lanes are two neighbouring columns j, j + 1 of a row.

/** Σⱼ row[j]·v[j] in the four-accumulator order of the file comment. */
// @ts-ignore: decorator
@inline function _rowDot(row: usize, v: usize, d: i32): f64 {
  const d4 = d - (d & 3);
  let a01 = f64x2.splat(0.0), a23 = f64x2.splat(0.0);
  let j = 0;
  for (; j < d4; j += 4) {
    const o = <usize>j << 3;
    a01 = f64x2.add(a01, f64x2.mul(v128.load(row + o), v128.load(v + o)));
    a23 = f64x2.add(a23, f64x2.mul(v128.load(row + o, 16), v128.load(v + o, 16)));
  }
  let a0 = f64x2.extract_lane(a01, 0);
  for (; j < d; j++) a0 += load<f64>(row + (<usize>j << 3)) * load<f64>(v + (<usize>j << 3));
  return (a0 + f64x2.extract_lane(a01, 1)) + (f64x2.extract_lane(a23, 0) + f64x2.extract_lane(a23, 1));
}

/** Entries j, j + 1 of the updated row (see the file comment). */
// @ts-ignore: decorator
@inline function _upd2(
  row: usize,
  o: usize,
  s: usize,
  h: usize,
  vs: v128,
  vh: v128,
  kc: v128,
  kr: v128,
): v128 {
  const sj = v128.load(s + o), hj = v128.load(h + o);
  const r = f64x2.add(
    v128.load(row + o),
    f64x2.sub(
      f64x2.mul(kc, f64x2.mul(vs, sj)),
      f64x2.mul(kr, f64x2.add(f64x2.mul(vs, hj), f64x2.mul(vh, sj))),
    ),
  );
  v128.store(row + o, r);
  return r;
}

/**
 * Fold K pairs into C in place, oldest first (see the file comment): for
 * each pair h = C y, then C ← C − ρ(s hᵀ + h sᵀ) + (ρ² yᵀh + ρ) s sᵀ.
 */
export function bfgsUpdate(d: i32, c: usize, pairs: usize, rho: usize, count: i32, h: usize): void {
  if (count <= 0) return;
  const rowBytes = <usize>d << 3;
  const d4 = d - (d & 3);
  let hCur = h, hNext = h + rowBytes;
  // h of the first pair: a separate pass; the others come with the previous pair's update.
  const y0 = pairs + rowBytes;
  for (let i = 0; i < d; i++) store<f64>(hCur + (<usize>i << 3), _rowDot(c + <usize>i * rowBytes, y0, d));
  for (let k = 0; k < count; k++) {
    const s = pairs + <usize>(2 * k) * rowBytes, y = s + rowBytes;
    const r = load<f64>(rho + (<usize>k << 3));
    let yhy = 0.0;
    for (let i = 0; i < d; i++) {
      yhy += load<f64>(y + (<usize>i << 3)) * load<f64>(hCur + (<usize>i << 3));
    }
    const coef = r * r * yhy + r;
    const kc = f64x2.splat(coef), kr = f64x2.splat(r);
    const more = k + 1 < count;
    const yn = y + rowBytes + rowBytes; // y of the next pair (read only when there is one)
    for (let i = 0; i < d; i++) {
      const row = c + <usize>i * rowBytes;
      const si = load<f64>(s + (<usize>i << 3)), hi = load<f64>(hCur + (<usize>i << 3));
      const vs = f64x2.splat(si), vh = f64x2.splat(hi);
      let a01 = f64x2.splat(0.0), a23 = f64x2.splat(0.0);
      let j = 0;
      for (; j < d4; j += 4) {
        const o = <usize>j << 3;
        const r01 = _upd2(row, o, s, hCur, vs, vh, kc, kr);
        const r23 = _upd2(row, o + 16, s, hCur, vs, vh, kc, kr);
        if (more) {
          a01 = f64x2.add(a01, f64x2.mul(r01, v128.load(yn + o)));
          a23 = f64x2.add(a23, f64x2.mul(r23, v128.load(yn + o, 16)));
        }
      }
      let a0 = f64x2.extract_lane(a01, 0);
      for (; j < d; j++) {
        const o = <usize>j << 3;
        const sj = load<f64>(s + o), hj = load<f64>(hCur + o);
        const v = load<f64>(row + o) + (coef * (si * sj) - r * (si * hj + hi * sj));
        store<f64>(row + o, v);
        if (more) a0 += v * load<f64>(yn + o);
      }
      if (more) {
        store<f64>(
          hNext + (<usize>i << 3),
          (a0 + f64x2.extract_lane(a01, 1)) +
            (f64x2.extract_lane(a23, 0) + f64x2.extract_lane(a23, 1)),
        );
      }
    }
    const t = hCur;
    hCur = hNext;
    hNext = t;
  }
}
