/**
 * PSIS-LOO against R loo on committed fixtures (tests/fixtures/loo/, made by
 * make_fixtures.R there), plus checks that do not need R.
 */
import nodeAssert from "node:assert/strict";

const assert = (v: unknown, msg?: string) => nodeAssert.ok(v, msg);
const assertEquals = (a: unknown, b: unknown) => nodeAssert.deepEqual(a, b);
const assertAlmostEquals = (a: number, b: number, tol: number) =>
  nodeAssert.ok(Math.abs(a - b) <= tol, `${a} vs ${b} (tolerance ${tol})`);
// deno-lint-ignore no-explicit-any
const assertThrows = (f: () => unknown, type: new (...a: any[]) => Error, msg: string) =>
  nodeAssert.throws(f, (e: unknown) => e instanceof type && e.message.includes(msg));
import {
  gpdFit,
  loo,
  looCompare,
  paretoKThreshold,
  pointwiseLogLik,
  psis,
  psisTailLength,
  relativeEff,
} from "../diagnostics/loo.ts";

interface RLoo {
  estimates: { elpd_loo: number[]; p_loo: number[]; looic: number[] };
  elpd_loo: number[];
  p_loo: number[];
  looic: number[];
  pareto_k: number[];
  r_eff: number[];
}
interface RCase {
  S: number;
  n: number;
  chain_id: number[];
  loglik: number[];
  reff1: RLoo;
  chains: RLoo;
}

const fixtures = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/loo/loo_fixtures.json", import.meta.url)),
) as Record<string, RCase>;

function matrix(c: RCase): Float64Array[] {
  return Array.from(
    { length: c.S },
    (_, s) => Float64Array.from({ length: c.n }, (_, i) => c.loglik[i * c.S + s]),
  );
}

/** max |a − b| / max(1, |b|): absolute near 0, relative for large values. */
function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assertEquals(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    m = Math.max(m, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  }
  return m;
}

for (const name of ["normal", "logistic", "outliers"]) {
  for (const mode of ["reff1", "chains"] as const) {
    Deno.test(`loo matches R loo: ${name}, ${mode === "reff1" ? "r_eff = 1" : "r_eff from chains"}`, () => {
      const c = fixtures[name];
      const ll = matrix(c);
      const ref = c[mode];
      const r = mode === "reff1" ? loo(ll, { rEff: 1 }) : loo(ll, { chainIds: c.chain_id });
      const tol = 1e-6;
      const d = {
        rEff: maxDiff(r.pointwise.rEff, ref.r_eff),
        k: maxDiff(r.pointwise.paretoK, ref.pareto_k),
        elpd: maxDiff(r.pointwise.elpdLoo, ref.elpd_loo),
        p: maxDiff(r.pointwise.pLoo, ref.p_loo),
        looic: maxDiff(r.pointwise.looic, ref.looic),
        est: maxDiff(
          [r.elpdLoo, r.pLoo, r.looic].flatMap((e) => [e.estimate, e.se]),
          [ref.estimates.elpd_loo, ref.estimates.p_loo, ref.estimates.looic].flat(),
        ),
      };
      console.log(`${name}/${mode}: max difference from R ${JSON.stringify(d)}`);
      for (const [what, v] of Object.entries(d)) {
        assert(v < tol, `${name}/${mode}: ${what} differs from R by ${v}`);
      }
    });
  }
}

Deno.test("loo: outlier fixture flags its outliers by Pareto k̂ bands", () => {
  const c = fixtures.outliers;
  const r = loo(matrix(c), { rEff: 1 });
  assertAlmostEquals(r.kThreshold, 0.6666666666666667, 1e-15); // S = 1000
  assertEquals(r.bands.good + r.bands.bad + r.bands.veryBad, c.n);
  assert(r.bands.above07 >= 2, `expected the outliers above 0.7, got ${r.bands.above07}`);
  const k = r.pointwise.paretoK;
  assert(k[c.n - 1] > 0.7 && k[0] < 0.7);
});

Deno.test("psis: tail length, threshold and the GPD fit on exact Pareto exceedances", () => {
  assertEquals(psisTailLength(1000), 95);
  assertEquals(psisTailLength(100), 20);
  assertEquals(psisTailLength(4000, 0.5), 269);
  assertAlmostEquals(paretoKThreshold(4000), 0.7, 1e-15);
  // Generalized Pareto quantiles with k = 0.5, σ = 1 at (j − 0.5)/N: the fit recovers k.
  const n = 2000, k0 = 0.5;
  const x = Float64Array.from(
    { length: n },
    (_, j) => Math.expm1(-k0 * Math.log1p(-(j + 0.5) / n)) / k0,
  );
  const fit = gpdFit(x);
  assert(Math.abs(fit.k - k0) < 0.03 && Math.abs(fit.sigma - 1) < 0.05, JSON.stringify(fit));
  // Equal ratios: weights uniform, k̂ from a constant tail is not fitted.
  const w = psis(new Float64Array(100).fill(3));
  assertAlmostEquals(w.logWeights[7], -Math.log(100), 1e-12);
});

Deno.test("loo: with one draw-independent likelihood, elpd_loo = lpd and p_loo = 0", () => {
  const ll = Array.from({ length: 200 }, () => [-1.25, -0.5, -3]);
  const r = loo(ll);
  assertAlmostEquals(r.elpdLoo.estimate, -4.75, 1e-12);
  assertAlmostEquals(r.pLoo.estimate, 0, 1e-12);
  assertAlmostEquals(r.looic.estimate, 9.5, 1e-12);
});

Deno.test("looCompare ranks by elpd and gives the paired SE", () => {
  const c = fixtures.normal;
  const a = loo(matrix(c));
  const shifted = matrix(c).map((row) => row.map((v, i) => v - (i % 2 === 0 ? 0.1 : 0.3)));
  const b = loo(shifted);
  const rows = looCompare({ good: a, worse: b });
  assertEquals(rows.map((r) => r.name), ["good", "worse"]);
  assertEquals([rows[0].elpdDiff, rows[0].seDiff], [0, 0]);
  assertAlmostEquals(rows[1].elpdDiff, -0.2 * c.n, 1e-9);
  // pointwise differences are −0.1 and −0.3 alternately: sd = 0.1·√(n/(n−1))
  assertAlmostEquals(rows[1].seDiff, Math.sqrt(c.n) * 0.1 * Math.sqrt(c.n / (c.n - 1)), 1e-9);
  assertThrows(() => looCompare({ a }), RangeError, "at least 2");
});

Deno.test("pointwiseLogLik evaluates every row at every draw", () => {
  const y = [0.5, -1, 2];
  const model = {
    dim: 1,
    numRows: 3,
    logLikelihoodRows(theta: Float64Array, rows: Int32Array, o: { perRow?: Float64Array }) {
      let t = 0;
      rows.forEach((r, j) => {
        const v = -0.5 * Math.log(2 * Math.PI) - 0.5 * (y[r] - theta[0]) ** 2;
        if (o.perRow) o.perRow[j] = v;
        t += v;
      });
      return t;
    },
  };
  const ll = pointwiseLogLik(model, [[0], [1]]);
  assertAlmostEquals(ll[1][2], -0.5 * Math.log(2 * Math.PI) - 0.5, 1e-15);
  assertThrows(() => pointwiseLogLik(model, [[0, 1]]), RangeError, "draw 1 must have 1");
});

Deno.test("loo and relativeEff reject bad input with a message naming it", () => {
  assertThrows(() => loo([[0]]), TypeError, "at least 2 draws");
  assertThrows(() => loo([[0, 1], [0]]), RangeError, "draw 2 has 1");
  assertThrows(() => loo([[0], [NaN]]), RangeError, "logLik[1][0]");
  assertThrows(() => loo([[0], [1]], { rEff: [1, 2] }), RangeError, "one value per observation");
  assertThrows(() => relativeEff([[0], [1], [2]], [1, 1]), RangeError, "one id per draw");
});
