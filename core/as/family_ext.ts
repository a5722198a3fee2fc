// AssemblyScript: the extended GLM families — ℓ(η, y; τ) and its derivatives in
// η and in a per-call scale parameter τ, for two rows in one f64x2 (part of the
// tallmc core; entry file kernels.ts; kernels in likelihood_ext.ts).
//
// Per-call state lives in module globals (no allocation in kernels):
//
//   _e1 … _e5 : v128   ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ of the last _famExt call
//                      (lane 0 = row i, lane 1 = row i+1)
//   _k0 … _k5 : f64    per-call constants set by _setupExt from famParam and τ
//
//   θ ─► β₀ … β_{d−1} [τ [ω]]  τ = θ[d] for the families with a scale parameter,
//                               ω = θ[d+1] for family 8 (sampled ν)
//   _e6 … _e9 : v128   ℓ_ω, ℓ_ηω, ℓ_τω, ℓ_ωω (family 8 only)
//   aux ─► one f64 per row:   offset (log exposure) or number of trials; 0 = none
//
// Family codes (τ = log σ or log φ; ψ digamma, ψ' trigamma, sp(t) = log(1 + e^t)
// = max(t, 0) + log1p(e^{−|t|}), s(t) = 1/(1 + e^{−t})):
//
//   3 Gaussian, unknown σ      r = y − η, s = e^{−2τ}
//     ℓ = −½log 2π − τ − ½r²s      ℓ_η = rs      ℓ_ηη = −s
//     ℓ_τ = r²s − 1                ℓ_ητ = −2rs   ℓ_ττ = −2r²s
//   4 Student-t, ν = famParam   c = νσ², D = c + r², q = (ν + 1)/D
//     ℓ = log Γ((ν+1)/2) − log Γ(ν/2) − ½log(νπ) − τ − (ν+1)/2 · log1p(r²/c)
//     ℓ_η = qr   ℓ_ηη = q(r² − c)/D   ℓ_τ = qr² − 1   ℓ_ητ = −2qrc/D   ℓ_ττ = −2qr²c/D
//   8 Student-t with sampled ν = 1 + e^ω (ν > 1: the mean exists), τ = log σ, ω = θ[d+1];
//     ℓ, ℓ_η … ℓ_ττ as code 4 at this ν, and with s2 = σ², ν' = ν − 1 = e^ω,
//     A = ½[ψ((ν+1)/2) − ψ(ν/2) − 1/ν], B = ¼[ψ'((ν+1)/2) − ψ'(ν/2)] + 1/(2ν²):
//     ℓ_ν = A − ½log1p(r²/c) + qr²/(2ν)     ℓ_ην = r(r² − s2)/D²   ℓ_τν = r²(r² − s2)/D²
//     ℓ_νν = B + r²/(2νD)·((ν − 1)/ν − q·s2)
//     ℓ_ω = ν'ℓ_ν   ℓ_ηω = ν'ℓ_ην   ℓ_τω = ν'ℓ_τν   ℓ_ωω = ν'²ℓ_νν + ν'ℓ_ν
//   5 negative binomial NB2, φ = e^τ (size; Var = μ + μ²/φ), log link,
//     η += aux (offset) when aux ≠ 0; t = η − τ = log(μ/φ), p = s(t) = μ/(μ + φ)
//     ℓ = log Γ(y + φ) − log Γ(φ) − log Γ(y + 1) + yt − (y + φ)·sp(t)
//     ℓ_η = y − (y + φ)p            ℓ_ηη = −(y + φ)p(1 − p)
//     ℓ_τ = φΔψ − y − φ·sp(t) + (y + φ)p          Δψ = ψ(y + φ) − ψ(φ)
//     ℓ_ητ = −φp + (y + φ)p(1 − p)
//     ℓ_ττ = φΔψ + φ²Δψ' − φ·sp(t) + 2φp − (y + φ)p(1 − p)   Δψ' = ψ'(y + φ) − ψ'(φ)
//     (rows with y = 0 take Δψ = Δψ' = log Γ(y + φ) − log Γ(φ) = 0 exactly)
//   6 Poisson with offset o = aux: ℓ = y(η + o) − e^{η+o} − log Γ(y + 1), ℓ_η = y − μ,
//     ℓ_ηη = −μ (no τ)
//   7 binomial, N = aux trials, logit link (no τ):
//     ℓ = log Γ(N+1) − log Γ(y+1) − log Γ(N−y+1) + yη − N·sp(η)
//     ℓ_η = y − N s(η)   ℓ_ηη = −N s(η)s(−η)
//
// Numerics: sp and s from one e^{−|t|} (as the logistic family: finite for
// every finite t); log1p(r²/c) as log u + (e − (u − 1))/u with u = 1 + e; ψ and
// ψ' for x ≥ 1 by six recurrence steps and the asymptotic series to z^{−14}
// (|error| < 1e−14); log Γ by the Lanczos formula of vmath.ts. The same
// formulas, in the same order, are in core/reference.ts.

import { kc, C_ONE, vexp, vlgamma, vlog, vlog1p, ZERO } from "./vmath";
import { _invalidArgument } from "./family";

/** Lowest and highest extended family code. */
// @ts-ignore: decorator
@inline export const FAM_EXT_FIRST = 3;
// @ts-ignore: decorator
@inline export const FAM_EXT_LAST = 8;

export let _e1: v128 = ZERO;
export let _e2: v128 = ZERO;
export let _e3: v128 = ZERO;
export let _e4: v128 = ZERO;
export let _e5: v128 = ZERO;
export let _e6: v128 = ZERO;
export let _e7: v128 = ZERO;
export let _e8: v128 = ZERO;
export let _e9: v128 = ZERO;
let _k0: f64 = 0.0;
let _k1: f64 = 0.0;
let _k2: f64 = 0.0;
let _k3: f64 = 0.0;
let _k4: f64 = 0.0;
let _k5: f64 = 0.0;
let _k6: f64 = 0.0;
let _k7: f64 = 0.0;
let _k8: f64 = 0.0;
let _k9: f64 = 0.0;
let _k10: f64 = 0.0;

/** Number of family parameters after β (1 for codes 3–5, 2 for code 8, else 0). */
export function _numExtra(family: i32): i32 {
  return family == 8 ? 2 : family >= 3 && family <= 5 ? 1 : 0;
}

/** Scalar log Γ(x) for x > 0 (log Γ(x + 1) − log x below 1). */
function _slgamma(x: f64): f64 {
  if (x < 1.0) return f64x2.extract_lane(vlgamma(f64x2.splat(x + 1.0)), 0) - Math.log(x);
  return f64x2.extract_lane(vlgamma(f64x2.splat(x)), 0);
}

/** Scalar ψ(x), ψ'(x) for x > 0: recurrence up to 7, then the series. */
function _sdigamma(x: f64): f64 {
  let acc = 0.0;
  while (x < 7.0) {
    acc += 1.0 / x;
    x += 1.0;
  }
  const iz = 1.0 / x, iz2 = iz * iz;
  const s = iz2 * (1.0 / 12.0 - iz2 * (1.0 / 120.0 - iz2 * (1.0 / 252.0 - iz2 * (1.0 / 240.0 -
    iz2 * (1.0 / 132.0 - iz2 * (691.0 / 32760.0 - iz2 / 12.0))))));
  return Math.log(x) - 0.5 * iz - s - acc;
}

function _strigamma(x: f64): f64 {
  let acc = 0.0;
  while (x < 7.0) {
    acc += 1.0 / (x * x);
    x += 1.0;
  }
  const iz = 1.0 / x, iz2 = iz * iz;
  const s = 1.0 / 6.0 - iz2 * (1.0 / 30.0 - iz2 * (1.0 / 42.0 - iz2 * (1.0 / 30.0 -
    iz2 * (5.0 / 66.0 - iz2 * (691.0 / 2730.0 - iz2 * (7.0 / 6.0))))));
  return iz + 0.5 * iz2 + iz * iz2 * s + acc;
}

/** ψ(x) on both lanes for x ≥ 1: six recurrence steps, series at z = x + 6. */
// @ts-ignore: decorator
@inline function _vdigamma(x: v128): v128 {
  const one = kc(C_ONE);
  let acc = f64x2.div(one, x);
  acc = f64x2.add(acc, f64x2.div(one, f64x2.add(x, f64x2.splat(1.0))));
  acc = f64x2.add(acc, f64x2.div(one, f64x2.add(x, f64x2.splat(2.0))));
  acc = f64x2.add(acc, f64x2.div(one, f64x2.add(x, f64x2.splat(3.0))));
  acc = f64x2.add(acc, f64x2.div(one, f64x2.add(x, f64x2.splat(4.0))));
  acc = f64x2.add(acc, f64x2.div(one, f64x2.add(x, f64x2.splat(5.0))));
  const z = f64x2.add(x, f64x2.splat(6.0));
  const iz = f64x2.div(one, z), iz2 = f64x2.mul(iz, iz);
  let s = f64x2.sub(f64x2.splat(691.0 / 32760.0), f64x2.div(iz2, f64x2.splat(12.0)));
  s = f64x2.sub(f64x2.splat(1.0 / 132.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 240.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 252.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 120.0), f64x2.mul(iz2, s));
  s = f64x2.mul(iz2, f64x2.sub(f64x2.splat(1.0 / 12.0), f64x2.mul(iz2, s)));
  const h = f64x2.mul(f64x2.splat(0.5), iz);
  return f64x2.sub(f64x2.sub(f64x2.sub(vlog(z), h), s), acc);
}

/** ψ'(x) on both lanes for x ≥ 1. */
// @ts-ignore: decorator
@inline function _vtrigamma(x: v128): v128 {
  let acc = f64x2.mul(x, x);
  acc = f64x2.div(kc(C_ONE), acc);
  for (let k = 1; k < 6; k++) {
    const xk = f64x2.add(x, f64x2.splat(<f64>k));
    acc = f64x2.add(acc, f64x2.div(kc(C_ONE), f64x2.mul(xk, xk)));
  }
  const z = f64x2.add(x, f64x2.splat(6.0));
  const iz = f64x2.div(kc(C_ONE), z), iz2 = f64x2.mul(iz, iz);
  let s = f64x2.sub(f64x2.splat(691.0 / 2730.0), f64x2.mul(iz2, f64x2.splat(7.0 / 6.0)));
  s = f64x2.sub(f64x2.splat(5.0 / 66.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 30.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 42.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 30.0), f64x2.mul(iz2, s));
  s = f64x2.sub(f64x2.splat(1.0 / 6.0), f64x2.mul(iz2, s));
  const t = f64x2.add(f64x2.add(iz, f64x2.mul(f64x2.splat(0.5), iz2)), f64x2.mul(f64x2.mul(iz, iz2), s));
  return f64x2.add(t, acc);
}

/**
 * Validate the family code, ν and τ and set the per-call constants; false =
 * do nothing (the loader's invalidArgument has thrown). what = 0 family,
 * 3 ν, 4 τ, 5 ω.
 */
export function _setupExt(family: i32, famParam: f64, tau: f64, omega: f64): bool {
  if (family < FAM_EXT_FIRST || family > FAM_EXT_LAST) {
    _invalidArgument(0, <f64>family);
    return false;
  }
  if (_numExtra(family) == 1 && !(Math.abs(tau) < 700.0)) {
    _invalidArgument(4, tau);
    return false;
  }
  if (family == 8 && !(Math.abs(omega) < 700.0)) {
    _invalidArgument(5, omega);
    return false;
  }
  if (family == 3) {
    _k0 = -0.5 * 1.8378770664093453 - tau;
    _k1 = Math.exp(-2.0 * tau);
  } else if (family == 4) {
    if (!(famParam > 0.0 && famParam < Infinity)) {
      _invalidArgument(3, famParam);
      return false;
    }
    const nu = famParam;
    _k0 = _slgamma(0.5 * (nu + 1.0)) - _slgamma(0.5 * nu) - 0.5 * Math.log(nu * Math.PI) - tau;
    _k1 = nu * Math.exp(2.0 * tau); // c = νσ²
    _k2 = nu + 1.0;
    _k3 = 0.5 * (nu + 1.0);
  } else if (family == 8) {
    const nm1 = Math.exp(omega), nu = 1.0 + nm1, h = 0.5 * (nu + 1.0), g = 0.5 * nu;
    _k0 = _slgamma(h) - _slgamma(g) - 0.5 * Math.log(nu * Math.PI) - tau;
    const s2 = Math.exp(2.0 * tau);
    _k1 = nu * s2;
    _k2 = nu + 1.0;
    _k3 = h;
    _k6 = nm1;
    _k7 = nu;
    _k8 = s2;
    _k9 = 0.5 * (_sdigamma(h) - _sdigamma(g) - 1.0 / nu);
    _k10 = 0.25 * (_strigamma(h) - _strigamma(g)) + 0.5 / (nu * nu);
  } else if (family == 5) {
    const phi = Math.exp(tau);
    _k0 = phi;
    _k1 = _slgamma(phi);
    _k2 = _sdigamma(phi);
    _k3 = _strigamma(phi);
    _k4 = tau;
    _k5 = phi * phi;
  }
  return true;
}

/** ℓ for both lanes of the extended family `fam`; sets _e1 … _e5. a = aux values. */
// @ts-ignore: decorator
@inline export function _famExt(fam: i32, eta: v128, y: v128, a: v128): v128 {
  const one = kc(C_ONE);
  if (fam == 3) {
    const r = f64x2.sub(y, eta);
    const s = f64x2.splat(_k1);
    const rs = f64x2.mul(r, s);
    const rrs = f64x2.mul(r, rs);
    _e1 = rs;
    _e2 = f64x2.neg(s);
    _e3 = f64x2.sub(rrs, one);
    _e4 = f64x2.mul(f64x2.splat(-2.0), rs);
    _e5 = f64x2.mul(f64x2.splat(-2.0), rrs);
    return f64x2.sub(f64x2.splat(_k0), f64x2.mul(f64x2.splat(0.5), rrs));
  } else if (fam == 4 || fam == 8) {
    const r = f64x2.sub(y, eta);
    const c = f64x2.splat(_k1);
    const r2 = f64x2.mul(r, r);
    const dd = f64x2.add(c, r2);
    const q = f64x2.div(f64x2.splat(_k2), dd);
    const e = f64x2.div(r2, c);
    const u = f64x2.add(one, e);
    const l1p = f64x2.add(vlog(u), f64x2.div(f64x2.sub(e, f64x2.sub(u, one)), u));
    const qc = f64x2.div(f64x2.mul(q, c), dd);
    _e1 = f64x2.mul(q, r);
    _e2 = f64x2.div(f64x2.mul(q, f64x2.sub(r2, c)), dd);
    _e3 = f64x2.sub(f64x2.mul(q, r2), one);
    _e4 = f64x2.mul(f64x2.splat(-2.0), f64x2.mul(qc, r));
    _e5 = f64x2.mul(f64x2.splat(-2.0), f64x2.mul(qc, r2));
    if (fam == 8) {
      const nu = f64x2.splat(_k7), nm1 = f64x2.splat(_k6), s2 = f64x2.splat(_k8);
      const inv2nu = f64x2.div(f64x2.splat(0.5), nu);
      const lnu = f64x2.add(
        f64x2.sub(f64x2.splat(_k9), f64x2.mul(f64x2.splat(0.5), l1p)),
        f64x2.mul(f64x2.mul(q, r2), inv2nu),
      );
      const w = f64x2.div(f64x2.sub(r2, s2), f64x2.mul(dd, dd));
      const br = f64x2.sub(f64x2.div(f64x2.sub(nu, one), nu), f64x2.mul(q, s2));
      const lnn = f64x2.add(f64x2.splat(_k10), f64x2.mul(f64x2.div(f64x2.mul(r2, inv2nu), dd), br));
      _e6 = f64x2.mul(nm1, lnu);
      _e7 = f64x2.mul(nm1, f64x2.mul(r, w));
      _e8 = f64x2.mul(nm1, f64x2.mul(r2, w));
      _e9 = f64x2.add(f64x2.mul(f64x2.mul(nm1, nm1), lnn), _e6);
    }
    return f64x2.sub(f64x2.splat(_k0), f64x2.mul(f64x2.splat(_k3), l1p));
  } else if (fam == 5) {
    const phi = f64x2.splat(_k0);
    const t = f64x2.sub(eta, f64x2.splat(_k4));
    const ex = vexp(f64x2.neg(f64x2.abs(t)));
    const u = f64x2.add(one, ex);
    const pp = f64x2.div(one, u);
    const ep = f64x2.mul(ex, pp);
    const pos = f64x2.ge(t, ZERO);
    const p = v128.bitselect(pp, ep, pos);
    const w = f64x2.mul(ep, pp); // p(1 − p)
    const sp = f64x2.add(f64x2.pmax(t, ZERO), vlog1p(ex, u, pp));
    const yphi = f64x2.add(y, phi);
    const zero = f64x2.eq(y, ZERO);
    const lg = v128.andnot(f64x2.sub(vlgamma(yphi), f64x2.splat(_k1)), zero);
    const dpsi = v128.andnot(f64x2.sub(_vdigamma(yphi), f64x2.splat(_k2)), zero);
    const dtri = v128.andnot(f64x2.sub(_vtrigamma(yphi), f64x2.splat(_k3)), zero);
    const yw = f64x2.mul(yphi, w);
    const yp = f64x2.mul(yphi, p);
    const phiSp = f64x2.mul(phi, sp);
    const phiPsi = f64x2.mul(phi, dpsi);
    const phiP = f64x2.mul(phi, p);
    _e1 = f64x2.sub(y, yp);
    _e2 = f64x2.neg(yw);
    _e3 = f64x2.add(f64x2.sub(f64x2.sub(phiPsi, y), phiSp), yp);
    _e4 = f64x2.sub(yw, phiP);
    const t5 = f64x2.add(phiPsi, f64x2.mul(f64x2.splat(_k5), dtri));
    _e5 = f64x2.sub(f64x2.add(f64x2.sub(t5, phiSp), f64x2.add(phiP, phiP)), yw);
    const lgy = vlgamma(f64x2.add(y, one));
    return f64x2.sub(f64x2.add(f64x2.sub(lg, lgy), f64x2.mul(y, t)), f64x2.mul(yphi, sp));
  } else if (fam == 6) {
    const mu = vexp(eta);
    _e1 = f64x2.sub(y, mu);
    _e2 = f64x2.neg(mu);
    _e3 = ZERO;
    _e4 = ZERO;
    _e5 = ZERO;
    return f64x2.sub(f64x2.sub(f64x2.mul(y, eta), mu), vlgamma(f64x2.add(y, one)));
  } else {
    const ex = vexp(f64x2.neg(f64x2.abs(eta)));
    const u = f64x2.add(one, ex);
    const pp = f64x2.div(one, u);
    const ep = f64x2.mul(ex, pp);
    const sig = v128.bitselect(pp, ep, f64x2.ge(eta, ZERO));
    const sp = f64x2.add(f64x2.pmax(eta, ZERO), vlog1p(ex, u, pp));
    _e1 = f64x2.sub(y, f64x2.mul(a, sig));
    _e2 = f64x2.neg(f64x2.mul(a, f64x2.mul(ep, pp)));
    _e3 = ZERO;
    _e4 = ZERO;
    _e5 = ZERO;
    const lc = f64x2.sub(
      f64x2.sub(vlgamma(f64x2.add(a, one)), vlgamma(f64x2.add(y, one))),
      vlgamma(f64x2.add(f64x2.sub(a, y), one)),
    );
    return f64x2.add(lc, f64x2.sub(f64x2.mul(y, eta), f64x2.mul(a, sp)));
  }
}
