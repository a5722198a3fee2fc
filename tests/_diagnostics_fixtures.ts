/**
 * Shared fixtures of the diagnostics tests (tests/diagnostics_*_test.ts):
 * seeded uniform and normal generators, AR(1) and iid chains, relative error
 * and the direct O(n²) autocovariance used as an oracle.
 *
 * @module
 */

// ---------------------------------------------------------------------------
// Seeded generators: Marsaglia's xorshift128 for uniforms and the
// Box–Muller transform for standard normals.

export function xorshift128(seed: number): () => number {
  let a = seed | 0 || 1;
  let b = 362436069;
  let c = 521288629;
  let d = 88675123;
  const next = (): number => {
    const t = a ^ (a << 11);
    a = b;
    b = c;
    c = d;
    d = d ^ (d >>> 19) ^ (t ^ (t >>> 8));
    return ((d >>> 0) + 0.5) / 4294967296; // in (0, 1)
  };
  for (let i = 0; i < 20; i++) next(); // decorrelate from the seed
  return next;
}

export function normalGenerator(seed: number): () => number {
  const uniform = xorshift128(seed);
  let spare = NaN;
  return (): number => {
    if (!Number.isNaN(spare)) {
      const z = spare;
      spare = NaN;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

/** Stationary Gaussian AR(1) chain x_i = φ x_{i−1} + ε_i, ε ~ N(0, 1). */
export function ar1Chain(phi: number, n: number, normal: () => number): Float64Array {
  const x = new Float64Array(n);
  let prev = normal() / Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    prev = phi * prev + normal();
    x[i] = prev;
  }
  return x;
}

export function iidChains(numChains: number, n: number, seed: number): Float64Array[] {
  const normal = normalGenerator(seed);
  return Array.from({ length: numChains }, () => Float64Array.from({ length: n }, normal));
}

export function relativeError(estimate: number, truth: number): number {
  return Math.abs(estimate / truth - 1);
}

/** The defining O(n²) sum of the biased autocovariance. */
export function directAutocovariance(x: ArrayLike<number>): number[] {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i];
  mean /= n;
  const out: number[] = [];
  for (let t = 0; t < n; t++) {
    let s = 0;
    for (let i = 0; i + t < n; i++) s += (x[i] - mean) * (x[i + t] - mean);
    out.push(s / n);
  }
  return out;
}
