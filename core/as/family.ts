// AssemblyScript: GLM families — ℓ(η, y), dℓ/dη, d²ℓ/dη² for two rows in one
// f64x2 (part of the tallmc core; entry file kernels.ts).
//
// Per-call state lives in module globals (no allocation in kernels):
//
//   _d1, _d2 : v128   dℓ/dη and d²ℓ/dη² of the last _fam call (lane 0 = row i,
//                     lane 1 = row i+1); _cvTerms reuses _d2 as a second output
//   _c0, _inv : v128  Gaussian constants −½log(2πσ²) and 1/σ² set by _setup
//
// Family codes: 0 logistic, 1 Gaussian (famParam = σ), 2 Poisson; the
// compile-time markers below select the branch of _fam.

import { C_HALF, C_LOG_2PI, C_ONE, kc, ks, vexp, vlgamma, vlog1p, ZERO } from "./vmath";

/** Thrown in JS by the loader: what = 0 family, 1 order, 2 Gaussian σ. */
// @ts-ignore: decorator
@external("env", "invalidArgument")
export declare function _invalidArgument(what: i32, value: f64): void;

// Family markers (compile-time): sizeof 1 = logistic, 2 = Gaussian, 4 = Poisson.
export type Logistic = u8;
export type Gaussian = u16;
export type Poisson = u32;

// Secondary outputs of _fam: dℓ/dη and d²ℓ/dη² for the two lanes.
export let _d1: v128 = ZERO;
export let _d2: v128 = ZERO;
// Gaussian constants for the current call: −½log(2πσ²) and 1/σ².
let _c0: v128 = ZERO;
let _inv: v128 = ZERO;

// ─── families ───────────────────────────────────────────────────────────────

/** Validate family/σ and set the per-call constants; false = do nothing. */
export function _setup(family: i32, famParam: f64): bool {
  if (family < 0 || family > 2) {
    _invalidArgument(0, <f64>family);
    return false;
  }
  if (family == 1) {
    if (!(famParam > 0.0 && famParam < Infinity)) {
      _invalidArgument(2, famParam);
      return false;
    }
    const s2 = famParam * famParam;
    _inv = f64x2.splat(1.0 / s2);
    _c0 = f64x2.splat(-0.5 * (ks(C_LOG_2PI) + Math.log(s2)));
  }
  return true;
}

/** ℓ for both lanes; sets _d1 = dℓ/dη and _d2 = d²ℓ/dη². */
// @ts-ignore: decorator
@inline export function _fam<F>(eta: v128, y: v128): v128 {
  if (sizeof<F>() == 1) {
    // ℓ = (yη − max(η,0)) − log1p(e^{−|η|}); σ(η) from e = e^{−|η|}
    const e = vexp(f64x2.neg(f64x2.abs(eta)));
    const u = f64x2.add(kc(C_ONE), e);
    const p = f64x2.div(kc(C_ONE), u);
    const ep = f64x2.mul(e, p);
    const sig = v128.bitselect(p, ep, f64x2.ge(eta, ZERO));
    _d1 = f64x2.sub(y, sig);
    _d2 = f64x2.neg(f64x2.mul(ep, p));
    return f64x2.sub(f64x2.sub(f64x2.mul(y, eta), f64x2.pmax(eta, ZERO)), vlog1p(e, u, p));
  } else if (sizeof<F>() == 2) {
    // ℓ = −½log(2πσ²) − (y − η)²/(2σ²)
    const r = f64x2.sub(y, eta);
    _d1 = f64x2.mul(r, _inv);
    _d2 = f64x2.neg(_inv);
    return f64x2.sub(_c0, f64x2.mul(f64x2.mul(kc(C_HALF), f64x2.mul(r, r)), _inv));
  } else {
    // ℓ = yη − e^η − log Γ(y + 1)
    const mu = vexp(eta);
    _d1 = f64x2.sub(y, mu);
    _d2 = f64x2.neg(mu);
    return f64x2.sub(f64x2.sub(f64x2.mul(y, eta), mu), vlgamma(f64x2.add(y, kc(C_ONE))));
  }
}

/**
 * dℓ/dη only, for both lanes, into _d1: the same operations, in the same
 * order, as _fam's _d1 (so the same bits), without ℓ (logistic: no log1p;
 * Poisson: no log Γ) and without _d2.
 */
// @ts-ignore: decorator
@inline export function _famD1<F>(eta: v128, y: v128): void {
  if (sizeof<F>() == 1) {
    const e = vexp(f64x2.neg(f64x2.abs(eta)));
    const u = f64x2.add(kc(C_ONE), e);
    const p = f64x2.div(kc(C_ONE), u);
    const ep = f64x2.mul(e, p);
    _d1 = f64x2.sub(y, v128.bitselect(p, ep, f64x2.ge(eta, ZERO)));
  } else if (sizeof<F>() == 2) {
    _d1 = f64x2.mul(f64x2.sub(y, eta), _inv);
  } else {
    _d1 = f64x2.sub(y, vexp(eta));
  }
}
