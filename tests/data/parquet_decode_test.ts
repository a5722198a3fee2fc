/**
 * Tests of the arena page decoder (data/parquet_decode.ts): on files of every
 * kind it takes (FLOAT, DOUBLE and INT32 columns; REQUIRED and OPTIONAL;
 * uncompressed and snappy; PLAIN and dictionary pages; data pages v1 and v2;
 * one and many pages a chunk) its arrays equal hyparquet's bit for bit, and
 * on what it does not take (a null, another codec or type, damaged bytes) it
 * steps aside, so loadParquet gives the same data or the same error as the
 * general decoder.
 *
 * Needs `--allow-read --allow-write=/tmp` (and `--allow-ffi` for the v1
 * pages DuckDB writes; that step is skipped without it).
 */
import assert from "node:assert/strict";
import { type ColumnSource, parquetWriteBuffer } from "npm:hyparquet-writer@0.17.0";
import { loadCore } from "../../core/load.ts";
import type { Arena } from "../../core/arena.ts";
import { bytesPerCell, type GlmData, loadParquet, type ParquetOptions } from "../../data/mod.ts";
import {
  ParquetArenaDecoder,
  ParquetDecodeThread,
  parquetThreadSizes,
  prefaultRows,
} from "../../data/parquet_decode.ts";
import { openParquetSource, readParquetRowGroup } from "../../data/parquet_source.ts";
import { Rng } from "../../random/rng.ts";

/** Columns of n rows: y (0/1), f FLOAT, d DOUBLE, i INT32, k a FLOAT with 40 levels. */
function _columns(
  n: number,
  seed: number,
): Record<string, Float32Array | Float64Array | Int32Array> {
  const rng = new Rng(seed);
  const y = new Float64Array(n), d = new Float64Array(n), f = new Float32Array(n);
  const i32 = new Int32Array(n), k = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = rng.int(2);
    d[i] = rng.normal() * 10 ** (rng.int(9) - 4);
    f[i] = rng.normal() * 10 ** (rng.int(5) - 2);
    i32[i] = rng.int(2001) - 1000;
    k[i] = (rng.int(40) - 20) / 8;
  }
  f[0] = -0;
  d[1] = -0;
  return { y, f, d, i: i32, k };
}

/** A file of those columns written by hyparquet-writer (data pages v2). */
function _file(
  n: number,
  o: {
    codec?: "SNAPPY" | "UNCOMPRESSED";
    encoding?: "PLAIN" | "RLE_DICTIONARY";
    nullable?: boolean;
    pageSize?: number;
    rowGroupSize?: number | number[];
    seed?: number;
  } = {},
): Uint8Array {
  const cols = _columns(n, o.seed ?? 1);
  const columnData: ColumnSource[] = Object.entries(cols).map(([name, data]) => {
    const type = data instanceof Float32Array
      ? "FLOAT"
      : data instanceof Float64Array
      ? "DOUBLE"
      : "INT32";
    return {
      name,
      data: o.nullable ? Array.from(data) : data,
      type,
      nullable: o.nullable ?? false,
      ...(o.encoding === undefined ? {} : { encoding: o.encoding }),
    };
  });
  return new Uint8Array(parquetWriteBuffer({
    columnData,
    codec: o.codec ?? "SNAPPY",
    pageSize: o.pageSize,
    rowGroupSize: o.rowGroupSize ?? 1_000,
  }));
}

/**
 * Every row group of `bytes` through the arena decoder and through hyparquet:
 * the same numbers, bit for bit. Returns how many groups the decoder took.
 */
async function _compare(bytes: Uint8Array, columns: string[], arena: Arena): Promise<number> {
  const o = await openParquetSource(bytes);
  const dec = ParquetArenaDecoder.create(arena, o, columns);
  assert.ok(dec !== null, "a WebAssembly arena has the page decoder");
  let start = 0, taken = 0;
  const groups = o.metadata.row_groups;
  try {
    for (let g = 0; g < groups.length; g++) {
      const n = Number(groups[g].num_rows);
      const a: Map<string, ArrayLike<unknown>> | null = await dec.read(
        g,
        g + 1 < groups.length ? g + 1 : undefined,
      );
      const b = await readParquetRowGroup(o, g, start, columns, undefined);
      if (a !== null) {
        taken++;
        for (const name of columns) {
          const u: ArrayLike<unknown> = a.get(name)!, v: ArrayLike<unknown> = b.get(name)!;
          assert.equal(u.length, n);
          assert.equal(v.length, n);
          for (let i = 0; i < n; i++) {
            if (!Object.is(u[i], v[i])) {
              assert.fail(`group ${g}, column ${name}, row ${i}: ${u[i]} ≠ ${v[i]}`);
            }
          }
        }
      }
      start += n;
    }
  } finally {
    dec.dispose();
    o.close();
  }
  return taken;
}

const _ALL = ["y", "f", "d", "i", "k"];

/**
 * 2000 rows of y and an OPTIONAL DOUBLE column "a" whose row 1778 (index
 * 1777) is null, in row groups of 1000.
 */
function _fileWithNull(): Uint8Array {
  const c = _columns(2_000, 4);
  const a: (number | null)[] = Array.from(c.d);
  a[1_777] = null;
  return new Uint8Array(parquetWriteBuffer({
    columnData: [
      { name: "y", data: c.y },
      { name: "a", data: a, type: "DOUBLE", nullable: true },
    ],
    rowGroupSize: 1_000,
  }));
}

Deno.test("the arena decoder gives hyparquet's numbers bit for bit on every kind of page it takes", async (t) => {
  const cases: [string, Uint8Array][] = [
    ["snappy, encodings chosen by the writer", _file(3_000)],
    ["uncompressed", _file(3_000, { codec: "UNCOMPRESSED" })],
    ["PLAIN pages", _file(3_000, { encoding: "PLAIN" })],
    ["dictionary pages", _file(3_000, { encoding: "RLE_DICTIONARY" })],
    [
      "uncompressed dictionary pages",
      _file(2_000, { codec: "UNCOMPRESSED", encoding: "RLE_DICTIONARY" }),
    ],
    ["OPTIONAL columns without nulls", _file(3_000, { nullable: true })],
    ["OPTIONAL, dictionary", _file(2_000, { nullable: true, encoding: "RLE_DICTIONARY" })],
    ["many small pages a chunk", _file(3_000, { pageSize: 1_000 })],
    ["many pages, dictionary", _file(3_000, { pageSize: 700, encoding: "RLE_DICTIONARY" })],
    ["uneven row groups", _file(2_500, { rowGroupSize: [1, 999, 1_234, 266] })],
  ];
  for (const shared of [false, true]) {
    const arena = loadCore({ shared });
    for (const [name, bytes] of cases) {
      await t.step(`${name}${shared ? ", shared memory" : ""}`, async () => {
        const groups = (await openParquetSource(bytes)).metadata.row_groups.length;
        assert.equal(await _compare(bytes, _ALL, arena), groups);
        // A subset of the columns, in another order.
        assert.equal(await _compare(bytes, ["k", "y"], arena), groups);
      });
    }
  }
});

Deno.test("the arena decoder reads DuckDB's files (data pages v1, OPTIONAL columns)", async (t) => {
  let duckdb: typeof import("npm:@duckdb/node-api@1.5.5-r.5");
  try {
    duckdb = await import("npm:@duckdb/node-api@1.5.5-r.5");
  } catch (e) {
    console.warn(`DuckDB not available, v1 pages not tested: ${(e as Error).message}`);
    return;
  }
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_pqdecode_" });
  const db = await (await duckdb.DuckDBInstance.create(":memory:")).connect();
  try {
    const arena = loadCore();
    const make = `SELECT (i % 2)::DOUBLE AS y, (sin(i) * 1e3)::FLOAT AS f, cos(i * 0.7) AS d,
      (i % 1000 - 500)::INTEGER AS i, ((i % 37) / 4.0)::FLOAT AS k FROM range(20000) t(i)`;
    for (
      const [name, opts] of [
        ["snappy", "COMPRESSION snappy"],
        ["uncompressed", "COMPRESSION uncompressed"],
        ["small row groups", "COMPRESSION snappy, ROW_GROUP_SIZE 3000"],
      ] as const
    ) {
      await t.step(name, async () => {
        const path = `${dir}/${name.replaceAll(" ", "_")}.parquet`;
        await db.run(`COPY (${make}) TO '${path}' (FORMAT parquet, ${opts})`);
        const bytes = await Deno.readFile(path);
        const groups = (await openParquetSource(bytes)).metadata.row_groups.length;
        assert.equal(await _compare(bytes, _ALL, arena), groups);
      });
    }
    await t.step("a null: the decoder steps aside, the error is the general one", async () => {
      const path = `${dir}/nulls.parquet`;
      await db.run(
        `COPY (SELECT (i % 2)::DOUBLE AS y, CASE WHEN i = 1234 THEN NULL ELSE i * 0.5 END AS a
        FROM range(5000) t(i)) TO '${path}' (FORMAT parquet)`,
      );
      const bytes = await Deno.readFile(path);
      assert.equal(await _compare(bytes, ["y"], arena), 1);
      assert.equal(await _compare(bytes, ["y", "a"], arena), 0);
      await _sameOutcome(path, { response: "y", family: "logistic" });
    });
  } finally {
    db.closeSync();
    await Deno.remove(dir, { recursive: true });
  }
});

/** X and y as bytes. */
function _bytes(data: GlmData): Uint8Array[] {
  const w = bytesPerCell(data.storage), mem = new Uint8Array(data.arena.memory.buffer);
  return [
    mem.slice(data.x, data.x + data.numRows * data.numCols * w),
    mem.slice(data.y, data.y + data.numRows * 8),
  ];
}

/**
 * loadParquet through the decoder (a WebAssembly arena) and through hyparquet
 * alone (the TypeScript arena): the same data and warnings, or the same error.
 */
async function _sameOutcome(
  source: string | URL | Uint8Array,
  options: ParquetOptions,
): Promise<string> {
  const run = async (arena: Arena) => {
    try {
      const d = await loadParquet(arena, source, options);
      return { data: _bytes(d), warnings: d.warnings };
    } catch (e) {
      return { error: `${(e as Error).name}: ${(e as Error).message}` };
    }
  };
  const a = await run(loadCore({ shared: true }));
  const b = await run(loadCore({ backend: "reference" }));
  assert.deepEqual(a, b);
  return "error" in a ? a.error! : "ok";
}

Deno.test("loadParquet with the arena decoder: the same data, warnings and errors as without", async (t) => {
  await t.step("values, storage and columns", async () => {
    const bytes = _file(2_500, { rowGroupSize: 1_000, pageSize: 3_000 });
    for (const storage of ["f64", "f32"] as const) {
      assert.equal(
        await _sameOutcome(bytes, { response: "y", family: "logistic", storage }),
        "ok",
      );
      assert.equal(
        await _sameOutcome(bytes, {
          response: "d",
          family: "gaussian",
          storage,
          columns: ["k", "i"],
          intercept: false,
        }),
        "ok",
      );
    }
  });
  await t.step("bad cells name the same file, column and row", async () => {
    const n = 3_000;
    const cols = _columns(n, 3);
    const write = (edit: (c: typeof cols) => void, extra: Partial<ColumnSource> = {}) => {
      const c = _columns(n, 3);
      edit(c);
      return new Uint8Array(parquetWriteBuffer({
        columnData: Object.entries(c).map(([name, data]) => ({ name, data, ...extra })),
        rowGroupSize: 1_000,
      }));
    };
    assert.ok(cols.f.length === n);
    const errors = [
      await _sameOutcome(write((c) => c.f[2_345] = NaN), { response: "y", family: "logistic" }),
      await _sameOutcome(write((c) => c.d[1_500] = 1e200), { response: "y", family: "logistic" }),
      await _sameOutcome(write((c) => c.y[2_999] = 2), { response: "y", family: "logistic" }),
      await _sameOutcome(write((c) => c.d[7] = 1e-300), {
        response: "y",
        family: "logistic",
        storage: "f32",
      }),
      await _sameOutcome(write((c) => c.f[10] = Infinity, { encoding: "PLAIN" }), {
        response: "y",
        family: "logistic",
      }),
    ];
    assert.match(errors[0], /row 2346, column "f": NaN and ±Infinity are not allowed/);
    assert.match(errors[1], /row 1501, column "d": 1e\+200 is beyond/);
    assert.match(errors[2], /row 3000, column "y": a logistic response must be 0 or 1, got 2/);
    assert.match(errors[3], /row 8, column "d": 1e-300/);
    assert.match(errors[4], /row 11, column "f": NaN and ±Infinity/);
  });
  await t.step("nulls in an OPTIONAL column", async () => {
    assert.match(
      await _sameOutcome(_fileWithNull(), { response: "y", family: "logistic" }),
      /row 1778, column "a": the cell is null/,
    );
  });
  await t.step("damaged bytes: the same data or the same error, byte by byte", async () => {
    const good = _file(1_200, { rowGroupSize: 400, pageSize: 2_000 });
    const metaLen = new DataView(good.buffer).getUint32(good.length - 8, true);
    const pagesEnd = good.length - 8 - metaLen;
    const rng = new Rng(7);
    const outcomes = new Set<string>();
    for (let trial = 0; trial < 60; trial++) {
      const b = good.slice();
      const at = 4 + rng.int(pagesEnd - 4);
      b[at] = trial % 3 === 0 ? 0xff : trial % 3 === 1 ? 0 : b[at] ^ (1 << rng.int(8));
      outcomes.add(await _sameOutcome(b, { response: "y", family: "gaussian" }));
    }
    // Both kinds of outcome happened.
    assert.ok(outcomes.has("ok") && outcomes.size > 1, [...outcomes].join("\n"));
  });
});

Deno.test("decompressors given as a loader: loaded only for a row group hyparquet decodes", async () => {
  let calls = 0;
  const compressors = () => {
    calls++;
    return Promise.resolve({});
  };
  // Every group read by the core's page decoder: never loaded, the same data.
  const bytes = _file(2_500, { rowGroupSize: 1_000, pageSize: 3_000 });
  const options = { response: "y", family: "logistic" } as const;
  const a = await loadParquet(loadCore({ shared: true }), bytes, { ...options, compressors });
  const b = await loadParquet(loadCore({ backend: "reference" }), bytes, options);
  assert.deepEqual(_bytes(a), _bytes(b));
  assert.equal(calls, 0);
  // A null: its group is read again by hyparquet, after the loader.
  const withNull = _fileWithNull();
  await assert.rejects(
    loadParquet(loadCore({ shared: true }), withNull, { ...options, compressors }),
    /row 1778, column "a": the cell is null/,
  );
  assert.ok(calls >= 1, `${calls} calls`);
  // Without the core's page decoder, hyparquet reads every group.
  calls = 0;
  await loadParquet(loadCore({ backend: "reference" }), bytes, { ...options, compressors });
  assert.equal(calls, 3);
});

Deno.test("prefaultRows() touches every page in another thread and changes no value", async () => {
  const arena = loadCore({ shared: true });
  const bytes = 8 << 20, p = arena.alloc(bytes, 16, false);
  const cells = arena.i32(p, bytes / 4);
  // Values already written (as the reader writes them meanwhile) stay.
  for (let i = 0; i < cells.length; i += 997) cells[i] = i + 1;
  const r = prefaultRows(arena, [[p, p + bytes]], 0);
  assert.equal(await r.done, true);
  for (let i = 0; i < cells.length; i++) {
    if (cells[i] !== (i % 997 === 0 ? i + 1 : 0)) assert.fail(`cell ${i} changed: ${cells[i]}`);
  }
  // Not shared, or too small: nothing starts.
  assert.equal(await prefaultRows(loadCore(), [[p, p + bytes]], 0).done, false);
  assert.equal(await prefaultRows(arena, [[p, p + bytes]]).done, false);
});

Deno.test("loadParquet with the decoding thread: the same data, warnings and errors as without", async (t) => {
  const saved = { ...parquetThreadSizes };
  parquetThreadSizes.decodeMinBytes = 0;
  parquetThreadSizes.prefaultMinBytes = 0;
  // The thread takes every row group; count those it checked and transposed.
  parquetThreadSizes.callerTakes = false;
  const take = ParquetDecodeThread.prototype.take;
  let taken = 0;
  ParquetDecodeThread.prototype.take = function (i: number) {
    const r = take.call(this, i);
    if (r !== null) taken++;
    return r;
  };
  const dir = await Deno.makeTempDir({ dir: "/tmp", prefix: "tallmc_pqdecode_" });
  try {
    await t.step("values, in both storages and with uneven row groups", async () => {
      const path = `${dir}/a.parquet`;
      await Deno.writeFile(path, _file(5_000, { rowGroupSize: [700, 1_300, 1_000, 1, 1_999] }));
      taken = 0;
      for (const storage of ["f64", "f32"] as const) {
        assert.equal(
          await _sameOutcome(path, { response: "y", family: "logistic", storage }),
          "ok",
        );
      }
      // A file URL too.
      assert.equal(
        await _sameOutcome(new URL(`file://${path}`), { response: "y", family: "logistic" }),
        "ok",
      );
      assert.equal(taken, 15); // every group of the three loads
      // Both threads taking row groups as they go: the same outcome.
      parquetThreadSizes.callerTakes = true;
      try {
        assert.equal(
          await _sameOutcome(path, { response: "y", family: "logistic", storage: "f32" }),
          "ok",
        );
      } finally {
        parquetThreadSizes.callerTakes = false;
      }
    });
    await t.step("damaged files: the same data or the same error", async () => {
      const good = _file(1_500, { rowGroupSize: 300, pageSize: 2_000, seed: 9 });
      const metaLen = new DataView(good.buffer).getUint32(good.length - 8, true);
      const pagesEnd = good.length - 8 - metaLen;
      const rng = new Rng(11);
      const outcomes = new Set<string>();
      for (let trial = 0; trial < 18; trial++) {
        const b = good.slice();
        const at = 4 + rng.int(pagesEnd - 4);
        b[at] = trial % 3 === 0 ? 0xff : trial % 3 === 1 ? 0 : b[at] ^ (1 << rng.int(8));
        const path = `${dir}/damaged_${trial}.parquet`;
        await Deno.writeFile(path, b);
        const r = await _sameOutcome(path, { response: "y", family: "gaussian" });
        outcomes.add(r === "ok" ? r : r.replace(path, "FILE"));
      }
      assert.ok(outcomes.has("ok"), [...outcomes].join("\n"));
    });
    await t.step(
      "not a Parquet file, or no rows: the error, and no worker left running",
      async () => {
        // The decoding thread's worker starts before the footer is read; it must end with the load.
        const Original = globalThis.Worker;
        let started = 0, ended = 0;
        globalThis.Worker = class extends Original {
          constructor(url: string | URL, options?: WorkerOptions) {
            super(url, options);
            started++;
          }
          override terminate(): void {
            ended++;
            super.terminate();
          }
        };
        try {
          await _notParquetNoRows(dir);
        } finally {
          globalThis.Worker = Original;
        }
        assert.ok(started >= 3, `${started} workers started`);
        assert.equal(ended, started);
      },
    );
    await t.step("a bad response names the same row, in each family", async () => {
      const n = 4_000;
      const cases: [number, ParquetOptions["family"], RegExp | null][] = [
        [2, "logistic", /row 2712, column "y"/],
        [NaN, "logistic", /row 2712, column "y"/],
        [-0, "logistic", null],
        [1.5, "poisson", /row 2712, column "y"/],
        [-1, "poisson", /row 2712, column "y"/],
        [Infinity, "poisson", /row 2712, column "y"/],
        [7, "poisson", null],
        [-Infinity, "gaussian", /row 2712, column "y"/],
        [1e300, "gaussian", /row 2712, column "y"/],
        [-3.5, "gaussian", null],
      ];
      for (const [v, family, want] of cases) {
        const c = _columns(n, 5);
        c.y[2_711] = v;
        const path = `${dir}/y_${family}_${v}.parquet`;
        await Deno.writeFile(
          path,
          new Uint8Array(parquetWriteBuffer({
            columnData: Object.entries(c).map(([name, data]) => ({ name, data })),
            rowGroupSize: 1_000,
          })),
        );
        const r = await _sameOutcome(path, { response: "y", family });
        if (want === null) assert.equal(r, "ok", `${v}, ${family}`);
        else assert.match(r, want, `${v}, ${family}`);
      }
    });
    await t.step("a bad cell and a null name the same row", async () => {
      const n = 4_000, c = _columns(n, 5);
      c.f[3_210] = NaN;
      const bad = `${dir}/bad.parquet`;
      await Deno.writeFile(
        bad,
        new Uint8Array(parquetWriteBuffer({
          columnData: Object.entries(c).map(([name, data]) => ({ name, data })),
          rowGroupSize: 1_000,
        })),
      );
      assert.match(
        await _sameOutcome(bad, { response: "y", family: "logistic" }),
        /row 3211, column "f": NaN/,
      );
      const a: (number | null)[] = Array.from(c.d);
      a[2_500] = null;
      const nulls = `${dir}/nulls.parquet`;
      await Deno.writeFile(
        nulls,
        new Uint8Array(parquetWriteBuffer({
          columnData: [{ name: "y", data: c.y }, {
            name: "a",
            data: a,
            type: "DOUBLE",
            nullable: true,
          }],
          rowGroupSize: 1_000,
        })),
      );
      assert.match(
        await _sameOutcome(nulls, { response: "y", family: "logistic" }),
        /row 2501, column "a": the cell is null/,
      );
    });
  } finally {
    Object.assign(parquetThreadSizes, saved);
    ParquetDecodeThread.prototype.take = take;
    await Deno.remove(dir, { recursive: true });
  }
});

/** Loads that fail after the decoding thread's worker has started: a non-Parquet file, no rows. */
async function _notParquetNoRows(dir: string): Promise<void> {
  const path = `${dir}/not.parquet`;
  await Deno.writeFile(path, new Uint8Array(4096).fill(7));
  for (const arena of [loadCore({ shared: true }), loadCore({ shared: true })]) {
    await assert.rejects(
      loadParquet(arena, path, { response: "y", family: "logistic" }),
      /not a readable Parquet file/,
    );
  }
  const empty = `${dir}/empty.parquet`;
  await Deno.writeFile(
    empty,
    new Uint8Array(parquetWriteBuffer({
      columnData: [{ name: "y", data: new Float64Array(0) }, {
        name: "a",
        data: new Float64Array(0),
      }],
    })),
  );
  await assert.rejects(
    loadParquet(loadCore({ shared: true }), empty, { response: "y", family: "logistic" }),
    /no data rows/,
  );
}
