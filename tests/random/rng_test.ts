import assert from "node:assert/strict";
import seedrandom from "seedrandom";
import { Rng } from "../../random/rng.ts";

function _moments(draw: () => number, n: number) {
  let s = 0, s2 = 0;
  for (let i = 0; i < n; i++) {
    const x = draw();
    s += x;
    s2 += x * x;
  }
  const mean = s / n;
  return { mean, variance: s2 / n - mean * mean };
}

Deno.test("Rng same seed gives bit-identical draws; streams differ", async (t) => {
  await t.step("same seed, same sequence of every kind", () => {
    const a = new Rng(123), b = new Rng(123);
    for (let i = 0; i < 200; i++) {
      assert.equal(a.uniform(), b.uniform());
      assert.equal(a.normal(), b.normal());
      assert.equal(a.poisson(3.5), b.poisson(3.5));
      assert.equal(a.poisson(40), b.poisson(40));
      assert.equal(a.int(17), b.int(17));
      assert.equal(a.gamma(0.7), b.gamma(0.7));
    }
    assert.deepEqual(a.sampleWithoutReplacement(1000, 30), b.sampleWithoutReplacement(1000, 30));
    assert.deepEqual(a.sampleWithReplacement(10, 30), b.sampleWithReplacement(10, 30));
  });
  await t.step("streams are reproducible and mutually different", () => {
    const root = new Rng(7);
    const s0 = root.stream(0).fillNormal(new Float64Array(100));
    const s0b = new Rng(7).stream(0).fillNormal(new Float64Array(100));
    const s1 = root.stream(1).fillNormal(new Float64Array(100));
    assert.deepEqual(s0, s0b);
    assert.notDeepEqual(s0, s1);
    // Correlation of two streams: |r| < 4/√n for independent draws.
    let c = 0;
    for (let i = 0; i < 100; i++) c += s0[i] * s1[i];
    assert.ok(Math.abs(c / 100) < 4 / Math.sqrt(100), `stream correlation ${c / 100}`);
  });
  await t.step("different seeds differ", () => {
    assert.notEqual(new Rng(1).uniform(), new Rng(2).uniform());
  });
});

Deno.test("Rng distributions have the right first two moments", async (t) => {
  const n = 200_000;
  // Tolerance: 5 standard errors of the sample mean (sd/√n) and of the sample
  // variance (≈ sd²·√((κ − 1)/n), κ the kurtosis).
  await t.step("uniform", () => {
    const r = new Rng(1), m = _moments(() => r.uniform(), n);
    assert.ok(Math.abs(m.mean - 0.5) < 5 * Math.sqrt(1 / 12 / n));
    assert.ok(Math.abs(m.variance - 1 / 12) < 5 * (1 / 12) * Math.sqrt(0.8 / n));
  });
  await t.step("normal", () => {
    const r = new Rng(2), m = _moments(() => r.normal(), n);
    assert.ok(Math.abs(m.mean) < 5 / Math.sqrt(n), `mean ${m.mean}`);
    assert.ok(Math.abs(m.variance - 1) < 5 * Math.sqrt(2 / n), `variance ${m.variance}`);
  });
  for (const lambda of [0.3, 4, 25, 1000]) {
    await t.step(`poisson(${lambda})`, () => {
      const r = new Rng(3), m = _moments(() => r.poisson(lambda), n);
      assert.ok(Math.abs(m.mean - lambda) < 5 * Math.sqrt(lambda / n), `mean ${m.mean}`);
      const kurt = 3 + 1 / lambda;
      assert.ok(
        Math.abs(m.variance - lambda) < 5 * lambda * Math.sqrt((kurt - 1) / n),
        `variance ${m.variance}`,
      );
    });
  }
  await t.step("poisson(1) probabilities of 0, 1, 2 (block-Poisson's χ)", () => {
    const r = new Rng(4), counts = [0, 0, 0];
    for (let i = 0; i < n; i++) {
      const k = r.poisson(1);
      if (k < 3) counts[k]++;
    }
    const p = [Math.exp(-1), Math.exp(-1), Math.exp(-1) / 2];
    for (let k = 0; k < 3; k++) {
      assert.ok(Math.abs(counts[k] / n - p[k]) < 5 * Math.sqrt((p[k] * (1 - p[k])) / n));
    }
  });
  await t.step("gamma(0.5) and gamma(3)", () => {
    for (const a of [0.5, 3]) {
      const r = new Rng(5), m = _moments(() => r.gamma(a), n);
      assert.ok(Math.abs(m.mean - a) < 5 * Math.sqrt(a / n), `mean ${m.mean}`);
      // Var of sample variance of Gamma(a): (μ₄ − σ⁴)/n, μ₄ = 3a² + 6a.
      assert.ok(Math.abs(m.variance - a) < 5 * Math.sqrt((3 * a * a + 6 * a - a * a) / n));
    }
  });
  await t.step("int is uniform over {0, …, 5}", () => {
    const r = new Rng(6), counts = new Array(6).fill(0);
    for (let i = 0; i < n; i++) counts[r.int(6)]++;
    for (const c of counts) assert.ok(Math.abs(c / n - 1 / 6) < 5 * Math.sqrt((5 / 36) / n));
  });
});

Deno.test("Rng.sampleWithoutReplacement() draws distinct, uniformly chosen indices", async (t) => {
  for (const [pop, m] of [[1000, 10], [50, 40], [7, 7]] as const) {
    await t.step(`${m} of ${pop}`, () => {
      const r = new Rng(9);
      const hits = new Array(pop).fill(0);
      const reps = 4000;
      for (let k = 0; k < reps; k++) {
        const s = r.sampleWithoutReplacement(pop, m);
        assert.equal(new Set(s).size, m);
        for (const i of s) {
          assert.ok(i >= 0 && i < pop);
          hits[i]++;
        }
      }
      // Each index is included with probability m/pop.
      const p = m / pop, sd = Math.sqrt((p * (1 - p)) / reps);
      const worst = Math.max(...hits.map((h) => Math.abs(h / reps - p)));
      // Bonferroni over pop indices: 5.5 sd keeps the false-alarm rate < 1e-4.
      assert.ok(worst <= 5.5 * sd + 1e-12, `worst deviation ${worst} (sd ${sd})`);
    });
  }
});

Deno.test("Rng.sampleWithoutReplacement() draws the indices of Floyd's algorithm with a Set, with or without its bit set", () => {
  // Floyd's algorithm with a Set, then the shuffle: the draws of the method before it kept
  // its set as bits when n ≤ 256·m.
  const floyd = (r: Rng, n: number, m: number) => {
    const res = new Int32Array(m), seen = new Set<number>();
    for (let j = n - m, k = 0; j < n; j++, k++) {
      const t = r.int(j + 1);
      const v = seen.has(t) ? j : t;
      seen.add(v);
      res[k] = v;
    }
    for (let i = m - 1; i > 0; i--) {
      const j = r.int(i + 1);
      const t = res[i];
      res[i] = res[j];
      res[j] = t;
    }
    return res;
  };
  for (const [n, m] of [[100_000, 1000], [1_000_000, 1000], [1000, 200], [4096, 16]] as const) {
    const a = new Rng(`floyd-${n}-${m}`), b = new Rng(`floyd-${n}-${m}`);
    for (let rep = 0; rep < 3; rep++) {
      assert.deepEqual(a.sampleWithoutReplacement(n, m), floyd(b, n, m), `${m} of ${n}`);
    }
  }
});

Deno.test("Rng rejects bad arguments with a message naming the value", () => {
  const r = new Rng(1);
  assert.throws(() => new Rng(NaN), /seed must be a finite number or a string, got NaN/);
  assert.throws(() => r.stream(-1), /got -1/);
  assert.throws(() => r.poisson(-2), /poisson mean must be non-negative and finite, got -2/);
  assert.throws(() => r.gamma(0), /gamma shape must be positive and finite, got 0/);
  assert.throws(() => r.int(2.5), /int bound must be a positive integer, got 2.5/);
  assert.throws(
    () => r.sampleWithoutReplacement(5, 6),
    /cannot draw 6 distinct indices from a population of 5/,
  );
  assert.throws(() => r.sampleWithReplacement(0, 3), /population size .* got 0/);
});

Deno.test("Rng.saveState/loadState: a generator continued from a saved state draws what the original draws next", () => {
  const a = new Rng("state-test");
  for (let k = 0; k < 1000; k++) a.uniform();
  const state = new Int32Array(130);
  a.saveState(state);
  const b = new Rng("another seed");
  b.loadState(state);
  const fromA = Array.from({ length: 300 }, () => a.int(1_000_003));
  const fromB = Array.from({ length: 300 }, () => b.int(1_000_003));
  assert.deepEqual(fromB, fromA);
  // The spare normal of the generator that loads is kept; the saved state moves on.
  const c = new Rng(7), d = new Rng(7);
  c.normal();
  d.normal();
  const s = new Int32Array(130);
  c.saveState(s);
  d.loadState(s);
  assert.equal(d.normal(), c.normal());
  assert.equal(d.uniform(), c.uniform());
  assert.throws(() => a.saveState(new Int32Array(129)), /130 int32s, got 129/);
  assert.throws(() => a.loadState(new Int32Array(3)), /130 int32s, got 3/);
});

Deno.test("Rng draws seedrandom's xor4096 doubles in order, and saves the state of the draws read, across its look-ahead", () => {
  const raw = seedrandom.xor4096("look-ahead", { state: true });
  const r = new Rng("look-ahead");
  // Past several refills of the look-ahead (1024 doubles).
  for (let k = 0; k < 4000; k++) assert.equal(r.uniform(), raw.double());
  assert.equal(r.int(1000), Math.floor(raw.double() * 1000));
  const state = new Int32Array(130), want = new Int32Array(130);
  const write = (st: { X: number[]; i: number; w: number }, out: Int32Array) => {
    for (let k = 0; k < 128; k++) out[k] = st.X[k];
    out[128] = st.i;
    out[129] = st.w;
  };
  // Saved before any draw, then after 4001, 4095, 4096 (a look-ahead used up), 4097 and
  // 4352 draws: the raw generator's state then.
  new Rng("look-ahead").saveState(state);
  write(seedrandom.xor4096("look-ahead", { state: true }).state(), want);
  assert.deepEqual(state, want);
  for (const reads of [0, 93, 0, 0, 254]) {
    for (let k = 0; k < reads; k++) assert.equal(r.uniform(), raw.double());
    r.saveState(state);
    write(raw.state(), want);
    assert.deepEqual(state, want);
    // Saving moves nothing on.
    assert.equal(r.uniform(), raw.double());
  }
  // A generator loaded mid-buffer continues the raw sequence.
  const c = new Rng(0);
  c.loadState(state);
  const again = seedrandom.xor4096("", {
    state: { X: Array.from(want.subarray(0, 128)), i: want[128], w: want[129] },
  });
  for (let k = 0; k < 600; k++) assert.equal(c.uniform(), again.double());
});

Deno.test("Rng.sortedSample: increasing distinct indices, into `out`, the numbers of both branches", () => {
  for (const [n, m] of [[100, 30], [100, 70], [1000, 1000], [37, 0], [1 << 20, 5000]]) {
    const a = new Rng(`sorted-${n}-${m}`), b = new Rng(`sorted-${n}-${m}`);
    const s = a.sortedSample(n, m);
    assert.equal(s.length, m);
    assert.ok(s.every((v, i) => v >= 0 && v < n && (i === 0 || v > s[i - 1])));
    const out = new Int32Array(m + 3).fill(-1);
    assert.equal(b.sortedSample(n, m, out), out);
    assert.deepEqual(out.subarray(0, m), s);
    assert.deepEqual(Array.from(out.subarray(m)), [-1, -1, -1]);
    assert.equal(b.uniform(), a.uniform(), "the same numbers consumed");
  }
  assert.throws(() => new Rng(1).sortedSample(10, 11), /0 ≤ m ≤ n, got n = 10, m = 11/);
  assert.throws(() => new Rng(1).sortedSample(10, 5, new Int32Array(4)), /out must hold 5/);
});
