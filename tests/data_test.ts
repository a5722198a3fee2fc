/**
 * Tests of the data layer: CSV streaming into the arena, synthetic data sets,
 * B-spline bases, MNIST 7 vs 9, projections and standardisation.
 *
 * Needs `--allow-read --allow-write=/tmp` (temporary CSV files).
 */
import assert from "node:assert/strict";
import { loadCore } from "../core/load.ts";
import type { Arena } from "../core/arena.ts";
import {
  applyProjection,
  bankruptcyShaped,
  bsplineBasis,
  gaussianLinearRegression,
  type GlmData,
  higgsShaped,
  loadCsvToArena,
  parseCsvText,
  pcaProjection,
  quantileKnots,
  randomProjection,
  standardize,
} from "../data/mod.ts";
import { loadMnist79, mnist79, MNIST_PIXELS } from "../data/mnist.ts";
import { Rng } from "../random/rng.ts";

function _x(data: GlmData): Float64Array {
  const cells = data.numRows * data.numCols;
  return data.storage === "f64"
    ? data.arena.readF64(data.x, cells)
    : Float64Array.from(data.arena.readF32(data.x, cells));
}

function _y(data: GlmData): Float64Array {
  return data.arena.readF64(data.y, data.numRows);
}

async function _withTempCsv<T>(text: string, fn: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({
    dir: "/tmp",
    prefix: "tallmc_data_test_",
    suffix: ".csv",
  });
  try {
    await Deno.writeTextFile(path, text);
    return await fn(path);
  } finally {
    await Deno.remove(path);
  }
}

const _SMALL = "y,a,b,c\n1,0.5,-2,3e2\n0,1.25,0,-0.125\n1,-7,8.5,1e-3\n";

/** A CSV text of n rows × (1 + d) columns with awkward but valid numbers. */
function _bigCsv(n: number, d: number, seed: number, newline = "\n"): string {
  const rng = new Rng(seed);
  const lines = ["y," + Array.from({ length: d }, (_, j) => `x${j + 1}`).join(",")];
  for (let i = 0; i < n; i++) {
    const cells = [String(rng.int(2))];
    for (let j = 0; j < d; j++) {
      const v = rng.normal() * 10 ** (rng.int(7) - 3);
      cells.push(j % 3 === 0 ? v.toExponential(6) : String(v));
    }
    lines.push(cells.join(","));
  }
  return lines.join(newline) + newline;
}

Deno.test("parseCsvText() parses numbers, selects columns and validates", async (t) => {
  await t.step("round trip of a small table, intercept first", () => {
    const table = parseCsvText(_SMALL, { response: "y", family: "logistic" });
    assert.equal(table.numRows, 3);
    assert.equal(table.numCols, 4);
    assert.deepEqual(table.columnNames, ["(Intercept)", "a", "b", "c"]);
    assert.equal(table.responseName, "y");
    assert.deepEqual(Array.from(table.x), [1, 0.5, -2, 300, 1, 1.25, 0, -0.125, 1, -7, 8.5, 0.001]);
    assert.deepEqual(Array.from(table.y), [1, 0, 1]);
  });
  await t.step("columns, no intercept, CRLF, quotes, BOM and a missing final newline", () => {
    const text = '\uFEFF"y","a","b"\r\n2,"1.5",3\r\n\r\n0,4,-5';
    const table = parseCsvText(text, {
      response: "y",
      family: "poisson",
      intercept: false,
      columns: ["b", "a"],
    });
    assert.deepEqual(table.columnNames, ["b", "a"]);
    assert.deepEqual(Array.from(table.x), [3, 1.5, -5, 4]);
    assert.deepEqual(Array.from(table.y), [2, 0]);
  });
  await t.step("no header: response by index, columns named V1, V2, …", () => {
    const table = parseCsvText("0.5;3\n1.5;4\n", {
      response: 1,
      family: "gaussian",
      header: false,
      delimiter: ";",
    });
    assert.deepEqual(table.columnNames, ["(Intercept)", "V1"]);
    assert.deepEqual(Array.from(table.x), [1, 0.5, 1, 1.5]);
    assert.deepEqual(Array.from(table.y), [3, 4]);
  });
  await t.step("bad inputs name the line and the column", () => {
    const opts = { response: "y", family: "logistic" } as const;
    assert.throws(() => parseCsvText("y,a\n1,2\n0,abc\n", opts), /line 3, column "a".*"abc"/);
    assert.throws(() => parseCsvText("y,a\n1,NaN\n", opts), /line 2, column "a".*NaN/);
    assert.throws(() => parseCsvText("y,a\n1,2\n1,-Inf\n", opts), /line 3, column "a".*Infinity/);
    assert.throws(() => parseCsvText("y,a\n1,1e999\n", opts), /line 2, column "a".*finite/);
    assert.throws(() => parseCsvText("y,a\n1,\n", opts), /line 2, column "a".*empty/);
    assert.throws(() => parseCsvText("y,a,b\n1,2,3\n0,1\n", opts), /line 3.*got 2.*"b" is missing/);
    assert.throws(() => parseCsvText("y,a\n1,2,3\n", opts), /line 2.*got 3.*extra field "3"/);
    assert.throws(() => parseCsvText("y,a\n1,2\n2,2\n", opts), /line 3, column "y".*0 or 1, got 2/);
    const pois = { response: "y", family: "poisson" } as const;
    assert.throws(
      () => parseCsvText("y,a\n-1,2\n", pois),
      /line 2, column "y".*non-negative integer, got -1/,
    );
    assert.throws(() => parseCsvText("y,a\n1.5,2\n", pois), /line 2, column "y".*got 1.5/);
    assert.throws(() => parseCsvText("", opts), /empty/);
    assert.throws(() => parseCsvText("y,a\n", opts), /header.*no data rows/);
    assert.throws(
      () => parseCsvText("y,a\n1,2\n", { ...opts, response: "z" }),
      /response column "z" not found.*"y", "a"/,
    );
    assert.throws(
      () => parseCsvText("y,a\n1,2\n", { ...opts, columns: ["q"] }),
      /column "q" not found/,
    );
    assert.throws(
      () => parseCsvText("y,a\n1,2\n", { ...opts, family: "binomial" as "logistic" }),
      TypeError,
    );
  });
});

Deno.test("loadCsvToArena() streams a file into the arena", async (t) => {
  const arena = loadCore({ backend: "reference" });
  await t.step("round trip of a small file equals parseCsvText", async () => {
    const table = parseCsvText(_SMALL, { response: "y", family: "logistic" });
    const data = await _withTempCsv(
      _SMALL,
      (p) => loadCsvToArena(arena, p, { response: "y", family: "logistic" }),
    );
    assert.equal(data.numRows, 3);
    assert.equal(data.numCols, 4);
    assert.equal(data.storage, "f64");
    assert.deepEqual(data.columnNames, table.columnNames);
    assert.deepEqual(_x(data), table.x);
    assert.deepEqual(_y(data), table.y);
  });
  await t.step("f32 storage rounds X to single precision, keeps y in f64", async () => {
    const text = "y,a,b\n0.1,0.1,1e-7\n0.3,3.141592653589793,-2.5\n";
    const data = await _withTempCsv(
      text,
      (p) => loadCsvToArena(arena, p, { response: "y", family: "gaussian", storage: "f32" }),
    );
    assert.equal(data.storage, "f32");
    const x = arena.readF32(data.x, 6);
    assert.deepEqual(Array.from(x), [1, 0.1, 1e-7, 1, Math.PI, -2.5].map(Math.fround));
    assert.notEqual(x[1], 0.1); // really rounded
    assert.deepEqual(Array.from(_y(data)), [0.1, 0.3]);
  });
  await t.step("bad files reject with line and column", async () => {
    const cases: [string, object, RegExp][] = [
      ["y,a\n1,2\n0,x1\n", {}, /:.*line 3, column "a".*"x1"/],
      ["y,a\n1,nan\n", {}, /line 2, column "a".*NaN/],
      ["y,a\n1,Infinity\n", {}, /line 2, column "a".*Infinity/],
      ["y,a,b\n1,2,3\n0,1\n", {}, /line 3.*expected 3 fields.*got 2/],
      ["y,a\n0.5,2\n", {}, /line 2, column "y".*0 or 1, got 0.5/],
      ["y,a\n1,2\n3.5,1\n", { family: "poisson" }, /line 3, column "y".*non-negative integer/],
      ["", {}, /is empty/],
      ["y,a\n", {}, /no data rows/],
      ["y,a\n1,2\n", { response: "resp" }, /response column "resp" not found/],
    ];
    for (const [text, extra, re] of cases) {
      await _withTempCsv(text, async (p) => {
        const before = arena.bytesInUse;
        await assert.rejects(
          loadCsvToArena(arena, p, { response: "y", family: "logistic", ...extra }),
          (e: Error) => re.test(e.message) && e.message.includes(p),
          `expected ${re} for ${JSON.stringify(text)}`,
        );
        assert.equal(arena.bytesInUse, before, "a failed load frees what it allocated");
      });
    }
  });
  await t.step(
    "a file larger than the arena, with memory growth mid-load, equals parseCsvText",
    async () => {
      for (const newline of ["\n", "\r\n"]) {
        const text = _bigCsv(20_000, 12, 5, newline); // ≈ 2.8 MB vs a 64 KiB initial memory
        const small = loadCore({ backend: "reference", initialBytes: 65536 });
        const bytesBefore = small.byteLength;
        const table = parseCsvText(text, {
          response: "y",
          family: "logistic",
          columns: ["x3", "x1", "x12"],
        });
        const data = await _withTempCsv(text, async (p) => {
          // Another task allocates while the load awaits its reads, growing the memory.
          let done = false, numGrowths = 0;
          const load = loadCsvToArena(small, p, {
            response: "y",
            family: "logistic",
            columns: ["x3", "x1", "x12"],
            chunkBytes: 4093, // odd size: chunk boundaries fall inside numbers and CRLFs
          }).finally(() => done = true);
          const grower = (async () => {
            while (!done) {
              const before = small.byteLength;
              small.allocF64(50_000);
              if (small.byteLength > before) numGrowths++;
              await new Promise((r) => setTimeout(r, 0));
            }
          })();
          const d = await load;
          await grower;
          assert.ok(numGrowths >= 3, `memory grew ${numGrowths} times during the load`);
          return d;
        });
        assert.ok(small.byteLength > bytesBefore + text.length);
        assert.equal(data.numRows, 20_000);
        assert.deepEqual(data.columnNames, ["(Intercept)", "x3", "x1", "x12"]);
        assert.deepEqual(_x(data), table.x);
        assert.deepEqual(_y(data), table.y);
        // And the values are the ones written: spot-check line 2 and the last line.
        const lines = text.split(newline);
        const first = lines[1].split(","), last = lines[20_000].split(",");
        assert.deepEqual(Array.from(table.x.subarray(0, 4)), [1, +first[3], +first[1], +first[12]]);
        assert.deepEqual(Array.from(table.x.subarray(-4)), [1, +last[3], +last[1], +last[12]]);
      }
    },
  );
});

function _readAll(data: GlmData): [Float64Array, Float64Array] {
  return [_x(data), _y(data)];
}

function _bitsEqual(a: Float64Array, b: Float64Array): boolean {
  const ua = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const ub = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return ua.length === ub.length && ua.every((v, i) => v === ub[i]);
}

/** Solve the symmetric positive-definite system A x = b (Cholesky); also returns diag(A⁻¹). */
function _spdSolve(
  a: Float64Array,
  b: Float64Array,
  d: number,
): { x: Float64Array; invDiag: Float64Array } {
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * d + j];
      for (let k = 0; k < j; k++) s -= l[i * d + k] * l[j * d + k];
      l[i * d + j] = i === j ? Math.sqrt(s) : s / l[j * d + j];
    }
  }
  const solve = (rhs: Float64Array) => {
    const z = new Float64Array(d), x = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let s = rhs[i];
      for (let k = 0; k < i; k++) s -= l[i * d + k] * z[k];
      z[i] = s / l[i * d + i];
    }
    for (let i = d - 1; i >= 0; i--) {
      let s = z[i];
      for (let k = i + 1; k < d; k++) s -= l[k * d + i] * x[k];
      x[i] = s / l[i * d + i];
    }
    return x;
  };
  const invDiag = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    const e = new Float64Array(d);
    e[j] = 1;
    invDiag[j] = solve(e)[j];
  }
  return { x: solve(b), invDiag };
}

function _sigmoid(eta: number): number {
  return 1 / (1 + Math.exp(-eta));
}

Deno.test("higgsShaped() is seeded, shaped like HIGGS and has the model's event rate", async (t) => {
  const arena = loadCore({ backend: "reference" });
  const n = 20_000;
  const a = higgsShaped(arena, { n, seed: 11 });
  await t.step("same seed → bit-identical data, other seed → different", () => {
    const b = higgsShaped(loadCore({ backend: "reference" }), { n, seed: 11 });
    const c = higgsShaped(arena, { n, seed: 12 });
    const [xa, ya] = _readAll(a.data), [xb, yb] = _readAll(b.data), [xc] = _readAll(c.data);
    assert.ok(_bitsEqual(xa, xb) && _bitsEqual(ya, yb));
    assert.ok(_bitsEqual(a.trueCoefficients, b.trueCoefficients));
    assert.ok(!_bitsEqual(xa, xc));
  });
  await t.step("30 columns, intercept first, standard-normal covariates", () => {
    assert.equal(a.data.numCols, 30);
    assert.equal(a.data.columnNames[0], "(Intercept)");
    const x = _x(a.data);
    let mean = 0, sq = 0;
    for (let i = 0; i < n; i++) {
      assert.equal(x[i * 30], 1);
      mean += x[i * 30 + 7];
      sq += x[i * 30 + 7] ** 2;
    }
    mean /= n;
    assert.ok(Math.abs(mean) < 4 / Math.sqrt(n), `mean ${mean}`);
    assert.ok(Math.abs(sq / n - 1) < 4 * Math.sqrt(2 / n), `second moment ${sq / n}`);
  });
  await t.step("event rate within 4 sd of the generating model's, and near 0.5", () => {
    const [x, y] = _readAll(a.data);
    const beta = a.trueCoefficients;
    let sumY = 0, sumP = 0, varSum = 0;
    for (let i = 0; i < n; i++) {
      let eta = 0;
      for (let j = 0; j < 30; j++) eta += x[i * 30 + j] * beta[j];
      const p = _sigmoid(eta);
      sumP += p;
      varSum += p * (1 - p);
      sumY += y[i];
      assert.ok(y[i] === 0 || y[i] === 1);
    }
    assert.ok(Math.abs(sumY - sumP) <= 4 * Math.sqrt(varSum), `Σy = ${sumY}, Σp = ${sumP}`);
    assert.ok(Math.abs(sumP / n - 0.5) < 0.1, `model event rate ${sumP / n}`);
  });
  await t.step(
    "f32 storage holds the f64 values rounded; a test split shares the coefficients",
    () => {
      const f32 = higgsShaped(arena, { n, seed: 11, storage: "f32" });
      assert.equal(f32.data.storage, "f32");
      assert.deepEqual(arena.readF32(f32.data.x, n * 30), Float32Array.from(_x(a.data)));
      const split = higgsShaped(arena, { n, seed: 11, numTest: 500 });
      assert.ok(_bitsEqual(_x(split.data), _x(a.data)), "training rows do not depend on numTest");
      assert.equal(split.test!.numRows, 500);
      assert.ok(_bitsEqual(split.trueCoefficients, a.trueCoefficients));
      assert.ok(!_bitsEqual(_x(split.test!), _x(a.data).subarray(0, 500 * 30)));
    },
  );
  await t.step("bad options throw naming the value", () => {
    assert.throws(() => higgsShaped(arena, { n: 0, seed: 1 }), /n must be .* got 0/);
    assert.throws(() => higgsShaped(arena, { n: 10, seed: 1, storage: "f16" as "f32" }), /"f16"/);
  });
});

Deno.test("gaussianLinearRegression() lets OLS recover the coefficients within 4 standard errors", () => {
  const arena = loadCore({ backend: "reference" });
  const n = 5000, d = 6, sigma = 0.7;
  const gen = gaussianLinearRegression(arena, { n, d, sigma, seed: 3 });
  assert.equal(gen.sigma, sigma);
  const [x, y] = _readAll(gen.data);
  const xtx = new Float64Array(d * d), xty = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      xty[j] += x[i * d + j] * y[i];
      for (let k = 0; k < d; k++) xtx[j * d + k] += x[i * d + j] * x[i * d + k];
    }
  }
  const { x: bhat, invDiag } = _spdSolve(xtx, xty, d);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    let fit = 0;
    for (let j = 0; j < d; j++) fit += x[i * d + j] * bhat[j];
    rss += (y[i] - fit) ** 2;
  }
  const s2 = rss / (n - d);
  assert.ok(
    Math.abs(Math.sqrt(s2) - sigma) < 4 * sigma / Math.sqrt(2 * (n - d)),
    `σ̂ = ${Math.sqrt(s2)}`,
  );
  for (let j = 0; j < d; j++) {
    const se = Math.sqrt(s2 * invDiag[j]);
    assert.ok(
      Math.abs(bhat[j] - gen.trueCoefficients[j]) < 4 * se,
      `coefficient ${j}: OLS ${bhat[j]}, true ${gen.trueCoefficients[j]}, se ${se}`,
    );
  }
  const noIntercept = gaussianLinearRegression(arena, {
    n: 10,
    d: 2,
    sigma: 1,
    seed: 3,
    intercept: false,
  });
  assert.deepEqual(noIntercept.data.columnNames, ["x1", "x2"]);
  assert.notEqual(_x(noIntercept.data)[0], 1);
});

Deno.test("bankruptcyShaped() builds 81 spline columns with a ~1 % event rate", async (t) => {
  const arena = loadCore({ backend: "reference" });
  const n = 30_000;
  const gen = bankruptcyShaped(arena, { n, seed: 5 });
  const [x, y] = _readAll(gen.data);
  await t.step("shape, names and centred spline columns", () => {
    assert.equal(gen.data.numCols, 81);
    assert.equal(gen.data.columnNames.length, 81);
    assert.equal(gen.data.columnNames[1], "earningsRatio_bs1");
    assert.equal(gen.covariates.length, n * 8);
    for (let j = 1; j < 81; j++) {
      let m = 0;
      for (let i = 0; i < n; i++) m += x[i * 81 + j];
      assert.ok(Math.abs(m / n) < 1e-12, `column ${j} mean ${m / n}`);
    }
    for (let i = 0; i < n; i += 997) assert.equal(x[i * 81], 1);
  });
  await t.step("event rate within 4 sd of the model's, which is calibrated to 1 %", () => {
    let sumY = 0, sumP = 0, varSum = 0;
    for (let i = 0; i < n; i++) {
      let eta = gen.trueIntercept;
      for (let j = 0; j < 8; j++) eta += gen.trueEffect(j, gen.covariates[i * 8 + j]);
      const p = _sigmoid(eta);
      sumP += p;
      varSum += p * (1 - p);
      sumY += y[i];
    }
    assert.ok(Math.abs(sumP / n - gen.expectedEventRate) < 1e-12);
    assert.ok(Math.abs(gen.expectedEventRate - 0.01) < 1e-6, `model rate ${gen.expectedEventRate}`);
    assert.ok(Math.abs(sumY - sumP) <= 4 * Math.sqrt(varSum), `Σy = ${sumY}, Σp = ${sumP}`);
  });
  await t.step("macro covariates are constant within periods; firm ratios are skewed", () => {
    const byPeriod = new Map<number, [number, number]>();
    for (let i = 0; i < n; i++) {
      const v: [number, number] = [gen.covariates[i * 8 + 6], gen.covariates[i * 8 + 7]];
      const seen = byPeriod.get(gen.period[i]);
      if (seen === undefined) byPeriod.set(gen.period[i], v);
      else assert.deepEqual(seen, v);
    }
    assert.equal(byPeriod.size, 40);
    let m = 0, m2 = 0, m3 = 0;
    for (let i = 0; i < n; i++) m += gen.covariates[i * 8 + 1];
    m /= n;
    for (let i = 0; i < n; i++) {
      const dv = gen.covariates[i * 8 + 1] - m;
      m2 += dv * dv;
      m3 += dv * dv * dv;
    }
    assert.ok(m3 / n / (m2 / n) ** 1.5 > 2, "interest coverage is right-skewed");
  });
  await t.step("the stored basis rebuilds the design columns of a covariate", () => {
    const j = 0;
    const vals = Array.from({ length: 50 }, (_, i) => gen.covariates[i * 8 + j]);
    const b = bsplineBasis(vals, {
      knots: gen.basis.knots[j],
      dropFirst: true,
      centre: gen.basis.centre[j],
    });
    for (let i = 0; i < 50; i++) {
      for (let k = 0; k < 10; k++) assert.ok(Math.abs(b[i * 10 + k] - x[i * 81 + 1 + k]) < 1e-15);
    }
  });
  await t.step("same seed → bit-identical", () => {
    const again = bankruptcyShaped(arena, { n: 2000, seed: 5, storage: "f32" });
    const again2 = bankruptcyShaped(arena, { n: 2000, seed: 5, storage: "f32" });
    assert.deepEqual(
      arena.readF32(again.data.x, 2000 * 81),
      arena.readF32(again2.data.x, 2000 * 81),
    );
  });
});

/** Direct Cox–de Boor recursion (the oracle for the triangular scheme). */
function _coxDeBoor(knots: Float64Array, k: number, q: number, x: number, last: boolean): number {
  if (q === 0) {
    if (knots[k] <= x && x < knots[k + 1]) return 1;
    // x at the right boundary belongs to the last non-empty span
    return last && x === knots[k + 1] && knots[k] < knots[k + 1] ? 1 : 0;
  }
  const a = knots[k + q] - knots[k], b = knots[k + q + 1] - knots[k + 1];
  return (a > 0 ? ((x - knots[k]) / a) * _coxDeBoor(knots, k, q - 1, x, last) : 0) +
    (b > 0 ? ((knots[k + q + 1] - x) / b) * _coxDeBoor(knots, k + 1, q - 1, x, last) : 0);
}

Deno.test("bsplineBasis() is a non-negative partition of unity on quantile knots", async (t) => {
  const rng = new Rng(9);
  const values = Array.from({ length: 2001 }, () => Math.exp(rng.normal())); // skewed
  await t.step("rows sum to 1 and entries are in [0, 1]", () => {
    for (const degree of [1, 2, 3]) {
      const b = bsplineBasis(values, { numBasis: 10, degree });
      for (let i = 0; i < values.length; i++) {
        let s = 0;
        for (let k = 0; k < 10; k++) {
          const v = b[i * 10 + k];
          assert.ok(v >= 0 && v <= 1 + 1e-15, `entry ${v}`);
          s += v;
        }
        assert.ok(Math.abs(s - 1) < 1e-12, `row ${i} sums to ${s}`);
      }
    }
  });
  await t.step("interior knots are the quantiles of the covariate", () => {
    const knots = quantileKnots(values, { numSplines: 10, degree: 3 });
    assert.equal(knots.length, 14);
    const sorted = [...values].sort((p, q) => p - q);
    for (let k = 0; k < 4; k++) {
      assert.equal(knots[k], sorted[0]);
      assert.equal(knots[10 + k], sorted[2000]);
    }
    // 6 interior knots at j/7; with 2001 values, (2000·j/7) falls between order statistics
    for (let j = 1; j <= 6; j++) {
      const h = 2000 * j / 7, lo = Math.floor(h);
      const expected = sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
      assert.ok(Math.abs(knots[3 + j] - expected) < 1e-12);
      const below = values.filter((v) => v < knots[3 + j]).length;
      assert.ok(Math.abs(below / values.length - j / 7) < 1e-3);
    }
  });
  await t.step("values match the direct Cox–de Boor recursion", () => {
    const knots = quantileKnots(values, { numSplines: 8, degree: 3 });
    const probe = [values[0], values[1], Math.min(...values), Math.max(...values), knots[5], 1.0];
    const b = bsplineBasis(probe, { knots });
    for (let i = 0; i < probe.length; i++) {
      for (let k = 0; k < 8; k++) {
        const direct = _coxDeBoor(knots, k, 3, probe[i], probe[i] === knots[knots.length - 1]);
        assert.ok(Math.abs(b[i * 8 + k] - direct) < 1e-14, `x=${probe[i]} k=${k}`);
      }
    }
  });
  await t.step("dropFirst keeps numBasis columns; centre makes them mean-zero", () => {
    const b = bsplineBasis(values, { numBasis: 10, dropFirst: true, centre: true });
    assert.equal(b.length, values.length * 10);
    for (let k = 0; k < 10; k++) {
      let m = 0;
      for (let i = 0; i < values.length; i++) m += b[i * 10 + k];
      assert.ok(Math.abs(m) < 1e-10);
    }
    assert.throws(() => bsplineBasis(values, { numBasis: 2 }), /numBasis .* got 2/);
    assert.throws(() => bsplineBasis([1, 1, 1]), /not all be equal/);
  });
});

Deno.test("loadMnist79() splits the package's 7s and 9s deterministically", async (t) => {
  const a = loadMnist79({ seed: 1 });
  await t.step("sizes, labels and pixel range", () => {
    assert.equal(a.numTrain, 1638);
    assert.equal(a.numTest, 410);
    assert.equal(a.trainX.length, 1638 * MNIST_PIXELS);
    const nines = (y: Float64Array) => y.reduce((s, v) => s + v, 0);
    assert.equal(nines(a.trainY), 782);
    assert.equal(nines(a.testY), 196);
    for (const y of [a.trainY, a.testY]) assert.ok(y.every((v) => v === 0 || v === 1));
    for (const x of [a.trainX, a.testX]) assert.ok(x.every((v) => v >= 0 && v <= 1));
  });
  await t.step("same seed → same split; other seed → another; no image in both sets", () => {
    const b = loadMnist79({ seed: 1 }), c = loadMnist79({ seed: 2 });
    assert.ok(_bitsEqual(a.trainX, b.trainX) && _bitsEqual(a.testY, b.testY));
    assert.ok(!_bitsEqual(a.trainX, c.trainX));
    const key = (x: Float64Array, i: number) =>
      x.subarray(i * MNIST_PIXELS, (i + 1) * MNIST_PIXELS).join();
    const train = new Set(Array.from({ length: a.numTrain }, (_, i) => key(a.trainX, i)));
    for (let i = 0; i < a.numTest; i++) assert.ok(!train.has(key(a.testX, i)));
  });
});

Deno.test("randomProjection() and pcaProjection() reduce dimension reproducibly", async (t) => {
  const pixels = loadMnist79({ seed: 1 });
  await t.step("random projection: seeded, entries N(0, 1/k)", () => {
    const k = 20;
    const p1 = randomProjection(MNIST_PIXELS, { k, seed: 7 });
    const p2 = randomProjection(MNIST_PIXELS, { k, seed: 7 });
    const p3 = randomProjection(MNIST_PIXELS, { k, seed: 8 });
    assert.ok(_bitsEqual(p1.matrix, p2.matrix));
    assert.ok(!_bitsEqual(p1.matrix, p3.matrix));
    const m = p1.matrix, count = m.length;
    const v = m.reduce((s, e) => s + e * e, 0) / count;
    assert.ok(Math.abs(v - 1 / k) < 4 * (1 / k) * Math.sqrt(2 / count), `entry variance ${v}`);
    assert.ok(_bitsEqual(applyProjection(p1, pixels.testX), applyProjection(p2, pixels.testX)));
  });
  await t.step(
    "PCA: variances non-increasing, orthonormal components, variance along each = eigenvalue",
    () => {
      const k = 6;
      const pca = pcaProjection(pixels.trainX, { numCols: MNIST_PIXELS, k, seed: 3 });
      const again = pcaProjection(pixels.trainX, { numCols: MNIST_PIXELS, k, seed: 4 });
      for (let c = 0; c < k; c++) {
        if (c > 0) assert.ok(pca.variances[c - 1] >= pca.variances[c]);
        for (let c2 = 0; c2 < k; c2++) {
          let dot = 0;
          for (let r = 0; r < MNIST_PIXELS; r++) {
            dot += pca.matrix[r * k + c] *
              pca.matrix[r * k + c2];
          }
          assert.ok(Math.abs(dot - (c === c2 ? 1 : 0)) < 1e-10, `q${c}·q${c2} = ${dot}`);
        }
      }
      const z = applyProjection(pca, pixels.trainX);
      const n = pixels.numTrain;
      for (let c = 0; c < k; c++) {
        let m = 0, s = 0;
        for (let i = 0; i < n; i++) m += z[i * k + c];
        for (let i = 0; i < n; i++) s += (z[i * k + c] - m / n) ** 2;
        assert.ok(Math.abs(m / n) < 1e-10);
        assert.ok(Math.abs(s / (n - 1) - pca.variances[c]) < 1e-8 * pca.variances[0]);
        // another starting subspace finds the same (sign-normalised) components
        for (let r = 0; r < MNIST_PIXELS; r++) {
          assert.ok(Math.abs(pca.matrix[r * k + c] - again.matrix[r * k + c]) < 1e-5);
        }
      }
    },
  );
  await t.step("PCA of a known 2-d covariance", () => {
    // ±3·u ± 1·v with u = (1, 2)/√5, v = (2, −1)/√5: covariance 4·(9uuᵀ + vvᵀ)/3.
    const x: number[] = [];
    for (const a of [-3, 3]) {
      for (const b of [-1, 1]) x.push((a + 2 * b) / Math.sqrt(5), (2 * a - b) / Math.sqrt(5));
    }
    const pca = pcaProjection(x, { numCols: 2, k: 2 });
    assert.ok(
      Math.abs(pca.matrix[0] - 1 / Math.sqrt(5)) < 1e-12,
      `u = ${pca.matrix[0]}, ${pca.matrix[2]}`,
    );
    assert.ok(Math.abs(pca.matrix[2] - 2 / Math.sqrt(5)) < 1e-12);
    assert.ok(
      Math.abs(pca.variances[0] - 12) < 1e-12 && Math.abs(pca.variances[1] - 4 / 3) < 1e-12,
    );
  });
});

Deno.test("standardize() gives mean 0 and sd 1, skipping constant columns", () => {
  const x = [1, 2, 10, 1, 4, 10, 1, 9, 10];
  const s = standardize(x, { numCols: 3 });
  assert.deepEqual(Array.from(s.mean), [0, 5, 0]);
  assert.deepEqual(Array.from(s.sd), [1, Math.sqrt(13), 1]);
  assert.deepEqual([s.values[0], s.values[2], s.values[3]], [1, 10, 1]);
  const again = standardize([1, 5, 10], { numCols: 3, mean: s.mean, sd: s.sd });
  assert.deepEqual(Array.from(again.values), [1, 0, 10]);
  assert.throws(() => standardize([1, 2, 3], { numCols: 2 }), /not a multiple of numCols = 2/);
});

Deno.test("mnist79() builds train and test GLM data in the arena", async (t) => {
  const arena: Arena = loadCore({ backend: "reference" });
  for (const projection of ["random", "pca"] as const) {
    await t.step(projection, () => {
      const k = 8;
      const m = mnist79(arena, { projection, k, seed: 1 });
      assert.equal(m.train.numRows, 1638);
      assert.equal(m.test.numRows, 410);
      assert.equal(m.train.numCols, k + 1);
      assert.equal(m.train.columnNames[0], "(Intercept)");
      const [x, y] = _readAll(m.train);
      assert.ok(y.every((v) => v === 0 || v === 1));
      for (let c = 1; c <= k; c++) {
        let mean = 0, sq = 0;
        for (let i = 0; i < 1638; i++) {
          mean += x[i * (k + 1) + c];
          sq += x[i * (k + 1) + c] ** 2;
        }
        assert.ok(Math.abs(mean / 1638) < 1e-12);
        assert.ok(Math.abs(sq / 1637 - 1) < 1e-12);
      }
      const again = mnist79(arena, { projection, k, seed: 1, storage: "f32", intercept: false });
      assert.equal(again.test.numCols, k);
      assert.deepEqual(
        arena.readF32(again.test.x, 410 * k),
        Float32Array.from(_x(m.test).filter((_, i) => i % (k + 1) !== 0)),
      );
    });
  }
});
