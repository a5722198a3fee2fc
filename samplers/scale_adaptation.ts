/**
 * Robbins–Monro adaptation of a proposal scale on the log scale (warmup only):
 * log sₜ₊₁ = log sₜ + γₜ (αₜ − α*), γₜ = c·t^(−κ), driving the mean
 * acceptance rate to α* (0.234 for random-walk Metropolis in high dimension).
 *
 * References: Robbins & Monro (1951); Andrieu & Thoms (2008), "A tutorial on
 * adaptive MCMC", §5 and Algorithm 4; Roberts, Gelman & Gilks (1997).
 *
 * @module
 */
import { inInterval, positiveFinite, probability } from "./validate_options.ts";

/** Settings of scale adaptation. */
export interface ScaleAdaptationOptions {
  /** Target acceptance rate α* ∈ (0, 1) (default 0.234). */
  targetAcceptanceRate?: number;
  /** Gain constant c > 0 (default 1). */
  gain?: number;
  /** Gain decay exponent κ ∈ (0.5, 1] (default 0.6). */
  decay?: number;
}

/** Scale-adaptation state. Immutable. */
export interface ScaleAdaptationState {
  /** Updates made so far. */
  readonly iteration: number;
  /** log s. */
  readonly logScale: number;
  /** s, the scale to use next. */
  readonly scale: number;
  /** α*. */
  readonly targetAcceptanceRate: number;
  /** c. */
  readonly gain: number;
  /** κ. */
  readonly decay: number;
}

/**
 * Start scale adaptation at s₀.
 *
 * @param scale0 Initial scale s₀ > 0 (e.g. 2.38/√d).
 * @param options α*, c, κ.
 * @returns The state.
 *
 * @example
 * ```ts
 * import { scaleAdaptationInit } from "./scale_adaptation.ts";
 * if (scaleAdaptationInit(0.5).scale !== 0.5) throw new Error();
 * ```
 *
 * References: Andrieu & Thoms (2008), Algorithm 4.
 */
export function scaleAdaptationInit(
  scale0: number,
  options: ScaleAdaptationOptions = {},
): ScaleAdaptationState {
  positiveFinite("scale0", scale0);
  const target = options.targetAcceptanceRate ?? 0.234;
  const gain = options.gain ?? 1;
  const decay = options.decay ?? 0.6;
  probability("targetAcceptanceRate", target);
  positiveFinite("gain", gain);
  inInterval("decay", decay, "(", 0.5, 1, "]");
  return {
    iteration: 0,
    logScale: Math.log(scale0),
    scale: scale0,
    targetAcceptanceRate: target,
    gain,
    decay,
  };
}

/**
 * One Robbins–Monro update with the acceptance rate of the last step.
 *
 * @param state The current state.
 * @param acceptanceRate α ∈ [0, 1] of the step made with `state.scale` (NaN → 0).
 * @returns The new state.
 *
 * @example
 * ```ts
 * import { scaleAdaptationInit, scaleAdaptationUpdate } from "./scale_adaptation.ts";
 * const s = scaleAdaptationUpdate(scaleAdaptationInit(1), 1);
 * if (!(s.scale > 1)) throw new Error("accepting everything should grow the scale");
 * ```
 *
 * References: Andrieu & Thoms (2008), Algorithm 4.
 */
export function scaleAdaptationUpdate(
  state: ScaleAdaptationState,
  acceptanceRate: number,
): ScaleAdaptationState {
  const alpha = Number.isNaN(acceptanceRate) ? 0 : Math.min(1, Math.max(0, acceptanceRate));
  const t = state.iteration + 1;
  const logScale = state.logScale +
    state.gain * Math.pow(t, -state.decay) * (alpha - state.targetAcceptanceRate);
  return { ...state, iteration: t, logScale, scale: Math.exp(logScale) };
}
