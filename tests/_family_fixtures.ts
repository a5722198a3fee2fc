/**
 * Shared fixture of the extended-family suites (tests/models/glm_families_kernels_test.ts,
 * tests/models/glm_families_test.ts): data drawn from each family.
 */
import type { GlmExtFamilyName } from "../core/glm_kernels_ext.ts";
import { _normal, _rng } from "./_core_fixtures.ts";

/** ν of the Student-t fixtures. */
export const NU = 3.5;

/** Data for `family`: X ~ N(0, 1/d) with an intercept, y drawn from the family. */
export function familyProblem(family: GlmExtFamilyName, n: number, d: number, seed: number) {
  const u = _rng(seed);
  const x = new Float64Array(n * d), y = new Float64Array(n), aux = new Float64Array(n);
  const beta = Float64Array.from({ length: d }, (_, j) => (j === 0 ? 0.8 : 0.6 * _normal(u)));
  const extra = family === "gaussian-scale" || family === "student-t" ||
    family === "negative-binomial";
  const tau = family === "negative-binomial" ? Math.log(2.5) : Math.log(0.7);
  const poisson = (mu: number) => {
    let k = 0, p = u();
    const lim = Math.exp(-mu);
    while (p > lim) {
      k++;
      p *= u();
    }
    return k;
  };
  const gamma = (shape: number) => { // Marsaglia–Tsang (shape ≥ 1) with the boost below 1
    const a = shape < 1 ? shape + 1 : shape, dd = a - 1 / 3, c = 1 / Math.sqrt(9 * dd);
    for (;;) {
      const z = _normal(u), v = (1 + c * z) ** 3;
      if (v > 0 && Math.log(u()) < 0.5 * z * z + dd - dd * v + dd * Math.log(v)) {
        return dd * v * (shape < 1 ? u() ** (1 / shape) : 1);
      }
    }
  };
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) {
      const v = j === 0 ? 1 : _normal(u) / Math.sqrt(d);
      x[i * d + j] = v;
      eta += v * beta[j];
    }
    if (family === "gaussian-scale") y[i] = eta + Math.exp(tau) * _normal(u);
    else if (family === "student-t") {
      const chi2 = 2 * gamma(NU / 2);
      y[i] = eta + Math.exp(tau) * _normal(u) / Math.sqrt(chi2 / NU);
    } else if (family === "negative-binomial" || family === "poisson-offset") {
      aux[i] = Math.log(0.5 + 2 * u()); // log exposure
      const mu = Math.exp(eta + aux[i]);
      const phi = Math.exp(tau);
      y[i] = poisson(family === "poisson-offset" ? mu : mu * gamma(phi) / phi);
    } else {
      aux[i] = 1 + Math.floor(u() * 12);
      const p = 1 / (1 + Math.exp(-eta));
      let k = 0;
      for (let t = 0; t < aux[i]; t++) if (u() < p) k++;
      y[i] = k;
    }
  }
  const theta = new Float64Array(d + (extra ? 1 : 0));
  for (let j = 0; j < d; j++) theta[j] = beta[j] + 0.05 * _normal(u);
  if (extra) theta[d] = tau + 0.1;
  return { x, y, aux, theta, beta, tau, extra };
}
