/**
 * Options of QNHMC ({@link QnhmcOptions}); they are checked when the chain
 * sampler is built (chain_sampler.ts).
 *
 * @module
 */
import type { Metric } from "../metric.ts";

/** Options of {@link qnhmcDescription}. */
export interface QnhmcOptions {
  /**
   * Initial ε > 0. Default: Hoffman & Gelman's heuristic
   * (`findReasonableStepSize`) at the initial position
   * (C₀ = I there, so a QNHMC step is a plain leapfrog step), then dual
   * averaging in warmup. Given, ε stays fixed unless `adaptStepSize` is true
   * (the paper fixes ε: 0.01 in §5.1, 0.1 in §5.2).
   */
  stepSize?: number;
  /** L (default 10, the paper's §5.1). */
  numIntegrationSteps?: number;
  /**
   * `"bfgs"` (dense d×d C, O(d²) per product) or `"lbfgs"` (m pairs, O(md))
   * (default `"bfgs"` for d ≤ 200, else `"lbfgs"`, as §3.5 suggests).
   */
  approximation?: "bfgs" | "lbfgs";
  /**
   * Where dense BFGS computes C·v: `"auto"` (default) in the WASM core for
   * d ≥ 32 (`WASM_PRODUCT_MIN_DIM`; 3× faster at d = 100, 6× at d = 784), else
   * TypeScript; `"wasm"`; `"typescript"` (bit-for-bit reproducible; the
   * core sums in another order, agreeing to ~1e-15 relative). Ignored by
   * L-BFGS, whose O(md) two-loop stays in TypeScript.
   */
  product?: "auto" | "wasm" | "typescript";
  /** L-BFGS memory m (default 7, §5.2). */
  memory?: number;
  /**
   * C₀ = γI with γ = `initialScale` (default 1: Algorithm 2 starts from
   * B = I), or `"first-pair"`: γ = sᵀy / yᵀy of the first accepted pair
   * (Nocedal & Wright eq. 6.20; for L-BFGS the same as `lbfgsScaling: "latest"`).
   */
  initialScale?: number | "first-pair";
  /**
   * L-BFGS C₀ once it holds pairs: `"latest"` (default) γ = sᵀy / yᵀy of the
   * newest pair (Nocedal & Wright eq. 7.20); `"fixed"` keeps γ =
   * `initialScale`. In R8 (MNIST, ε = 0.1) `"latest"` accepted 99 % of
   * proposals and `"fixed"` 10 %: with few, nearly collinear pairs from one
   * trajectory, γ = 1 leaves C too large in stiff unexplored directions.
   */
  lbfgsScaling?: "latest" | "fixed";
  /** Relative curvature tolerance: pairs with sᵀy ≤ tol‖s‖‖y‖ are skipped (default 1e-8). */
  curvatureTolerance?: number;
  /** When C may change: `"warmup"` (default) or `"continuous"` (Algorithm 2). */
  adaptation?: "warmup" | "continuous";
  /**
   * Adapt ε by dual averaging during warmup (default: true when `stepSize` is
   * not given, false when it is — a given ε is kept, as in the paper).
   */
  adaptStepSize?: boolean;
  /** Dual-averaging target δ (default 0.8). */
  targetAcceptanceRate?: number;
  /**
   * j ∈ [0, 1): each transition draws its step size uniformly from
   * ε·[1 − j, 1 + j] (Neal 2011, §5.4.2.2), which breaks the resonance of a
   * fixed trajectory εL with a period of the dynamics. Default 0.2 when
   * `stepSize` is not given, 0 when it is (the paper's fixed ε). With j > 0
   * one uniform is drawn before the kernel's own draws.
   */
  stepSizeJitter?: number;
  /** The metric M of the kinetic energy (default identity, as in the paper). */
  metric?: Metric;
  /** ΔH above this is a divergence (default 1000). */
  divergenceThreshold?: number;
}
