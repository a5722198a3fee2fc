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
import { loo, looCompare, pointwiseLogLik, relativeEff } from "../../diagnostics/loo.ts";
import type { GlmExtFamilyName } from "../../core/glm_kernels_ext.ts";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { logGamma } from "../../math/special.ts";
import { GLM_FAMILIES, GlmModel, type GlmModelFamily, type GlmOptions } from "../../models/glm.ts";
import { familyProblem, NU } from "../_family_fixtures.ts";

interface RLoo {
  estimates: { elpd_loo: number[]; p_loo: number[]; looic: number[] };
  elpd_loo: number[];
  p_loo: number[];
  looic: number[];
  pareto_k: number[];
  mcse_elpd_loo: number[];
  mcse_loo: number | null;
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
  await Deno.readTextFile(new URL("../fixtures/loo/loo_fixtures.json", import.meta.url)),
) as Record<string, RCase> & {
  compare: { models: string[]; order: string[]; elpd_diff: number[]; se_diff: number[] };
};

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

for (const name of ["normal", "logistic", "outliers", "outliers_t"]) {
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
        mcse: maxDiff(r.pointwise.mcseElpdLoo, ref.mcse_elpd_loo),
        elpd: maxDiff(r.pointwise.elpdLoo, ref.elpd_loo),
        p: maxDiff(r.pointwise.pLoo, ref.p_loo),
        looic: maxDiff(r.pointwise.looic, ref.looic),
        est: maxDiff(
          [r.elpdLoo, r.pLoo, r.looic].flatMap((e) => [e.estimate, e.se]),
          [ref.estimates.elpd_loo, ref.estimates.p_loo, ref.estimates.looic].flat(),
        ),
      };
      assertEquals(r.mcseElpdLoo === null, ref.mcse_loo === null);
      if (ref.mcse_loo !== null) {
        d.mcse = Math.max(d.mcse, maxDiff([r.mcseElpdLoo!], [ref.mcse_loo]));
      }
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

Deno.test("loo: with one draw-independent likelihood, elpd_loo = lpd and p_loo = 0", () => {
  const ll = Array.from({ length: 200 }, () => [-1.25, -0.5, -3]);
  const r = loo(ll);
  assertAlmostEquals(r.elpdLoo.estimate, -4.75, 1e-12);
  assertAlmostEquals(r.pLoo.estimate, 0, 1e-12);
  assertAlmostEquals(r.looic.estimate, 9.5, 1e-12);
});

Deno.test("looCompare matches R loo_compare on the outlier data's normal and Student-t models", () => {
  const ref = fixtures.compare;
  const [normal, studentT] = ref.models.map((m) => loo(matrix(fixtures[m]), { rEff: 1 }));
  const rows = looCompare({ normal, student_t: studentT });
  assertEquals(rows.map((r) => r.name), ref.order);
  const d = Math.max(
    maxDiff(rows.map((r) => r.elpdDiff), ref.elpd_diff),
    maxDiff(rows.map((r) => r.seDiff), ref.se_diff),
  );
  console.log(`looCompare: max difference from R ${d}`);
  assert(d < 1e-6, `looCompare differs from R by ${d}`);
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

/** Each family's log density, written out independently of the core's kernels. */
function densityByHand(
  family: GlmModelFamily,
  y: number,
  eta: number,
  aux: number,
  tau: number,
): number {
  const lg = logGamma;
  switch (family) {
    case "logistic":
      return y * eta - Math.log1p(Math.exp(eta));
    case "gaussian":
      return -0.5 * Math.log(2 * Math.PI * 0.7 ** 2) - (y - eta) ** 2 / (2 * 0.7 ** 2);
    case "gaussian-scale":
      return -0.5 * Math.log(2 * Math.PI) - tau - (y - eta) ** 2 / (2 * Math.exp(2 * tau));
    case "poisson": {
      const l = eta + aux;
      return y * l - Math.exp(l) - lg(y + 1);
    }
    case "student-t": {
      const z = (y - eta) / Math.exp(tau), nu = NU;
      return lg((nu + 1) / 2) - lg(nu / 2) - 0.5 * Math.log(nu * Math.PI) - tau -
        ((nu + 1) / 2) * Math.log1p(z * z / nu);
    }
    case "negative-binomial": {
      const mu = Math.exp(eta + aux), phi = Math.exp(tau);
      return lg(y + phi) - lg(phi) - lg(y + 1) + phi * Math.log(phi / (phi + mu)) +
        y * Math.log(mu / (phi + mu));
    }
    case "binomial": {
      const p = 1 / (1 + Math.exp(-eta));
      return lg(aux + 1) - lg(y + 1) - lg(aux - y + 1) + y * Math.log(p) +
        (aux - y) * Math.log1p(-p);
    }
  }
}

for (const family of GLM_FAMILIES) {
  Deno.test(`pointwiseLogLik of a GlmModel (${family}) matches the density by hand; loo runs`, () => {
    const kernel = ({
      logistic: "binomial",
      gaussian: "gaussian-scale",
      poisson: "poisson-offset",
    } as Record<string, GlmExtFamilyName>)[family] ?? family as GlmExtFamilyName;
    const n = 40, d = 2, p = familyProblem(kernel, n, d, 5);
    const y = family === "logistic" ? p.y.map((v, i) => (v > p.aux[i] / 2 ? 1 : 0)) : p.y;
    const options: GlmOptions = {
      family,
      priorScale: 5,
      ...(family === "gaussian" ? { sigma: 0.7 } : {}),
      ...(family === "student-t" ? { nu: NU } : {}),
      ...(family === "binomial" ? { trials: p.aux } : {}),
      ...(family === "poisson" || family === "negative-binomial" ? { offset: p.aux } : {}),
    };
    const model = new GlmModel(glmDataFromArrays(loadCore(), p.x, y, { numCols: d }), options);
    try {
      const dim = model.dim;
      const draws = Array.from(
        { length: 200 },
        (_, s) =>
          Float64Array.from({ length: dim }, (_, j) => p.theta[j] + 0.1 * Math.sin(s * (j + 1.7))),
      );
      const ll = pointwiseLogLik(model, draws);
      let worst = 0;
      for (const s of [0, 57, 199]) {
        const th = draws[s];
        for (let i = 0; i < n; i++) {
          const eta = th[0] * p.x[i * d] + th[1] * p.x[i * d + 1];
          const want = densityByHand(family, y[i], eta, p.aux[i], dim > d ? th[d] : 0);
          worst = Math.max(worst, Math.abs(ll[s][i] - want) / Math.max(1, Math.abs(want)));
        }
      }
      assert(worst < 1e-9, `${family}: per-row log-likelihood differs by ${worst}`);
      const r = loo(ll);
      assert(Number.isFinite(r.elpdLoo.estimate) && r.pLoo.estimate > 0, JSON.stringify(r.pLoo));
    } finally {
      model.dispose();
    }
  });
}
