/**
 * The numeric ABI of the tallmc compute core — the inside of `core/`.
 *
 * Nothing outside `core/` imports this module: other layers call the typed
 * operations of `glm_kernels.ts` (data views, row buffers, control-variate
 * caches, scratch), which translate to these calls. `tests/project/architecture_test.ts`
 * enforces it.
 *
 * Every kernel takes byte offsets ("pointers") into one linear memory and plain
 * numbers, and returns a number. The same interface is implemented three times:
 * by the AssemblyScript SIMD build, by the SIMD + relaxed-SIMD (FMA) build, and
 * by a plain TypeScript reference that reads the same memory. Tests run one
 * suite against all three.
 *
 * Memory layout conventions (all offsets in bytes, 8-byte aligned):
 *
 * ```
 *  X    : n × d row-major, f64 (or f32 for the *_f32 kernels), row i at X + i·d·w
 *  y    : n f64 responses
 *  θ    : d f64
 *  grad : d f64, ACCUMULATED into (callers zero it first)
 *  hess : d × d f64 row-major, ACCUMULATED into
 *  cv   : n × 4 f64 per-row control-variate cache (η*, ℓ*, a = dℓ/dη(η*), b = d²ℓ/dη²(η*))
 *  idx  : m i32 row indices
 *  per-row outputs (ll, dη, d2η, diff, r): f64, indexed by position k in the
 *  range (i − start) or in the index list; a pointer 0 means "not wanted".
 * ```
 *
 * Families: 0 = logistic (Bernoulli-logit, y ∈ {0, 1}), 1 = Gaussian with known
 * σ (`famParam` = σ), 2 = Poisson with log link (y ∈ ℕ). ℓ is the full
 * log-likelihood including constants (−½log 2πσ², −log y!). Codes 3–7 are
 * the extended families of `llExt`/`hessExt` (Gaussian and Student-t with
 * unknown σ, NB2 with unknown φ, Poisson with offset, binomial with trials);
 * their formulas are stated in core/as/family_ext.ts.
 *
 * Numerics (identical formulas in every backend; results agree to ~1e-15
 * relative, FMA and summation order being the only differences):
 * - logistic: ℓ = (yη − max(η, 0)) − log1p(e^{−|η|}), dℓ/dη = y − σ(η),
 *   d²ℓ/dη² = −σ(η)σ(−η), all from one e^{−|η|}: finite for every finite η
 *   (tested at |η| = 1e4), no cancellation for y ∈ {0, 1};
 * - Gaussian: ℓ = −½log(2πσ²) − (y − η)²/(2σ²);
 * - Poisson: ℓ = yη − e^η − log Γ(y + 1) with a Lanczos (g = 7, n = 9) log Γ
 *   (y ≥ 0); finite for η ≤ 709 (e^η overflows to +∞ past ≈ 709.78; tested at
 *   η = ±700).
 *
 * A bad family code, Taylor order or Gaussian σ (≤ 0 or not finite) throws a
 * RangeError naming the value, in every backend (the wasm builds call the
 * loader's `env.invalidArgument` import).
 *
 * @module
 */

/** Family code: Bernoulli with logit link. */
export const FAMILY_LOGISTIC = 0;
/** Family code: Gaussian with identity link and known σ. */
export const FAMILY_GAUSSIAN = 1;
/** Family code: Poisson with log link. */
export const FAMILY_POISSON = 2;

/** Family code: Gaussian with unknown σ, τ = log σ = θ[d] (extended kernels). */
export const FAMILY_GAUSSIAN_SCALE = 3;
/** Family code: Student-t with fixed ν (`famParam`), τ = log σ = θ[d] (extended kernels). */
export const FAMILY_STUDENT_T = 4;
/** Family code: negative binomial NB2, τ = log φ = θ[d], optional offset (extended kernels). */
export const FAMILY_NEGBIN = 5;
/** Family code: Poisson with log link and an offset column (extended kernels). */
export const FAMILY_POISSON_OFFSET = 6;
/** Family code: binomial with logit link and a trials column (extended kernels). */
export const FAMILY_BINOMIAL = 7;
/** Family code: Student-t with sampled ν = 1 + e^ω, θ = (β, log σ, ω) (extended kernels). */
export const FAMILY_STUDENT_T_NU = 8;

/** The functions every core build exports (pointers are byte offsets). */
export interface CoreExports {
  /** First free byte above the module's static data; the arena starts here. */
  heapBase(): number;

  /**
   * The Parquet reader's column-to-row pass (core/as/parquet.ts, bound by
   * core/parquet_kernel.ts): n rows of d staged columns (`cols`: a table of
   * d column pointers; `src64`: 1 for f64 columns, 0 for f32) checked, their
   * lo, hi, sum and hash updated in row order, and written as rows of X at
   * `x` (f64 when `dst64` is 1, else f32). Returns 0 at the first bad cell,
   * else 1. Optional: the WebAssembly builds have it, the reference backend
   * does not.
   */
  pqTranspose?(
    cols: number,
    src64: number,
    n: number,
    d: number,
    x: number,
    dst64: number,
    lo: number,
    hi: number,
    sum: number,
    h: number,
    minAbs: number,
    maxAbs: number,
  ): number;

  /**
   * The Parquet page decoder's snappy (core/as/parquet_decode.ts, bound by
   * core/parquet_kernel.ts): the block at src (srcLen bytes) into dst
   * (dstLen bytes). 1 when well formed and exactly dstLen bytes long, else
   * 0. Optional, as {@link CoreExports.pqTranspose}.
   */
  pqSnappy?(src: number, srcLen: number, dst: number, dstLen: number): number;

  /**
   * 1 when the RLE / bit-packed hybrid levels at src (len bytes; n values
   * of bw bits) all equal `level`, else 0. Optional.
   */
  pqLevelsAll?(src: number, len: number, bw: number, n: number, level: number): number;

  /**
   * Decodes n RLE / bit-packed hybrid dictionary indices (bw bits) at src
   * (len bytes) into dst as dict[index] (w = 4 or 8 bytes a value, dictN
   * values). 1 on success, 0 for malformed input or an index ≥ dictN.
   * Optional.
   */
  pqDictGather?(
    src: number,
    len: number,
    bw: number,
    n: number,
    dict: number,
    dictN: number,
    w: number,
    dst: number,
  ): number;

  /**
   * Σℓᵢ over rows [start, end). Accumulates ∇Σℓᵢ = Σ ℓ'(ηᵢ) xᵢ into `grad` if
   * `grad` ≠ 0; writes ℓᵢ, dℓ/dη, d²ℓ/dη² per row when the pointers are ≠ 0.
   */
  llRange(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    grad: number,
    llOut: number,
    dOut: number,
    d2Out: number,
  ): number;
  /** As {@link CoreExports.llRange}, over the rows listed in `idx` (m i32). */
  llIdx(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    idx: number,
    m: number,
    theta: number,
    grad: number,
    llOut: number,
    dOut: number,
    d2Out: number,
  ): number;
  /** f32 storage of X, f64 accumulation. */
  llRangeF32(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    grad: number,
    llOut: number,
    dOut: number,
    d2Out: number,
  ): number;
  /** f32 storage of X, f64 accumulation. */
  llIdxF32(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    idx: number,
    m: number,
    theta: number,
    grad: number,
    llOut: number,
    dOut: number,
    d2Out: number,
  ): number;

  /**
   * Accumulates ∇Σℓᵢ = Σ ℓ'(ηᵢ) xᵢ over rows [start, end) into `grad`
   * without computing Σℓᵢ: the bits {@link CoreExports.llRange} adds to
   * `grad` for the same rows (the same row blocks and operation order).
   */
  gradRange(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    grad: number,
  ): void;
  /** As {@link CoreExports.gradRange} with X stored as f32 (f64 accumulation). */
  gradRangeF32(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    grad: number,
  ): void;

  /** hess += Σᵢ d²ℓ/dη²(ηᵢ) xᵢxᵢᵀ over rows [start, end) (full d × d). */
  hessRange(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    hess: number,
  ): void;
  /** f32-storage variant of {@link CoreExports.hessRange}. */
  hessRangeF32(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    hess: number,
  ): void;

  /**
   * Fill the control-variate cache for rows [start, end) at θ*: cv[4(i−start)..] =
   * (η*ᵢ, ℓᵢ(η*ᵢ), dℓ/dη(η*ᵢ), d²ℓ/dη²(η*ᵢ)). `cv` is indexed from `start`.
   */
  cvPrepareRange(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    thetaStar: number,
    cv: number,
  ): void;
  /** f32-storage variant of {@link CoreExports.cvPrepareRange} (same operation order). */
  cvPrepareRangeF32(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    thetaStar: number,
    cv: number,
  ): void;
  /**
   * Differences dᵢ = ℓᵢ(θ) − qᵢ(θ) for rows [start, end) where qᵢ is the Taylor
   * expansion of order `order` (0, 1, 2) in η around η*ᵢ (cv indexed from
   * `start` like X). Writes dᵢ to `diffOut` and rᵢ = ∂dᵢ/∂ηᵢ to `rOut` (either
   * may be 0) and returns Σdᵢ.
   */
  cvDiffRange(
    family: number,
    famParam: number,
    x: number,
    y: number,
    cv: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    order: number,
    diffOut: number,
    rOut: number,
  ): number;

  /** out += Σ_{i∈[start,end)} w[i−start] xᵢ (weighted column sums, i.e. Xᵀw). */
  xtwRange(x: number, d: number, start: number, end: number, w: number, out: number): void;
  /** f32-storage variant of {@link CoreExports.xtwRange} (same operation order). */
  xtwRangeF32(x: number, d: number, start: number, end: number, w: number, out: number): void;
  /**
   * Per-row gradients gᵢ = ℓ'(ηᵢ) xᵢ over rows [start, end): grad += Σgᵢ,
   * sq += Σgᵢ⊙gᵢ (if sq ≠ 0), outer += Σgᵢgᵢᵀ (if outer ≠ 0, full d × d).
   */
  gradMomentsRange(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    grad: number,
    sq: number,
    outer: number,
  ): void;

  /**
   * Extended families (codes 3–7, core/as/family_ext.ts): Σℓᵢ over m rows —
   * the list `idx` (i32), or rows start … start + m − 1 when idx = 0. θ holds
   * d + e values (e = 1: τ = θ[d] for codes 3–5). Accumulates (Σℓ_η xᵢ, Σℓ_τ)
   * into `grad` (d + e) if ≠ 0; writes (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ) per row
   * (6 f64) to `derivs` if ≠ 0. `aux`: per-row offset (5, 6) or trials (7),
   * 0 = none. `f32` ≠ 0: X stored as f32.
   */
  llExt(
    family: number,
    famParam: number,
    x: number,
    y: number,
    aux: number,
    d: number,
    start: number,
    idx: number,
    m: number,
    theta: number,
    grad: number,
    derivs: number,
    f32: number,
  ): number;
  /**
   * Extended families: hess += Σℓ_ηη xᵢxᵢᵀ (d × d) over rows [start, end) and,
   * for codes 3–5 with cross ≠ 0, cross += (Σℓ_ητ xᵢ, Σℓ_ττ) (d + 1 f64).
   */
  hessExt(
    family: number,
    famParam: number,
    x: number,
    y: number,
    aux: number,
    d: number,
    start: number,
    end: number,
    theta: number,
    hess: number,
    cross: number,
    f32: number,
  ): void;

  /**
   * Per-row differences lₖ = ℓ(xᵢᵀθ', yᵢ) − ℓ(xᵢᵀθ, yᵢ), i = idx[k], for the
   * m listed rows in one pass (both dot products share the X loads); writes
   * lₖ to `diffOut` (if ≠ 0) and returns Σlₖ. Families 0–2. Each η follows
   * llIdx's operation order, so lₖ equals the difference of two llIdx calls.
   */
  llDiffIdx(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    idx: number,
    m: number,
    theta: number,
    thetaProposed: number,
    diffOut: number,
  ): number;
  /** f32-storage variant of {@link CoreExports.llDiffIdx}. */
  llDiffIdxF32(
    family: number,
    famParam: number,
    x: number,
    y: number,
    d: number,
    idx: number,
    m: number,
    theta: number,
    thetaProposed: number,
    diffOut: number,
  ): number;

  /** Copy m rows of `stride` f64 each: dst[k] = src[idx[k]]. */
  gatherF64(src: number, stride: number, idx: number, m: number, dst: number): void;
  /** Copy m rows of `stride` f32 each. */
  gatherF32(src: number, stride: number, idx: number, m: number, dst: number): void;
  /** Copy m rows of `stride` f32 each into rows of `stride` f64 (exact widening). */
  gatherF32AsF64(src: number, stride: number, idx: number, m: number, dst: number): void;

  /** y += a·x over n f64. */
  axpy(n: number, a: number, x: number, y: number): void;
  /** Σ xᵢyᵢ over n f64. */
  dot(n: number, x: number, y: number): number;
  /** y = A x, A is r × c row-major f64 (y overwritten). */
  matvec(r: number, c: number, a: number, x: number, y: number): void;
  /** y = diag(v) x elementwise over n f64 (y overwritten). */
  mulElem(n: number, v: number, x: number, y: number): void;

  /**
   * The ICA model's per-row log-likelihood differences without a cache
   * (core/as/ica.ts, bound by core/ica_kernels.ts): out[q] = f(w_jᵀx) +
   * f(w_kᵀx) − f(w'_jᵀx) − f(w'_kᵀx) for x = row idx[q] of the n × 4 f64
   * rows at `x`; `g` is m × 4 f64 scratch. Returns 0, or −(q + 1) for the
   * first idx[q] outside [0, n). Optional: the WebAssembly builds
   * have it, the reference backend does not (the binding then runs the same
   * arithmetic in TypeScript).
   */
  icaDiff?(
    x: number,
    n: number,
    w: number,
    wp: number,
    j: number,
    k: number,
    tab: number,
    idx: number,
    m: number,
    g: number,
    out: number,
  ): number;

  /**
   * {@link CoreExports.icaDiff} with the per-row cache of f at W (four
   * columns c0 … c3, stamps, f at W' in nj, nk); returns the rows refreshed
   * (or −(q + 1) for the first idx[q] outside [0, n)).
   * Optional, as {@link CoreExports.icaDiff}.
   */
  icaDiffCached?(
    x: number,
    n: number,
    c0: number,
    c1: number,
    c2: number,
    c3: number,
    stamp: number,
    proposal: number,
    valid: number,
    nj: number,
    nk: number,
    w: number,
    wp: number,
    j: number,
    k: number,
    tab: number,
    idx: number,
    m: number,
    out: number,
  ): number;

  /**
   * `count` dense BFGS pairs folded, oldest first, into the symmetric d × d C
   * at `c` in place (core/as/dense.ts, bound by core/dense_ops.ts): pair k is
   * s then y (d f64 each) at pairs + 16·d·k, ρ = 1/sᵀy at rho + 8k; per pair
   * h = C y, then C += (ρ² yᵀh + ρ) s sᵀ − ρ (s hᵀ + h sᵀ), in the operation
   * order of samplers/qnhmc/bfgs.ts's TypeScript update; `h` is 2·d f64
   * scratch. Optional, as {@link CoreExports.icaDiff}.
   */
  bfgsUpdate?(d: number, c: number, pairs: number, rho: number, count: number, h: number): void;

  /**
   * ℓ and ∇ℓ of a family over rows [start, end) stored as column constants c
   * plus windows of deviations (core/as/windowed_rows.ts, bound by
   * core/windowed_rows.ts): row i's windows are ptr[i] … ptr[i+1] − 1 (i32),
   * window w starts at column col[w] (u16) and holds four f64 deviations at
   * dev + 32w; base = cᵀθ. Mode 0: returns Σℓᵢ, accumulates ℓ'(ηᵢ)·dev_w into
   * the d × 4 table `tab` at row col[w] and writes Σℓ'(ηᵢ) to `wsum`; mode 1:
   * the same without ℓ (returns 0); mode 2: Σℓᵢ alone. Families 0–2 only.
   * Optional, as {@link CoreExports.icaDiff}.
   */
  wrRange?(
    family: number,
    famParam: number,
    ptr: number,
    col: number,
    dev: number,
    y: number,
    start: number,
    end: number,
    theta: number,
    base: number,
    tab: number,
    wsum: number,
    mode: number,
  ): number;

  /**
   * One evaluation of HMC-ECS's difference estimator with its gradient over
   * positions [0, m) of a row buffer (core/as/ecs_kernels.ts, bound by
   * core/glm_kernels.ts `differenceEstimate`): Σq and A + Bδ from θ*, A, B at
   * `taylor` (d, d, d × d f64; B's rows in interleaved pairs, see the
   * kernel's file) and S = `llStar`; dᵢ, rᵢ for positions
   * [start, end) as {@link CoreExports.cvDiffRange} (the others' already in
   * `diff`, `r`); the weights wᵢ to `w`; grad = A + Bδ + Σwᵢxᵢ (d f64,
   * written); ℓ̂ₘ, σ̂²ₘ and Σq to `out`; returns ℓ̂ₘ − σ̂²ₘ/2. `work` is 3·d f64
   * scratch. The operation order of the TypeScript composition it replaces
   * (subsampling/difference_estimator.ts). Optional, as
   * {@link CoreExports.icaDiff}.
   */
  ecsEstimate?(
    family: number,
    famParam: number,
    x: number,
    y: number,
    cv: number,
    d: number,
    m: number,
    start: number,
    end: number,
    theta: number,
    order: number,
    diff: number,
    r: number,
    w: number,
    taylor: number,
    llStar: number,
    numRows: number,
    corrected: number,
    work: number,
    grad: number,
    out: number,
  ): number;
}

/** Which implementation backs a {@link CoreExports}. */
export type CoreBackend = "relaxed-simd" | "simd" | "reference";
