/**
 * Special functions shared across layers (no dependencies).
 *
 * @module
 */

const _HALF_LOG_2PI = 0.9189385332046728; // ½log(2π)

/** Lanczos (g = 7, n = 9) coefficients; the AssemblyScript core uses the same, term for term. */
const _LANCZOS_G = 7;
const _LANCZOS = [
  0.99999999999980993,
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/**
 * log Γ(x) by the Lanczos approximation (g = 7, n = 9): ≈1e-15 absolute near
 * 1 and 2, ≈1e-14 relative elsewhere, exactly 0 at 1 and 2; x < ½ by the
 * reflection formula. The core's Poisson family (log y! = log Γ(y + 1)) uses
 * the same formula in every backend.
 *
 * @param x A positive number (or a non-integer negative one).
 * @returns log |Γ(x)|.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { logGamma } from "./special.ts";
 * assert.ok(Math.abs(logGamma(5) - Math.log(24)) < 1e-13);
 * ```
 *
 * References: Lanczos (1964); Press et al., Numerical Recipes, §6.1.
 */
export function logGamma(x: number): number {
  if (x === 1 || x === 2) return 0;
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = _LANCZOS[0];
  for (let k = 1; k < 9; k++) a += _LANCZOS[k] / (z + k);
  const t = z + _LANCZOS_G + 0.5;
  return _HALF_LOG_2PI + (z + 0.5) * Math.log(t) - t + Math.log(a);
}
