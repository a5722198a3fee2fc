/**
 * Special functions the diagnostics need, written from their defining series
 * and continued fractions:
 *
 * - `_erfc`: complementary error function. For x < 1.5 the everywhere-positive
 *   series erf(x) = 2/√π · e^{−x²} · Σₙ 2ⁿ x^{2n+1} / (1·3·…·(2n+1))
 *   (Abramowitz & Stegun 7.1.6); beyond, the Laplace continued fraction
 *   erfc(x) = e^{−x²}/√π · 1/(x + ½/(x + 1/(x + (3/2)/(x + …)))) (A&S 7.1.14).
 * - `_normalCdf`, `_normalQuantile`: Φ and Φ⁻¹. The quantile starts from
 *   P. J. Acklam's rational approximation (relative error < 1.15e−9) and
 *   polishes it with Halley's method on Φ, whose cubic convergence takes the
 *   error to round-off in one step.
 * - `_logGamma`: Stirling's series (A&S 6.1.40) after shifting x ≥ 10.
 * - `_incompleteBeta`, `_betaQuantile`: regularised incomplete beta function
 *   I_x(a, b) by its continued fraction (A&S 26.5.8) and its inverse by
 *   safeguarded Newton steps.
 *
 * @module
 */

const SQRT_PI = Math.sqrt(Math.PI);
const SQRT_2PI = Math.sqrt(2 * Math.PI);
const EPS = 1e-16;
const TINY = 1e-300;

/** Complementary error function erfc(x), relative accuracy ~1e−13 or better. */
export function _erfc(x: number): number {
  if (x < 0) return 2 - _erfc(-x);
  if (x < 1.5) {
    // erf(x) = 2/√π e^{−x²} Σ 2ⁿ x^{2n+1}/(2n+1)!!, all terms positive.
    const x2 = 2 * x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= x2 / (2 * n + 1);
      sum += term;
      if (term < EPS * sum) break;
    }
    return 1 - (2 / SQRT_PI) * Math.exp(-x * x) * sum;
  }
  // Continued fraction 1/(x + a₁/(x + a₂/(x + …))), aₖ = k/2, by modified Lentz.
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = Math.abs(d) < TINY ? 1 / TINY : 1 / d;
    c = x + a / c;
    if (Math.abs(c) < TINY) c = TINY;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < EPS) break;
  }
  return Math.exp(-x * x) / (SQRT_PI * f);
}

/** Standard normal distribution function Φ(z). */
export function _normalCdf(z: number): number {
  return 0.5 * _erfc(-z / Math.SQRT2);
}

// Acklam's rational approximation of Φ⁻¹ (relative error < 1.15e−9).
const ACKLAM_A = [
  -3.969683028665376e1,
  2.209460984245205e2,
  -2.759285104469687e2,
  1.38357751867269e2,
  -3.066479806614716e1,
  2.506628277459239,
];
const ACKLAM_B = [
  -5.447609879822406e1,
  1.615858368580409e2,
  -1.556989798598866e2,
  6.680131188771972e1,
  -1.328068155288572e1,
];
const ACKLAM_C = [
  -7.784894002430293e-3,
  -3.223964580411365e-1,
  -2.400758277161838,
  -2.549732539343734,
  4.374664141464968,
  2.938163982698783,
];
const ACKLAM_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const ACKLAM_LOW = 0.02425;

/** Acklam's approximation of Φ⁻¹(p) for p in (0, ½]. */
function _acklamLower(p: number): number {
  if (p < ACKLAM_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    const [c0, c1, c2, c3, c4, c5] = ACKLAM_C;
    const [d0, d1, d2, d3] = ACKLAM_D;
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  const [a0, a1, a2, a3, a4, a5] = ACKLAM_A;
  const [b0, b1, b2, b3, b4] = ACKLAM_B;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * Standard normal quantile Φ⁻¹(p) for p in (0, 1); ±Infinity at 0 and 1.
 * Acklam's approximation refined by one Halley step on Φ(x) − p: the step's
 * cubic convergence takes a relative error of 1.15e−9 below round-off.
 */
export function _normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  if (p > 0.5) return -_normalQuantile(1 - p);
  if (p === 0.5) return 0;
  const x = _acklamLower(p);
  const u = (_normalCdf(x) - p) * SQRT_2PI * Math.exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

/** log Γ(x) for x > 0. */
export function _logGamma(x: number): number {
  let shift = 0;
  let y = x;
  if (y < 10) {
    let prod = 1;
    while (y < 10) {
      prod *= y;
      y += 1;
    }
    shift = Math.log(prod);
  }
  const inv = 1 / y;
  const inv2 = inv * inv;
  // Stirling series with Bernoulli-number coefficients B₂ₖ/(2k(2k−1)).
  const series = inv *
    (1 / 12 +
      inv2 *
        (-1 / 360 +
          inv2 *
            (1 / 1260 +
              inv2 * (-1 / 1680 + inv2 * (1 / 1188 + inv2 * (-691 / 360360 + inv2 / 156))))));
  return (y - 0.5) * Math.log(y) - y + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

function _logBeta(a: number, b: number): number {
  return _logGamma(a) + _logGamma(b) - _logGamma(a + b);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function _betaContinuedFraction(a: number, b: number, x: number): number {
  const maxIterations = 100000;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = Math.abs(d) < TINY ? 1 / TINY : 1 / d;
  let h = d;
  for (let m = 1; m <= maxIterations; m++) {
    const m2 = 2 * m;
    // even step: d_{2m} = m(b − m)x / ((a + 2m − 1)(a + 2m))
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    d = Math.abs(d) < TINY ? 1 / TINY : 1 / d;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    h *= d * c;
    // odd step: d_{2m+1} = −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1))
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    d = Math.abs(d) < TINY ? 1 / TINY : 1 / d;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Regularised incomplete beta function I_x(a, b) for a, b > 0. */
export function _incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logFront = a * Math.log(x) + b * Math.log1p(-x) - _logBeta(a, b);
  const front = Math.exp(logFront);
  if (x < (a + 1) / (a + b + 2)) return (front * _betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * _betaContinuedFraction(b, a, 1 - x)) / b;
}

/** Quantile of the Beta(a, b) distribution: x with I_x(a, b) = p. */
export function _betaQuantile(p: number, a: number, b: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const logB = _logBeta(a, b);
  let lo = 0;
  let hi = 1;
  // Start from the normal approximation of the beta distribution.
  const mean = a / (a + b);
  const sd = Math.sqrt((a * b) / ((a + b) * (a + b) * (a + b + 1)));
  let x = Math.min(1 - 1e-12, Math.max(1e-12, mean + sd * _normalQuantile(p)));
  for (let i = 0; i < 300; i++) {
    const f = _incompleteBeta(x, a, b) - p;
    if (f === 0) return x;
    if (f > 0) hi = x;
    else lo = x;
    const density = Math.exp((a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) - logB);
    let next = x - f / density;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi); // bisect when Newton leaves the bracket
    if (Math.abs(next - x) <= 1e-15 * Math.max(x, 1e-300) || hi - lo <= 1e-15 * hi) {
      return next;
    }
    x = next;
  }
  return x;
}
