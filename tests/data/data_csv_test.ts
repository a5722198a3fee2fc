/**
 * Tests of the data layer's CSV input: parseCsvText() and loadCsvToArena()
 * streaming into the arena, with their validation.
 *
 * Needs `--allow-read --allow-write=/tmp` (temporary CSV files).
 */

import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { loadCsvToArena, parseCsvText } from "../../data/mod.ts";
import { Rng } from "../../random/rng.ts";
import { _x, _y } from "../_data_fixtures.ts";

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

Deno.test("ordinary decimals parse to the last bit, as Number() reads them", async () => {
  // Every way a decimal is commonly written: shortest round trip, fixed and
  // exponential notation at several precisions, 17 significant digits, a
  // leading "+", a leading or trailing point, subnormal and huge magnitudes.
  const rng = new Rng(77);
  const cells: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const v = rng.normal() * 10 ** (rng.int(61) - 30);
    const k = rng.int(8);
    const s = k === 0
      ? String(v)
      : k === 1
      ? v.toExponential(rng.int(17))
      : k === 2
      ? v.toFixed(rng.int(12))
      : k === 3
      ? v.toPrecision(17)
      : k === 4
      ? (v < 0 ? String(v) : `+${v}`)
      : k === 5
      ? String(Math.abs(v) < 1 ? Math.abs(v) : 0.5).replace(/^0\./, ".")
      : k === 6
      ? `${Math.round(v % 1e15)}.`
      : [5e-324, 2.2250738585072014e-308, 9.999999999999999e99, -0, 0.1, 1e-7][rng.int(6)]
        .toString();
    cells.push(s);
  }
  const lines = ["y,a"];
  for (let i = 0; i < cells.length; i++) lines.push(`${i % 2},${cells[i]}`);
  const text = lines.join("\n") + "\n";
  const opts = { response: "y", family: "logistic", intercept: false } as const;
  const t = parseCsvText(text, opts);
  const want = new Float64Array(cells.map(Number));
  assert.deepEqual(new Uint8Array(t.x.buffer), new Uint8Array(want.buffer), "bits differ");
  const arena = loadCore({ backend: "reference" });
  const data = await _withTempCsv(
    text,
    (p) => loadCsvToArena(arena, p, { ...opts, chunkBytes: 977 }),
  );
  const x = _x(data);
  assert.deepEqual(
    new Uint8Array(x.buffer, x.byteOffset, x.byteLength),
    new Uint8Array(want.buffer),
  );
});
