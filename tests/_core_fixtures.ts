/**
 * Shared fixtures of the raw-kernel suites (tests/core/core_test.ts,
 * tests/core/core_numerics_test.ts): backends, families, shapes, a seeded PRNG,
 * random GLM data written into an arena, and the tolerance check.
 */
import assert from "node:assert/strict";
import type { Arena } from "../core/arena.ts";
import type { CoreBackend, CoreExports } from "../core/exports.ts";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "../core/exports.ts";
import { availableBackends, loadCore } from "../core/load.ts";
import { createReferenceExports } from "../core/reference.ts";
import { mulberry32 } from "../testing/mulberry32.ts";

export const BACKENDS: CoreBackend[] = ["relaxed-simd", "simd", "reference"];
export const AVAILABLE = availableBackends();
export const FAMILIES = [
  { name: "logistic", code: FAMILY_LOGISTIC, param: 0 },
  { name: "Gaussian", code: FAMILY_GAUSSIAN, param: 1.7 },
  { name: "Poisson", code: FAMILY_POISSON, param: 0 },
] as const;
/** (n, d) shapes: odd and even rows and features, tails of every kind. */
export const SHAPES = [[1, 1], [2, 2], [7, 3], [10, 4], [33, 5], [64, 29], [41, 30]] as const;
export const TOL = 1e-12;

// ─── helpers ────────────────────────────────────────────────────────────────

/** mulberry32: a tiny seeded PRNG, uniform on [0, 1). */
export const _rng: (seed: number) => () => number = mulberry32;

export function _normal(u: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

/**
 * |a − e| ≤ TOL·(|e| + scale) elementwise; scale defaults to max |e|
 * (normwise-relative). Pass the size of the terms that cancel when e is a
 * difference (control-variate dᵢ).
 */
export function _close(
  actual: ArrayLike<number> | number,
  expected: ArrayLike<number> | number,
  what: string,
  scale?: number,
) {
  const a = typeof actual === "number" ? [actual] : Array.from(actual);
  const e = typeof expected === "number" ? [expected] : Array.from(expected);
  assert.equal(a.length, e.length, `${what}: length`);
  scale ??= e.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  for (let i = 0; i < e.length; i++) {
    assert.ok(Number.isFinite(a[i]), `${what}[${i}] not finite: ${a[i]}`);
    const tol = TOL * (Math.abs(e[i]) + scale);
    assert.ok(
      Math.abs(a[i] - e[i]) <= tol,
      `${what}[${i}]: got ${a[i]}, reference ${e[i]} (diff ${Math.abs(a[i] - e[i])} > ${tol})`,
    );
  }
}

export interface _Data {
  n: number;
  d: number;
  x: number;
  x32: number;
  y: number;
  theta: number;
  thetaStar: number;
}

/** Random GLM data for `family` in the arena: X ~ N(0, 1/d), y from the family at θ. */
export function _data(arena: Arena, family: number, n: number, d: number, seed: number): _Data {
  const u = _rng(seed);
  const xs = Array.from({ length: n * d }, () => _normal(u) / Math.sqrt(d));
  const th = Array.from({ length: d }, () => _normal(u) * (family === FAMILY_POISSON ? 0.7 : 1.5));
  const thStar = th.map((v) => v + 0.1 * _normal(u));
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    let eta = 0;
    for (let j = 0; j < d; j++) eta += xs[i * d + j] * th[j];
    if (family === FAMILY_LOGISTIC) ys.push(u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0);
    else if (family === FAMILY_GAUSSIAN) ys.push(eta + 1.7 * _normal(u));
    else {
      const lim = Math.exp(-Math.exp(eta));
      let k = 0, p = u();
      while (p > lim) {
        k++;
        p *= u();
      }
      ys.push(k);
    }
  }
  const D = {
    n,
    d,
    x: arena.allocF64(n * d),
    x32: arena.allocF32(n * d),
    y: arena.allocF64(n),
    theta: arena.allocF64(d),
    thetaStar: arena.allocF64(d),
  };
  arena.writeF64(D.x, xs);
  arena.writeF32(D.x32, xs);
  arena.writeF64(D.y, ys);
  arena.writeF64(D.theta, th);
  arena.writeF64(D.thetaStar, thStar);
  return D;
}

/** Two output buffers with identical random initial contents (accumulate-into tests). */
export function _pair(arena: Arena, len: number, seed: number, zero = false): [number, number] {
  const u = _rng(seed);
  const init = Array.from({ length: len }, () => (zero ? 0 : _normal(u)));
  const a = arena.allocF64(len), b = arena.allocF64(len);
  arena.writeF64(a, init);
  arena.writeF64(b, init);
  return [a, b];
}

export function _indices(arena: Arena, n: number, m: number, seed: number): number {
  const u = _rng(seed);
  const p = arena.allocI32(m);
  arena.writeI32(p, Array.from({ length: m }, () => Math.floor(u() * n)));
  return p;
}

export function _setup(
  backend: CoreBackend,
): { arena: Arena; core: CoreExports; ref: CoreExports } {
  const arena = loadCore({ backend, initialBytes: 1 << 16 });
  return { arena, core: arena.exports, ref: createReferenceExports(arena.memory) };
}
