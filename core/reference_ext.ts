/**
 * Plain-TypeScript reference of the extended families (codes 3–7): the same
 * formulas, in the same order, as core/as/family_ext.ts (which states them),
 * one row at a time. Used by core/reference.ts for `llExt` and `hessExt`.
 *
 * ```
 *  3 Gaussian, τ = log σ      4 Student-t (ν = famParam), τ = log σ
 *  5 NB2, τ = log φ, offset   6 Poisson with offset      7 binomial with trials
 *  8 Student-t, τ = log σ, ω = log(ν − 1)
 * ```
 *
 * @module
 */
import { logGamma } from "../math/special.ts";
import { invalidArgumentError } from "./reference.ts";

/** Per-call constants of an extended family (as _k0 … _k10 in family_ext.ts). */
export type ExtConstants = readonly number[];

/**
 * Number of family parameters after β: 1 for codes 3–5 (τ), 2 for code 8
 * (τ, ω), else 0.
 *
 * @param family Family code.
 * @returns 0, 1 or 2.
 * @example
 * ```ts
 * import { _numExtra } from "./reference_ext.ts";
 * if (_numExtra(5) !== 1 || _numExtra(7) !== 0 || _numExtra(8) !== 2) throw new Error();
 * ```
 */
export function _numExtra(family: number): number {
  return family === 8 ? 2 : family >= 3 && family <= 5 ? 1 : 0;
}

function _lgammaPos(x: number): number {
  return x < 1 ? logGamma(x + 1) - Math.log(x) : logGamma(x);
}

function _digammaScalar(x: number): number {
  let acc = 0;
  while (x < 7) {
    acc += 1 / x;
    x += 1;
  }
  const iz = 1 / x, iz2 = iz * iz;
  const s = iz2 * (1 / 12 - iz2 * (1 / 120 - iz2 * (1 / 252 - iz2 * (1 / 240 -
                iz2 * (1 / 132 - iz2 * (691 / 32760 - iz2 / 12))))));
  return Math.log(x) - 0.5 * iz - s - acc;
}

function _trigammaScalar(x: number): number {
  let acc = 0;
  while (x < 7) {
    acc += 1 / (x * x);
    x += 1;
  }
  const iz = 1 / x, iz2 = iz * iz;
  const s = 1 / 6 - iz2 * (1 / 30 - iz2 * (1 / 42 - iz2 * (1 / 30 -
                iz2 * (5 / 66 - iz2 * (691 / 2730 - iz2 * (7 / 6))))));
  return iz + 0.5 * iz2 + iz * iz2 * s + acc;
}

/** ψ(x), x ≥ 1: six recurrence steps, the series at x + 6 (as _vdigamma). */
function _digammaRow(x: number): number {
  let acc = 1 / x;
  for (let k = 1; k < 6; k++) acc += 1 / (x + k);
  const z = x + 6, iz = 1 / z, iz2 = iz * iz;
  let s = 691 / 32760 - iz2 / 12;
  s = 1 / 132 - iz2 * s;
  s = 1 / 240 - iz2 * s;
  s = 1 / 252 - iz2 * s;
  s = 1 / 120 - iz2 * s;
  s = iz2 * (1 / 12 - iz2 * s);
  return Math.log(z) - 0.5 * iz - s - acc;
}

/** ψ'(x), x ≥ 1 (as _vtrigamma). */
function _trigammaRow(x: number): number {
  let acc = 1 / (x * x);
  for (let k = 1; k < 6; k++) acc += 1 / ((x + k) * (x + k));
  const z = x + 6, iz = 1 / z, iz2 = iz * iz;
  let s = 691 / 2730 - iz2 * (7 / 6);
  s = 5 / 66 - iz2 * s;
  s = 1 / 30 - iz2 * s;
  s = 1 / 42 - iz2 * s;
  s = 1 / 30 - iz2 * s;
  s = 1 / 6 - iz2 * s;
  return iz + 0.5 * iz2 + iz * iz2 * s + acc;
}

/**
 * Validate an extended family call and compute its per-call constants.
 *
 * @param family Family code 3–8.
 * @param famParam ν for the Student-t family.
 * @param tau τ = θ[d] (log σ or log φ) for codes 3–5 and 8.
 * @param omega ω = θ[d + 1] = log(ν − 1) for code 8.
 * @returns The constants.
 * @throws {RangeError} For a bad code, ν, τ or ω (as the wasm builds).
 */
export function _setupExt(
  family: number,
  famParam: number,
  tau: number,
  omega = 0,
): ExtConstants {
  if (!(family >= 3 && family <= 8 && Number.isInteger(family))) {
    throw invalidArgumentError(0, family);
  }
  if (_numExtra(family) >= 1 && !(Math.abs(tau) < 700)) throw invalidArgumentError(4, tau);
  if (family === 8 && !(Math.abs(omega) < 700)) throw invalidArgumentError(5, omega);
  if (family === 8) {
    const nm1 = Math.exp(omega), nu = 1 + nm1, h = 0.5 * (nu + 1), g = 0.5 * nu;
    const k0 = _lgammaPos(h) - _lgammaPos(g) - 0.5 * Math.log(nu * Math.PI) - tau;
    const s2 = Math.exp(2 * tau);
    return [
      k0,
      nu * s2,
      nu + 1,
      h,
      0,
      0,
      nm1,
      nu,
      s2,
      0.5 * (_digammaScalar(h) - _digammaScalar(g) - 1 / nu),
      0.25 * (_trigammaScalar(h) - _trigammaScalar(g)) + 0.5 / (nu * nu),
    ];
  }
  if (family === 3) return [-0.5 * 1.8378770664093453 - tau, Math.exp(-2 * tau), 0, 0, 0, 0];
  if (family === 4) {
    const nu = famParam;
    if (!(nu > 0 && nu < Infinity)) throw invalidArgumentError(3, nu);
    const k0 = _lgammaPos(0.5 * (nu + 1)) - _lgammaPos(0.5 * nu) - 0.5 * Math.log(nu * Math.PI) -
      tau;
    return [k0, nu * Math.exp(2 * tau), nu + 1, 0.5 * (nu + 1), 0, 0];
  }
  if (family === 5) {
    const phi = Math.exp(tau);
    return [
      phi,
      _lgammaPos(phi),
      _digammaScalar(phi),
      _trigammaScalar(phi),
      tau,
      phi * phi,
    ];
  }
  return [0, 0, 0, 0, 0, 0];
}

/**
 * One row of an extended family: out = (ℓ, ℓ_η, ℓ_ηη, ℓ_τ, ℓ_ητ, ℓ_ττ), and
 * for code 8 then (ℓ_ω, ℓ_ηω, ℓ_τω, ℓ_ωω) (out[6 … 9] = 0 for the others).
 *
 * @param family Family code 3–8.
 * @param k Constants from {@link _setupExt}.
 * @param eta Linear predictor (offset included).
 * @param y Response.
 * @param a Aux value (trials for code 7).
 * @param out Ten outputs.
 */
export function _extRow(
  family: number,
  k: ExtConstants,
  eta: number,
  y: number,
  a: number,
  out: Float64Array,
): void {
  out[6] =
    out[7] =
    out[8] =
    out[9] =
      0;
  if (family === 3) {
    const r = y - eta, s = k[1], rs = r * s, rrs = r * rs;
    out[0] = k[0] - 0.5 * rrs;
    out[1] = rs;
    out[2] = -s;
    out[3] = rrs - 1;
    out[4] = -2 * rs;
    out[5] = -2 * rrs;
  } else if (family === 4 || family === 8) {
    const r = y - eta, c = k[1], r2 = r * r, dd = c + r2, q = k[2] / dd;
    const e = r2 / c, u = 1 + e;
    const l1p = Math.log(u) + (e - (u - 1)) / u;
    const qc = (q * c) / dd;
    out[0] = k[0] - k[3] * l1p;
    out[1] = q * r;
    out[2] = (q * (r2 - c)) / dd;
    out[3] = q * r2 - 1;
    out[4] = -2 * (qc * r);
    out[5] = -2 * (qc * r2);
    if (family === 8) {
      const nm1 = k[6], nu = k[7], s2 = k[8], inv2nu = 0.5 / nu;
      const lnu = (k[9] - 0.5 * l1p) + (q * r2) * inv2nu;
      const w = (r2 - s2) / (dd * dd);
      const br = (nu - 1) / nu - q * s2;
      const lnn = k[10] + ((r2 * inv2nu) / dd) * br;
      out[6] = nm1 * lnu;
      out[7] = nm1 * (r * w);
      out[8] = nm1 * (r2 * w);
      out[9] = (nm1 * nm1) * lnn + out[6];
    }
  } else if (family === 5) {
    const phi = k[0], t = eta - k[4];
    const ex = Math.exp(-Math.abs(t)), u = 1 + ex, pp = 1 / u, ep = ex * pp;
    const p = t >= 0 ? pp : ep, w = ep * pp;
    const sp = Math.max(t, 0) + (Math.log(u) + (ex - (u - 1)) * pp);
    const yphi = y + phi;
    const lg = y === 0 ? 0 : logGamma(yphi) - k[1];
    const dpsi = y === 0 ? 0 : _digammaRow(yphi) - k[2];
    const dtri = y === 0 ? 0 : _trigammaRow(yphi) - k[3];
    const yw = yphi * w, yp = yphi * p, phiSp = phi * sp, phiPsi = phi * dpsi, phiP = phi * p;
    out[0] = (lg - logGamma(y + 1)) + y * t - yphi * sp;
    out[1] = y - yp;
    out[2] = -yw;
    out[3] = ((phiPsi - y) - phiSp) + yp;
    out[4] = yw - phiP;
    out[5] = ((phiPsi + k[5] * dtri) - phiSp + (phiP + phiP)) - yw;
  } else if (family === 6) {
    const mu = Math.exp(eta);
    out[0] = y * eta - mu - logGamma(y + 1);
    out[1] = y - mu;
    out[2] = -mu;
    out[3] = out[4] = out[5] = 0;
  } else {
    const ex = Math.exp(-Math.abs(eta)), u = 1 + ex, pp = 1 / u, ep = ex * pp;
    const sig = eta >= 0 ? pp : ep;
    const sp = Math.max(eta, 0) + (Math.log(u) + (ex - (u - 1)) * pp);
    const lc = (logGamma(a + 1) - logGamma(y + 1)) - logGamma(a - y + 1);
    out[0] = lc + (y * eta - a * sp);
    out[1] = y - a * sig;
    out[2] = -(a * (ep * pp));
    out[3] = out[4] = out[5] = 0;
  }
}
