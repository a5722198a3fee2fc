// AssemblyScript source of the tallmc compute core (entry file of both builds).
//
// Memory layout (byte offsets into the imported env.memory; see core/exports.ts):
//
//   x ──► ┌ row 0 : x00 x01 … x0,d-1 ┐  f64 (w = 8) or f32 (w = 4) entries,
//         │ row 1 : …                │  row i at x + i·d·w (unaligned for
//         └ row n-1                  ┘  odd d: loads are unaligned v128)
//   y ──► y0 … yn-1                       f64
//   θ ──► θ0 … θd-1                       f64   (cache resident)
//   grad ─► g0 … gd-1                     f64   ACCUMULATED into
//   hess ─► d × d row-major               f64   ACCUMULATED into
//   cv ──► [η*, ℓ*, a, b] per row         f64 × 4 (32 B), indexed from start
//   idx ─► i0 … im-1                      i32
//   outs ─► per-row f64 at position k (k = i − start or list position); 0 = none
//
// Row pairs: rows (i, i+1) are processed together: two dot products share the
// θ loads, their η land in one f64x2 (lane 0 = row i, lane 1 = row i+1), the
// family's ℓ, dℓ/dη, d²ℓ/dη² are evaluated for both lanes at once, and the
// gradient update adds both rows' contributions in one pass over grad. The
// row-streaming kernels take two pairs (four rows) per step so that one pair's
// exp/log chain overlaps the other's, and fold all four rows into one pass over
// grad (or hess); leftover pairs, an odd last row and an odd last feature take
// shorter tails.
//
// Two builds come from this one source: `simd` (mul + add) and `relaxed`
// (relaxed-simd FMA); vmath.ts `madd` switches on ASC_FEATURE_RELAXED_SIMD.
//
// Files: family.ts (ℓ and derivatives), rows.ts (row primitives),
// likelihood.ts (ℓ with ∇ℓ, ∇ℓ alone, XᵀWX), diff_kernels.ts, cv_kernels.ts,
// moments.ts, vector.ts, windowed_rows.ts (the exported kernels), ecs_kernels.ts
// (HMC-ECS's difference estimator with its gradient in one call);
// family_ext.ts + likelihood_ext.ts: the extended families (scale parameter τ,
// aux column for offsets and trials).

/** First free byte above static data. */
export function heapBase(): usize {
  return __heap_base;
}

export {
  gradRange,
  gradRangeF32,
  hessRange,
  hessRangeF32,
  llIdx,
  llIdxF32,
  llRange,
  llRangeF32,
} from "./likelihood";
export { llDiffIdx, llDiffIdxF32 } from "./diff_kernels";
export { cvDiffRange, cvPrepareRange, cvPrepareRangeF32 } from "./cv_kernels";
export { gradMomentsRange, xtwRange, xtwRangeF32 } from "./moments";
export { hessExt, llExt } from "./likelihood_ext";
export { axpy, dot, gatherF32, gatherF32AsF64, gatherF64, matvec, mulElem } from "./vector";
export { csvColumnStats, csvCountBreaks, csvF64ToF32, csvParseRows } from "./csv";
export { pqTranspose } from "./parquet";
export { pqDictGather, pqLevelsAll, pqSnappy } from "./parquet_decode";
export { icaDiff, icaDiffCached } from "./ica";
export { bfgsUpdate } from "./dense";
export { ecsEstimate } from "./ecs_kernels";
export { wrRange } from "./windowed_rows";
