/**
 * Tests of Parquet input and output (data/parquet.ts), CSV streaming
 * (openCsvRows) and `tallmc convert`: CSV → Parquet → GlmData equals the CSV
 * load bit for bit, chunks cover every row in order, bad values and corrupt
 * or truncated files give errors naming the file, column and row.
 *
 * Needs `--allow-read --allow-write=/tmp`.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { convertTable } from "../../cli/convert_command.ts";
import {
  bytesPerCell,
  type GlmData,
  loadCsvToArena,
  loadParquet,
  loadParquetWithFormula,
  openCsvRows,
  openParquetRows,
  parquetRowChunks,
  writeParquet,
} from "../../data/mod.ts";
import { loadCsvWithFormula } from "../../data/formula_csv.ts";
import { openRowStore } from "../../data/row_store.ts";
import { parquetColumns } from "../../data/parquet_formula.ts";
import { Rng } from "../../random/rng.ts";
import { runCli } from "../_cli_fixtures.ts";

/** n rows of awkward but valid numbers: y (0/1), then d covariates. */
function _csv(n: number, d: number, seed: number): string {
  const rng = new Rng(seed);
  const lines = ["x0,y," + Array.from({ length: d - 1 }, (_, j) => `x${j + 1}`).join(",")];
  for (let i = 0; i < n; i++) {
    const cells: string[] = [];
    for (let j = 0; j < d; j++) {
      const v = rng.normal() * 10 ** (rng.int(7) - 3);
      cells.push(j % 3 === 0 ? v.toExponential(9) : String(v));
    }
    cells.splice(1, 0, String(rng.int(2)));
    lines.push(cells.join(","));
  }
  return lines.join("\n") + "\n";
}

/** X and y of a data set as bytes, for bit-for-bit comparison. */
function _bytes(data: GlmData): { x: Uint8Array; y: Uint8Array } {
  const w = bytesPerCell(data.storage);
  const mem = new Uint8Array(data.arena.memory.buffer);
  return {
    x: mem.slice(data.x, data.x + data.numRows * data.numCols * w),
    y: mem.slice(data.y, data.y + data.numRows * 8),
  };
}

const _run = runCli;

Deno.test("loadParquet() of a converted CSV equals loadCsvToArena() bit for bit", async (t) => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_parquet_test_" });
  try {
    const csv = `${dir}/a.csv`;
    await Deno.writeTextFile(csv, _csv(2_345, 6, 7));
    for (const storage of ["f64", "f32"] as const) {
      await t.step(`storage ${storage}, columns chosen and reordered`, async () => {
        const pq = `${dir}/a_${storage}.parquet`;
        const r = await convertTable(csv, pq, { response: "y", storage, rowGroupSize: 1000 });
        assert.equal(r.numRows, 2_345);
        const arena = loadCore({ backend: "reference" });
        for (const columns of [undefined, ["x3", "x0", "x5"]]) {
          const opts = { response: "y", family: "logistic", storage, columns } as const;
          const a = await loadCsvToArena(arena, csv, opts);
          const b = await loadParquet(arena, pq, opts);
          assert.deepEqual(b.columnNames, a.columnNames);
          assert.equal(b.numRows, a.numRows);
          assert.equal(b.storage, storage);
          const ba = _bytes(a), bb = _bytes(b);
          assert.deepEqual(bb.y, ba.y);
          assert.deepEqual(bb.x, ba.x);
          assert.deepEqual(b.warnings, (a.warnings ?? []).map((w) => w.replace(csv, pq)));
        }
        // The file's bytes in memory read the same.
        const c = await loadParquet(arena, await Deno.readFile(pq), {
          response: "y",
          family: "logistic",
          storage,
          intercept: false,
        });
        assert.equal(c.numCols, 6);
      });
    }
    await t.step("Parquet → CSV → load is the identity on the values", async () => {
      const back = `${dir}/back.csv`;
      await convertTable(`${dir}/a_f64.parquet`, back, { response: "y" });
      const arena = loadCore({ backend: "reference" });
      const opts = { response: "y", family: "logistic" } as const;
      const a = _bytes(await loadCsvToArena(arena, csv, opts));
      const b = await loadCsvToArena(arena, back, opts);
      assert.deepEqual(_bytes(b).x, a.x);
      assert.deepEqual(b.columnNames.slice(0, 3), ["(Intercept)", "x0", "x1"]);
    });
    await t.step("a formula reads Parquet as it reads CSV", async () => {
      const arena = loadCore({ backend: "reference" });
      const opts = { formula: "y ~ x1 + x0:x2", family: "logistic" } as const;
      const a = await loadCsvWithFormula(arena, csv, opts);
      const b = await loadParquetWithFormula(arena, `${dir}/a_f64.parquet`, opts);
      assert.deepEqual(b.columnNames, a.columnNames);
      assert.deepEqual(_bytes(b).x, _bytes(a).x);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("parquetRowChunks() covers every row once, in order, one row group at a time", async () => {
  const path = await Deno.makeTempFile({ dir: "/tmp", suffix: ".parquet" });
  try {
    const n = 1_003, d = 3;
    const x = new Float64Array(n * d).map((_, k) => k), y = new Float64Array(n).map((_, i) => i);
    const aux = new Float64Array(n).map((_, i) => -i);
    // Written in uneven chunks that straddle row groups.
    const chunks = [];
    for (let s = 0; s < n; s += 77) {
      const m = Math.min(77, n - s);
      chunks.push({
        numRows: m,
        x: x.slice(s * d, (s + m) * d),
        y: y.slice(s, s + m),
        aux: aux.slice(s, s + m),
      });
    }
    const w = await writeParquet(path, chunks, {
      columnNames: ["a", "b", "c"],
      responseName: "y",
      auxName: "off",
      storage: "f64",
      rowGroupSize: 250,
    });
    assert.deepEqual(w, { numRows: n, numRowGroups: 5, numBytes: (await Deno.stat(path)).size });
    const rows = await openParquetRows(path, {
      response: "y",
      family: "gaussian",
      aux: "off",
      intercept: false,
    });
    assert.deepEqual(rows.rowGroupRows, [250, 250, 250, 250, 3]);
    assert.deepEqual(rows.columnNames, ["a", "b", "c"]);
    let next = 0;
    for await (const c of rows) {
      assert.deepEqual(c.y, y.slice(next, next + c.numRows));
      assert.deepEqual(c.x, x.slice(next * d, (next + c.numRows) * d));
      assert.deepEqual(c.aux, aux.slice(next, next + c.numRows));
      next += c.numRows;
    }
    assert.equal(next, n);
    // f32 chunks, intercept first.
    let first = true;
    for await (
      const c of parquetRowChunks(path, { response: "y", family: "gaussian", storage: "f32" })
    ) {
      assert.ok(c.x instanceof Float32Array);
      if (first) assert.deepEqual(Array.from(c.x.subarray(0, 5)), [1, 0, 1, 2, -0]);
      first = false;
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("openCsvRows() streams every row of a CSV file in blocks", async () => {
  const path = await Deno.makeTempFile({ dir: "/tmp", suffix: ".csv" });
  try {
    await Deno.writeTextFile(path, _csv(1_000, 4, 3));
    const arena = loadCore({ backend: "reference" });
    const whole = await loadCsvToArena(arena, path, { response: "y", family: "logistic" });
    const rows = await openCsvRows(path, {
      response: "y",
      family: "logistic",
      chunkRows: 300,
      chunkBytes: 4096,
    });
    const sizes: number[] = [];
    const xs: number[] = [];
    for await (const c of rows) {
      sizes.push(c.numRows);
      xs.push(...c.x);
    }
    assert.deepEqual(sizes, [300, 300, 300, 100]);
    assert.deepEqual(new Float64Array(xs), arena.readF64(whole.x, 1_000 * 5));
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("loadParquet() refuses bad values, naming file, column and row", async (t) => {
  const path = await Deno.makeTempFile({ dir: "/tmp", suffix: ".parquet" });
  const arena = loadCore({ backend: "reference" });
  const write = (x: number[], y: number[]) =>
    writeParquet(path, [{ numRows: y.length, x: new Float64Array(x), y: new Float64Array(y) }], {
      columnNames: ["a"],
      responseName: "y",
      storage: "f64",
    });
  try {
    await t.step("a logistic response other than 0/1", async () => {
      await write([1, 2, 3], [0, 1, 2]);
      await assert.rejects(
        loadParquet(arena, path, { response: "y", family: "logistic" }),
        (e: Error) =>
          e instanceof RangeError && e.message.includes(path) &&
          /row 3, column "y": a logistic response must be 0 or 1, got 2/.test(e.message),
      );
    });
    await t.step("an extreme covariate", async () => {
      await write([1, 1e200, 3], [0, 1, 1]);
      await assert.rejects(
        loadParquet(arena, path, { response: "y", family: "logistic" }),
        /row 2, column "a": 1e\+200 is beyond ±1e\+100/,
      );
    });
    await t.step("NaN cannot be written, and leaves no partial file", async () => {
      await assert.rejects(write([1, NaN], [0, 1]), /row 2, column "a": values must be finite/);
      await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
    });
    await t.step("a conversion that meets a bad row leaves no partial output", async () => {
      const bad = `${path}.bad.parquet`;
      await writeParquet(
        bad,
        [{ numRows: 3, x: new Float64Array([1, 2, 3]), y: new Float64Array([0, 1, 2]) }],
        { columnNames: ["a"], responseName: "y", storage: "f64", rowGroupSize: 2 },
      );
      for (const out of [`${path}.out.parquet`, `${path}.out.csv`]) {
        await assert.rejects(
          convertTable(bad, out, { response: "y", family: "logistic", rowGroupSize: 1 }),
          /row 3, column "y": a logistic response must be 0 or 1, got 2/,
        );
        await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
      }
      await Deno.remove(bad);
    });
    await t.step("unknown and non-numeric columns", async () => {
      await write([1, 2], [0, 1]);
      await assert.rejects(
        loadParquet(arena, path, { response: "z", family: "gaussian" }),
        /response column "z" not found; the columns are "y", "a"/,
      );
      await assert.rejects(
        loadParquet(arena, path, { response: "y", family: "gaussian", columns: ["a", "b"] }),
        /column "b" not found/,
      );
    });
    await t.step("a missing file and a directory", async () => {
      await assert.rejects(
        loadParquet(arena, "/tmp/tallmc_no_such.parquet", { response: "y", family: "gaussian" }),
        /tallmc_no_such.parquet: no such file/,
      );
      await assert.rejects(
        loadParquet(arena, "/tmp", { response: "y", family: "gaussian" }),
        /\/tmp: is a directory, not a Parquet file/,
      );
    });
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("loadParquet() of a truncated or corrupt file gives an Error naming the file", async (t) => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_parquet_test_" });
  try {
    const good = `${dir}/good.parquet`;
    const n = 5_000;
    const x = new Float64Array(n * 2).map((_, k) => Math.sin(k));
    const y = new Float64Array(n).map((_, i) => i % 2);
    await writeParquet(good, [{ numRows: n, x, y }], {
      columnNames: ["a", "b"],
      responseName: "y",
      storage: "f64",
      rowGroupSize: 1_000,
    });
    const bytes = await Deno.readFile(good);
    const arena = loadCore({ backend: "reference" });
    const load = (path: string) => loadParquet(arena, path, { response: "y", family: "logistic" });
    const damaged = async (name: string, b: Uint8Array) => {
      const path = `${dir}/${name}.parquet`;
      await Deno.writeFile(path, b);
      await assert.rejects(load(path), (e: Error) => {
        assert.ok(e.message.startsWith(`${path}: `), e.message);
        return true;
      });
      return path;
    };
    await t.step("the intact file loads", async () => {
      assert.equal((await load(good)).numRows, n);
    });
    await t.step("truncated: the footer is gone", async () => {
      const p = await damaged("truncated", bytes.slice(0, Math.floor(bytes.length * 0.6)));
      await assert.rejects(load(p), /not a readable Parquet file: it is truncated, corrupt/);
    });
    await t.step("empty, and not Parquet at all", async () => {
      await damaged("empty", new Uint8Array(0));
      await damaged("text", new TextEncoder().encode("y,a\n1,2\n"));
    });
    await t.step("overwritten footer metadata", async () => {
      const b = bytes.slice();
      const metaLen = new DataView(b.buffer).getUint32(b.length - 8, true);
      b.fill(0xff, b.length - 8 - metaLen, b.length - 8 - metaLen + Math.min(64, metaLen));
      await damaged("footer", b);
    });
    await t.step("overwritten first page header", async () => {
      const b = bytes.slice();
      b.fill(0x99, 4, 40); // the first page header follows the magic "PAR1"
      await damaged("pages", b);
    });
    await t.step("stream ends early: a file shortened after its footer was read", async () => {
      const p = `${dir}/shrinks.parquet`;
      await Deno.writeFile(p, bytes);
      const rows = await openParquetRows(p, { response: "y", family: "logistic" });
      await Deno.truncate(p, 200);
      await assert.rejects(
        (async () => {
          for await (const _ of rows) { /* read */ }
        })(),
        (e: Error) => e.message.startsWith(`${p}: `),
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tallmc convert and sample --data FILE.parquet", async (t) => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_parquet_test_" });
  try {
    const csv = `${dir}/d.csv`, pq = `${dir}/d.parquet`;
    await Deno.writeTextFile(csv, _csv(300, 3, 11));
    await t.step("convert csv → parquet", async () => {
      const r = await _run(["convert", csv, pq, "--response", "y", "--family", "logistic"]);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /wrote .*d\.parquet: 300 rows, response \+ 3 columns/);
    });
    await t.step("convert parquet → csv with --columns and --storage f32", async () => {
      const out = `${dir}/e.csv`;
      const r = await _run([
        "convert",
        pq,
        out,
        "--response",
        "y",
        "--columns",
        "x2,x0",
        "--storage",
        "f32",
      ]);
      assert.equal(r.code, 0, r.err);
      const text = await Deno.readTextFile(out);
      assert.equal(text.split("\n")[0], "y,x2,x0");
      assert.equal(text.trim().split("\n").length, 301);
    });
    await t.step("bad flags and data are one-line errors with exit code 2", async () => {
      for (
        const [args, re] of [
          [[csv, `${dir}/x.json`, "--response", "y"], /must end in \.parquet, \.csv or \.rows/],
          [[csv, pq], /convert needs --response/],
          [
            [csv, pq, "--response", "y", "--storage", "f16"],
            /--storage must be f64 or f32, got "f16"/,
          ],
          [[csv, pq, "--response", "y", "--row-group", "0"], /--row-group must be an integer ≥ 1/],
          [
            [csv, `${dir}/z.csv`, "--response", "x1", "--family", "logistic"],
            /column "x1" \(data row 1\): a logistic response must be 0 or 1/,
          ],
          [[`${dir}/none.csv`, pq, "--response", "y"], /none\.csv: no such file/],
        ] as const
      ) {
        const r = await _run(["convert", ...args]);
        assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}`);
        assert.match(r.err, re);
      }
      await assert.rejects(Deno.stat(`${dir}/z.csv`), Deno.errors.NotFound);
      assert.match((await _run(["convert", "--help"])).out, /--row-group N/);
    });
    await t.step("sample reads the Parquet file as it reads the CSV", async () => {
      const draws = (data: string) => [
        "sample",
        "--family",
        "logistic",
        "--data",
        data,
        "--response",
        "y",
        "--samples",
        "20",
        "--warmup",
        "20",
        "--chains",
        "1",
        "--quiet",
        "--out",
        `${data}.draws.csv`,
      ];
      const a = await _run(draws(csv)), b = await _run(draws(pq));
      assert.equal(a.code, 0, a.err);
      assert.equal(b.code, 0, b.err);
      assert.equal(
        await Deno.readTextFile(`${pq}.draws.csv`),
        await Deno.readTextFile(`${csv}.draws.csv`),
      );
      const f = await _run([
        ...draws(pq).filter((s) => s !== "--response" && s !== "y"),
        "--formula",
        "y ~ x0 + x1",
      ]);
      assert.equal(f.code, 0, f.err);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("higgsShapedChunks() (bench/tall_data.ts) gives higgsShaped()'s rows", async () => {
  const { higgsShapedChunks } = await import("../../bench/tall_data.ts");
  const { higgsShaped } = await import("../../data/synthetic.ts");
  const arena = loadCore({ backend: "reference" });
  const n = 2_500;
  const { data } = higgsShaped(arena, { n, seed: 5, storage: "f32" });
  const x: number[] = [], y: number[] = [];
  for (const c of higgsShapedChunks({ n, seed: 5, chunkRows: 1_000 })) {
    x.push(...c.x);
    y.push(...c.y);
  }
  assert.deepEqual(new Float32Array(x), arena.f32(data.x, n * 30));
  assert.deepEqual(new Float64Array(y), arena.readF64(data.y, n));
});

Deno.test("loadParquet() of a GZIP-compressed file: a clear error, or decompressors", async () => {
  const { ByteWriter, ParquetWriter } = await import("hyparquet-writer");
  const { gzipSync } = await import("node:zlib");
  const { compressors } = await import("hyparquet-compressors");
  const writer = new ByteWriter();
  const pw = new ParquetWriter({
    writer,
    codec: "GZIP",
    compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) },
    schema: [
      { name: "root", num_children: 2 },
      { name: "y", type: "DOUBLE", repetition_type: "REQUIRED" },
      { name: "a", type: "DOUBLE", repetition_type: "REQUIRED" },
    ],
  });
  await pw.write({
    columnData: [
      { name: "y", data: new Float64Array([0, 1, 1]) },
      { name: "a", data: new Float64Array([0.5, 1.5, -2]) },
    ],
  });
  await pw.finish();
  const bytes = writer.getBytes().slice();
  const arena = loadCore({ backend: "reference" });
  const options = { response: "y", family: "logistic" } as const;
  await assert.rejects(
    loadParquet(arena, bytes, options),
    /Parquet bytes: row group 1 is compressed with GZIP, which needs a decompressor/,
  );
  const data = await loadParquet(arena, bytes, { ...options, compressors });
  assert.deepEqual(Array.from(arena.readF64(data.x, 6)), [1, 0.5, 1, 1.5, 1, -2]);
  // The command line passes the decompressors.
  const path = await Deno.makeTempFile({ dir: "/tmp", suffix: ".parquet" });
  try {
    await Deno.writeFile(path, bytes);
    const r = await _run(["convert", path, `${path}.csv`, "--response", "y"]);
    assert.equal(r.code, 0, r.err);
    assert.equal(await Deno.readTextFile(`${path}.csv`), "y,a\n0,0.5\n1,1.5\n1,-2\n");
    await Deno.remove(`${path}.csv`);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("loadParquet() reads nullable INT32, INT64 and BOOLEAN columns; a null names its row", async () => {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const file = (a: (number | null)[]) =>
    new Uint8Array(parquetWriteBuffer({
      columnData: [
        { name: "y", data: [1, 0, 1], type: "INT32" },
        { name: "a", data: a, type: "DOUBLE" },
        { name: "n", data: [1n, 2n, -3n], type: "INT64" },
        { name: "b", data: [true, false, true], type: "BOOLEAN" },
        { name: "s", data: ["u", "v", "u"], type: "STRING" },
      ],
    }));
  const arena = loadCore({ backend: "reference" });
  const options = { response: "y", family: "logistic", columns: ["a", "n", "b"] } as const;
  const data = await loadParquet(arena, file([0.5, 1, 2]), options);
  assert.deepEqual(
    Array.from(arena.readF64(data.x, 12)),
    [1, 0.5, 1, 1, 1, 1, 2, 0, 1, 2, -3, 1],
  );
  await assert.rejects(
    loadParquet(arena, file([0.5, null, 2]), options),
    /Parquet bytes: row 2, column "a": the cell is null \(missing values are not allowed\)/,
  );
  await assert.rejects(
    loadParquet(arena, file([0.5, 1, 2]), { response: "y", family: "logistic" }),
    /column "s" is of type BYTE_ARRAY, not numeric .*; choose the covariates with columns/,
  );
  // A text column is a factor of a formula.
  const f = await loadParquetWithFormula(arena, file([0.5, 1, 2]), {
    formula: "y ~ a + s",
    family: "logistic",
  });
  assert.deepEqual(f.columnNames, ["(Intercept)", "a", "s[v]"]);
});

Deno.test("tallmc convert to a row store: X as loading gives it, with the source's fingerprint", async (t) => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_parquet_test_" });
  try {
    const csv = `${dir}/a.csv`, pq = `${dir}/a.parquet`;
    await Deno.writeTextFile(csv, _csv(1_234, 5, 21));
    await convertTable(csv, pq, { response: "y", rowGroupSize: 500 });
    for (const storage of ["f64", "f32"] as const) {
      for (const input of [csv, pq]) {
        await t.step(
          `${input.endsWith(".csv") ? "CSV" : "Parquet"} → rows, ${storage}`,
          async () => {
            const out = `${dir}/a_${storage}.rows`;
            const r = await _run([
              "convert",
              input,
              out,
              "--response",
              "y",
              "--storage",
              storage,
              "--columns",
              "x4,x0,x2",
              "--row-group",
              "300",
            ]);
            assert.equal(r.code, 0, r.err);
            const arena = loadCore({ backend: "reference" });
            const data = await loadCsvToArena(arena, csv, {
              response: "y",
              family: "gaussian",
              storage,
              columns: ["x4", "x0", "x2"],
            });
            const store = openRowStore(out, { checkSource: true });
            try {
              const h = store.header;
              assert.equal(h.numRows, 1_234);
              assert.equal(h.storage, storage);
              assert.deepEqual(h.columnNames, ["(Intercept)", "x4", "x0", "x2"]);
              assert.equal(h.responseName, "y");
              assert.equal(h.source?.path, await Deno.realPath(input));
              const x = storage === "f64"
                ? new Float64Array(1_234 * 4)
                : new Float32Array(1_234 * 4);
              const y = new Float64Array(1_234);
              store.readRange(0, 1_234, x, y);
              const want = _bytes(data);
              assert.deepEqual(new Uint8Array(x.buffer), want.x);
              assert.deepEqual(new Uint8Array(y.buffer), want.y);
            } finally {
              store.close();
            }
          },
        );
      }
    }
    await t.step("--no-intercept, and only for .rows", async () => {
      const out = `${dir}/b.rows`;
      const r = await _run(["convert", pq, out, "--response", "y", "--no-intercept"]);
      assert.equal(r.code, 0, r.err);
      const store = openRowStore(out);
      assert.deepEqual(store.header.columnNames, ["x0", "x1", "x2", "x3", "x4"]);
      store.close();
      const bad = await _run(["convert", pq, `${dir}/b.csv`, "--response", "y", "--no-intercept"]);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--no-intercept applies to \.rows output only/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A table of FLOAT, DOUBLE, INT32 and INT64 columns (a duplicate and a
 * constant column among them, so that the warnings have something to say),
 * as Parquet with several row groups and pages, and as CSV with each value's
 * shortest round-trip text.
 */
function _mixedTable(n: number, seed: number) {
  const rng = new Rng(seed);
  const f = new Float32Array(n), g = new Float64Array(n), dup = new Float64Array(n);
  const i32 = new Int32Array(n), i64: bigint[] = [], c = new Float64Array(n).fill(2.5);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    f[i] = rng.normal() * 10 ** (rng.int(9) - 4);
    g[i] = rng.normal() * 10 ** (rng.int(7) - 3);
    dup[i] = g[i];
    i32[i] = rng.int(2001) - 1000;
    i64.push(BigInt(rng.int(100_001)) - 50_000n);
    y[i] = rng.int(2);
  }
  const names = ["f", "g", "y", "i32", "i64", "dup", "c"];
  const cols: ArrayLike<number | bigint>[] = [f, g, y, i32, i64, dup, c];
  const lines = [names.join(",")];
  for (let i = 0; i < n; i++) lines.push(cols.map((col) => String(col[i])).join(","));
  const columnData = [
    { name: "f", data: f, type: "FLOAT" },
    { name: "g", data: g, type: "DOUBLE" },
    { name: "y", data: y, type: "DOUBLE" },
    { name: "i32", data: i32, type: "INT32" },
    { name: "i64", data: i64, type: "INT64" },
    { name: "dup", data: dup, type: "DOUBLE" },
    { name: "c", data: c, type: "DOUBLE" },
  ];
  return { csv: lines.join("\n") + "\n", columnData };
}

Deno.test("loadParquet() and parquetRowChunks() over row groups, pages and codecs equal the CSV load bit for bit", async (t) => {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const { gzipSync } = await import("node:zlib");
  const { compressors } = await import("hyparquet-compressors");
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_parquet_test_" });
  try {
    const n = 5_003;
    const { csv, columnData } = _mixedTable(n, 11);
    await Deno.writeTextFile(`${dir}/t.csv`, csv);
    for (const codec of ["UNCOMPRESSED", "SNAPPY", "GZIP"] as const) {
      const bytes = new Uint8Array(parquetWriteBuffer({
        // deno-lint-ignore no-explicit-any
        columnData: columnData as any,
        codec,
        compressors: { GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)) },
        rowGroupSize: 1_700,
        pageSize: 4_096,
      }));
      for (const storage of ["f64", "f32"] as const) {
        for (const intercept of [true, false]) {
          await t.step(`${codec}, ${storage}, intercept ${intercept}`, async () => {
            const arena = loadCore({ backend: "reference" });
            const options = { response: "y", family: "logistic", storage, intercept } as const;
            const want = await loadCsvToArena(arena, `${dir}/t.csv`, options);
            const got = await loadParquet(arena, bytes, { ...options, compressors });
            assert.deepEqual(got.columnNames, want.columnNames);
            assert.deepEqual(_bytes(got), _bytes(want));
            // Warnings: the same text bar the file named in front.
            const strip = (w: readonly string[] = []) => w.map((s) => s.replace(/^[^:]*: /, ""));
            assert.ok(strip(want.warnings).length >= 1, String(want.warnings));
            assert.deepEqual(strip(got.warnings), strip(want.warnings));
            // The core's kernel (an arena of a WebAssembly build) writes the same X.
            for (const shared of [false, true]) {
              const wasm = loadCore({ backend: "simd", shared });
              const k = await loadParquet(wasm, bytes, { ...options, compressors });
              assert.deepEqual(_bytes(k), _bytes(want));
              assert.deepEqual(k.warnings, got.warnings);
            }
            // The chunks: the same rows, one chunk per row group.
            const rows = await openParquetRows(bytes, { ...options, compressors });
            const x = new Uint8Array(n * got.numCols * bytesPerCell(storage));
            const y = new Uint8Array(n * 8);
            let at = 0;
            for await (const c of rows) {
              x.set(
                new Uint8Array(c.x.buffer, c.x.byteOffset, c.x.byteLength),
                at * c.x.BYTES_PER_ELEMENT * got.numCols,
              );
              y.set(new Uint8Array(c.y.buffer, c.y.byteOffset, c.y.byteLength), at * 8);
              at += c.numRows;
            }
            assert.deepEqual(rows.rowGroupRows, [1_700, 1_700, 1_603]);
            assert.deepEqual({ x, y }, _bytes(want));
            assert.deepEqual(rows.warnings, got.warnings);
          });
        }
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadParquet(): the first bad cell in column order names its row, in any row group", async () => {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const file = (a: (number | null)[], b: (number | null)[]) =>
    new Uint8Array(parquetWriteBuffer({
      columnData: [
        { name: "y", data: new Float64Array(a.length).fill(1), type: "DOUBLE" },
        { name: "a", data: a, type: "DOUBLE" },
        { name: "b", data: b, type: "DOUBLE" },
      ],
      rowGroupSize: 4,
    }));
  for (const backend of ["reference", "simd"] as const) {
    await _firstBadCell(loadCore({ backend }), file);
  }
});

/** The first-bad-cell cases, in an arena of the TypeScript kernels or of a WebAssembly build. */
async function _firstBadCell(
  arena: ReturnType<typeof loadCore>,
  file: (a: (number | null)[], b: (number | null)[]) => Uint8Array,
): Promise<void> {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const ok = [0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const at = (v: number | null, i: number) => ok.map((x, j) => j === i ? v : x);
  const options = { response: "y", family: "logistic" } as const;
  // Column a's NaN (row 7) is found before column b's null (row 6) in the same row group.
  await assert.rejects(
    loadParquet(arena, file(at(NaN, 6), at(null, 5)), options),
    /Parquet bytes: row 7, column "a": NaN and ±Infinity are not allowed, got NaN/,
  );
  await assert.rejects(
    loadParquet(arena, file(ok, at(null, 5)), options),
    /Parquet bytes: row 6, column "b": the cell is null/,
  );
  // A value f32 cannot hold before an overflow further down the same column.
  await assert.rejects(
    loadParquet(arena, file(at(1e-40, 8), at(1e300, 9)), { ...options, storage: "f32" }),
    /Parquet bytes: row 9, column "a": 1e-40 /,
  );
  await assert.rejects(
    loadParquet(arena, file(ok, at(1e300, 9)), options),
    /Parquet bytes: row 10, column "b": 1e\+300 is beyond ±1e\+100/,
  );
  await assert.rejects(
    loadParquet(arena, file(ok, at(-Infinity, 9)), { ...options, storage: "f32" }),
    /Parquet bytes: row 10, column "b": NaN and ±Infinity are not allowed, got -Infinity/,
  );
  // Required (typed) columns: column a's bad cell, although b's comes first in row order.
  const typed = (a: number[], b: number[]) =>
    new Uint8Array(parquetWriteBuffer({
      columnData: [
        { name: "y", data: new Float64Array(a.length).fill(1), type: "DOUBLE", nullable: false },
        { name: "a", data: new Float32Array(a), type: "FLOAT", nullable: false },
        { name: "b", data: new Float64Array(b), type: "DOUBLE", nullable: false },
      ],
      rowGroupSize: 4,
    }));
  const cells = await openParquetRows(typed(ok, ok), options);
  for await (const c of cells) assert.equal(c.numRows > 0, true);
  await assert.rejects(
    loadParquet(arena, typed(at(1e-40, 9) as number[], at(NaN, 8) as number[]), {
      ...options,
      storage: "f32",
    }),
    /Parquet bytes: row 10, column "a": 9\.99994610111476e-41 /,
  );
  await assert.rejects(
    loadParquet(arena, typed(at(-Infinity, 9) as number[], at(1e200, 8) as number[]), options),
    /Parquet bytes: row 10, column "a": NaN and ±Infinity are not allowed, got -Infinity/,
  );
  await assert.rejects(
    loadParquet(arena, typed(ok, at(1e200, 8) as number[]), options),
    /Parquet bytes: row 9, column "b": 1e\+200 is beyond/,
  );
}

Deno.test("parquetColumns keeps the footer for the next read of the same file only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/a.parquet`;
    const write = (y: number[], a: number[]) =>
      writeParquet(path, [{ numRows: y.length, x: new Float64Array(a), y: new Float64Array(y) }], {
        columnNames: ["a"],
        responseName: "y",
        storage: "f64",
      });
    const load = () =>
      loadParquet(loadCore(), path, { response: "y", family: "gaussian", intercept: false });
    await write([1, 2, 3], [0.5, 1.5, 2.5]);
    assert.deepEqual((await parquetColumns(path)).map((c) => c.name), ["y", "a"]);
    const kept = await load();
    assert.deepEqual(Array.from(kept.arena.readF64(kept.y, 3)), [1, 2, 3]);
    // The file changes between the two: the footer is read again.
    await parquetColumns(path);
    await write([4, 5, 6, 7], [1, 2, 3, 4]);
    const changed = await load();
    assert.equal(changed.numRows, 4);
    assert.deepEqual(Array.from(changed.arena.readF64(changed.x, 4)), [1, 2, 3, 4]);
    // Same size, other values, the modification time set back: another inode.
    await parquetColumns(path);
    const before = (await Deno.stat(path)).mtime!;
    await write([8, 9, 10, 11], [5, 6, 7, 8]);
    await Deno.utime(path, before, before);
    const same = await load();
    assert.deepEqual(Array.from(same.arena.readF64(same.x, 4)), [5, 6, 7, 8]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openParquetRows with an arena: the core's decoder and transposer give the general path's chunks, warnings and errors", async (t) => {
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_parquet_arena_" });
  const arena = loadCore();
  /** Every chunk (and the warnings, or the error) of a read, with or without the arena. */
  const readAll = async (
    path: string,
    options: Parameters<typeof openParquetRows>[1],
    a?: typeof arena,
  ) => {
    const rows = await openParquetRows(path, options, a);
    const chunks: { x: number[]; y: number[]; aux?: number[]; f32: boolean }[] = [];
    try {
      for await (const c of rows) {
        chunks.push({
          x: Array.from(c.x),
          y: Array.from(c.y),
          ...(c.aux ? { aux: Array.from(c.aux) } : {}),
          f32: c.x instanceof Float32Array,
        });
      }
    } catch (e) {
      return { error: (e as Error).message };
    }
    return { chunks, warnings: rows.warnings };
  };
  try {
    const n = 1003, d = 4, rng = new Rng(31);
    const x = new Float64Array(n * d), y = new Float64Array(n), aux = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) x[i * d + j] = rng.normal() * 10 ** (j - 1);
      y[i] = rng.int(2);
      aux[i] = rng.uniform();
    }
    const path = `${dir}/t.parquet`;
    await writeParquet(path, [{ numRows: n, x, y }], {
      columnNames: ["a", "b", "c", "e"],
      responseName: "y",
      storage: "f64",
      rowGroupSize: 250,
    });
    for (const storage of ["f64", "f32"] as const) {
      for (const intercept of [true, false]) {
        await t.step(`${storage}, intercept ${intercept}`, async () => {
          const options = { response: "y", family: "logistic" as const, storage, intercept };
          const general = await readAll(path, options);
          // The arena, with its allocations counted: the page decoder allocates
          // its raw and column buffers there (alloc), the fast path X's (allocF32/F64).
          let allocs = 0, xBuffers = 0;
          const counted = new Proxy(arena, {
            get(target, key) {
              if (key === "alloc") allocs++;
              if (key === "allocF32" || key === "allocF64") xBuffers++;
              const v = Reflect.get(target, key, target);
              return typeof v === "function" ? v.bind(target) : v;
            },
          });
          const fast = await readAll(path, options, counted);
          assert.equal(general.chunks?.length, 5, general.error);
          assert.deepEqual(fast, general);
          assert.ok(allocs > 0 && xBuffers > 0, "the row groups were read by the core's decoder");
        });
      }
    }
    await t.step("a bad cell: the same error, naming it", async () => {
      const bad = Float64Array.from(y);
      bad[777] = 2;
      const p = `${dir}/bad.parquet`;
      await writeParquet(p, [{ numRows: n, x, y: bad }], {
        columnNames: ["a", "b", "c", "e"],
        responseName: "y",
        storage: "f64",
        rowGroupSize: 250,
      });
      const options = { response: "y", family: "logistic" as const, storage: "f32" as const };
      const general = await readAll(p, options);
      assert.match(general.error ?? "", /row 778.*must be 0 or 1, got 2/);
      assert.deepEqual(await readAll(p, options, arena), general);
    });
    await t.step("an aux column: the general path, the same chunks", async () => {
      const p = `${dir}/aux.parquet`;
      await writeParquet(p, [{ numRows: n, x, y, aux }], {
        columnNames: ["a", "b", "c", "e"],
        responseName: "y",
        auxName: "off",
        storage: "f64",
        rowGroupSize: 250,
      });
      const options = { response: "y", family: "gaussian" as const, aux: "off" };
      assert.deepEqual(await readAll(p, options, arena), await readAll(p, options));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
