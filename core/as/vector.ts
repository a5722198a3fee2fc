// AssemblyScript: row gathers and small dense vector kernels
// (part of the tallmc core; entry file kernels.ts).
//
//   src ─► rows of `stride` entries; idx ─► m i32; dst ─► m rows, contiguous
//   gatherF32AsF64 reads f32 rows and writes them as f64 (exact widening)
//   axpy, dot, matvec, mulElem: f64 vectors, A r × c row-major

import { _axpy1, _dot1, _dot2 } from "./rows";

// ─── gathers and vector kernels ─────────────────────────────────────────────

/** dst row k = src row idx[k], rows of `stride` f64. */
export function gatherF64(src: usize, stride: i32, idx: usize, m: i32, dst: usize): void {
  const rowBytes = <usize>stride << 3;
  for (let k = 0; k < m; k++) {
    const i = load<i32>(idx + (<usize>k << 2));
    memory.copy(dst + <usize>k * rowBytes, src + <usize>i * rowBytes, rowBytes);
  }
}

/** dst row k = src row idx[k], rows of `stride` f32. */
export function gatherF32(src: usize, stride: i32, idx: usize, m: i32, dst: usize): void {
  const rowBytes = <usize>stride << 2;
  for (let k = 0; k < m; k++) {
    const i = load<i32>(idx + (<usize>k << 2));
    memory.copy(dst + <usize>k * rowBytes, src + <usize>i * rowBytes, rowBytes);
  }
}

/** dst row k = src row idx[k] widened to f64: `stride` f32 in, `stride` f64 out (exact). */
export function gatherF32AsF64(src: usize, stride: i32, idx: usize, m: i32, dst: usize): void {
  const inBytes = <usize>stride << 2;
  const outBytes = <usize>stride << 3;
  for (let k = 0; k < m; k++) {
    const p = src + <usize>load<i32>(idx + (<usize>k << 2)) * inBytes;
    const q = dst + <usize>k * outBytes;
    let j = 0;
    for (; j + 4 <= stride; j += 4) {
      // four f32 in one load: the low pair promoted, then the high pair moved down and promoted
      const v = v128.load(p + (<usize>j << 2));
      v128.store(q + (<usize>j << 3), f64x2.promote_low_f32x4(v));
      v128.store(q + (<usize>j << 3), f64x2.promote_low_f32x4(f64x2.shuffle(v, v, 1, 1)), 16);
    }
    for (; j + 2 <= stride; j += 2) {
      v128.store(q + (<usize>j << 3), f64x2.promote_low_f32x4(v128.load64_zero(p + (<usize>j << 2))));
    }
    if (j < stride) store<f64>(q + (<usize>j << 3), <f64>load<f32>(p + (<usize>j << 2)));
  }
}

/** y += a·x over n f64. */
export function axpy(n: i32, a: f64, x: usize, y: usize): void {
  _axpy1<f64>(y, x, a, n);
}

/** Σ xᵢyᵢ over n f64. */
export function dot(n: i32, x: usize, y: usize): f64 {
  return _dot1<f64>(x, y, n);
}

/** y = A·x, A r × c row-major (two rows per step). */
export function matvec(r: i32, c: i32, a: usize, x: usize, y: usize): void {
  const rowBytes = <usize>c << 3;
  let i = 0;
  for (; i + 2 <= r; i += 2) {
    const p0 = a + <usize>i * rowBytes;
    v128.store(y + (<usize>i << 3), _dot2<f64>(p0, p0 + rowBytes, x, c));
  }
  if (i < r) store<f64>(y + (<usize>i << 3), _dot1<f64>(a + <usize>i * rowBytes, x, c));
}

/** y = v⊙x over n f64. */
export function mulElem(n: i32, v: usize, x: usize, y: usize): void {
  let j = 0;
  for (; j + 2 <= n; j += 2) {
    const o = <usize>j << 3;
    v128.store(y + o, f64x2.mul(v128.load(v + o), v128.load(x + o)));
  }
  if (j < n) {
    const o = <usize>j << 3;
    store<f64>(y + o, load<f64>(v + o) * load<f64>(x + o));
  }
}
