/**
 * Tables too large for one WebAssembly memory: the loaders refuse them before
 * allocating, naming the file, the rows, the columns and the bytes, and the
 * command line says what to do instead.
 */
import assert from "node:assert/strict";
import { attachCore, loadCore } from "../../core/load.ts";
import {
  checkRowsFit,
  DataTooLargeError,
  glmDataFromArrays,
  loadCsvToArena,
  loadParquet,
  writeParquet,
} from "../../data/mod.ts";
import { dataTooLargeHint } from "../../cli/model_options.ts";

const GIB4 = 2 ** 32;

Deno.test("checkRowsFit(): X and y against what the arena has left, with the sizes in the message", () => {
  const empty = { capacity: GIB4, bytesInUse: 0 };
  // 10⁷ × 30 as f32 is 1.2 GB + 0.08 GB of y: fits; as f64 2.4 GB + 0.08: fits.
  checkRowsFit(empty, { numRows: 1e7, numCols: 30, storage: "f32" }, "x.csv: ");
  checkRowsFit(empty, { numRows: 1e7, numCols: 30, storage: "f64" }, "x.csv: ");
  // 10⁸ × 30 as f32: 12 GB + 0.8 GB.
  assert.throws(
    () => checkRowsFit(empty, { numRows: 1e8, numCols: 30, storage: "f32" }, "big.parquet: "),
    (err: unknown) => {
      assert.ok(err instanceof DataTooLargeError && err instanceof RangeError);
      assert.equal(
        err.message,
        "big.parquet: 100000000 rows × 30 columns need 12.8 GB in memory (X as f32 12.0 GB, y 800.0 MB), more than the 4.29 GB left of the 4 GiB one WebAssembly memory holds",
      );
      assert.equal(err.bytes, 1e8 * (30 * 4 + 8));
      assert.equal(err.available, GIB4);
      return true;
    },
  );
  // What is in use counts; an upper bound says "up to"; f64 gives the f32 size.
  const used = { capacity: GIB4, bytesInUse: GIB4 - 1000 };
  assert.throws(
    () =>
      checkRowsFit(used, { numRows: 100, numCols: 2, storage: "f64", approximate: true }, "a: "),
    (err: unknown) => {
      assert.ok(err instanceof DataTooLargeError);
      assert.equal(
        err.message,
        "a: up to 100 rows × 2 columns need 0.0 MB in memory (X as f64 0.0 MB, y 0.0 MB), more than the 0.0 MB left of the 4 GiB one WebAssembly memory holds (X as f32: 0.0 MB)",
      );
      assert.equal(err.available, 1000);
      assert.ok(err.approximate);
      return true;
    },
  );
  checkRowsFit(used, { numRows: 40, numCols: 2, storage: "f64" }, "a: "); // 960 bytes ≤ 1000
  // An attached arena whose region can be extended is bounded by the 4 GiB only.
  const region = { capacity: 1000, bytesInUse: 0 };
  assert.throws(
    () => checkRowsFit(region, { numRows: 100, numCols: 2, storage: "f64" }, "a: "),
    DataTooLargeError,
  );
  checkRowsFit(
    { ...region, extendable: true },
    { numRows: 100, numCols: 2, storage: "f64" },
    "a: ",
  );
  assert.throws(
    () => checkRowsFit(used, { numRows: 42, numCols: 2, storage: "f64" }, "a: "),
    DataTooLargeError,
  );
});

Deno.test("loadParquet() and loadCsvToArena(): a table larger than the arena is refused before any allocation", async () => {
  const owner = loadCore({ shared: true });
  const start = owner.alloc(1 << 20);
  // A 1 MiB region: 50,000 rows × 2 columns + y as f64 need 1.2 MB (as f32, 0.8 MB
  // with the reader's buffers beside them in the region).
  const small = attachCore(owner.memory, { region: { start, end: start + (1 << 20) } });
  const n = 50_000;
  const x = new Float64Array(2 * n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[2 * i] = 1;
    x[2 * i + 1] = (i % 7) - 3;
    y[i] = i % 2;
  }
  const pq = await Deno.makeTempFile({ dir: "/tmp", suffix: ".parquet" });
  const csv = await Deno.makeTempFile({ dir: "/tmp", suffix: ".csv" });
  try {
    await writeParquet(pq, [{ numRows: n, x, y }], {
      columnNames: ["(Intercept)", "a"],
      responseName: "y",
      storage: "f64",
    });
    const opts = { response: "y", family: "logistic" as const }; // the intercept added: 2 columns
    const before = small.bytesInUse;
    await assert.rejects(
      loadParquet(small, pq, { ...opts, storage: "f64" }),
      (err: unknown) => {
        assert.ok(err instanceof DataTooLargeError, String(err));
        assert.match(
          err.message,
          new RegExp(`^${pq}: 50000 rows × 2 columns need 1\\.2 MB in memory \\(X as f64 0\\.8 MB`),
        );
        assert.equal(err.bytes, n * (2 * 8 + 8));
        return true;
      },
    );
    assert.equal(small.bytesInUse, before, "nothing left allocated");
    // The same rows as CSV (with the intercept added: 2 columns).
    let text = "y,a\n";
    for (let i = 0; i < n; i++) text += `${y[i]},${x[2 * i + 1]}\n`;
    await Deno.writeTextFile(csv, text);
    await assert.rejects(
      loadCsvToArena(small, csv, { response: "y", family: "logistic", storage: "f64" }),
      (err: unknown) => {
        assert.ok(err instanceof DataTooLargeError, String(err));
        // The line breaks bound the records (the header's included).
        assert.match(err.message, new RegExp(`^${csv}: up to 50002 rows × 2 columns need`));
        return true;
      },
    );
    assert.equal(small.bytesInUse, before, "nothing left allocated");
    // Rows given as arrays (the formula readers' way) are checked the same way.
    assert.throws(
      () => glmDataFromArrays(small, x, y, { numCols: 2 }),
      (err: unknown) => {
        assert.ok(err instanceof DataTooLargeError, String(err));
        assert.match(err.message, /^50000 rows × 2 columns need 1\.2 MB in memory/);
        return true;
      },
    );
    assert.equal(small.bytesInUse, before, "nothing left allocated");
    // The same files load into an arena that has room.
    const big = loadCore({ shared: true });
    assert.equal((await loadParquet(big, pq, { ...opts, storage: "f64" })).numRows, n);
    assert.equal(
      (await loadCsvToArena(big, csv, { response: "y", family: "logistic", storage: "f32" }))
        .numRows,
      n,
    );
  } finally {
    await Deno.remove(pq);
    await Deno.remove(csv);
  }
});

Deno.test("dataTooLargeHint(): --f32 when it would fit, the row store and database routes always, nothing for other errors", () => {
  const e = (storage: "f32" | "f64", numRows: number, available: number) =>
    new DataTooLargeError("d.csv: ", {
      numRows,
      numCols: 30,
      storage,
      bytes: numRows * (30 * (storage === "f64" ? 8 : 4) + 8),
      available,
      approximate: false,
    });
  // 2·10⁷ rows: 4.96 GB as f64, 2.56 GB as f32.
  const f64 = dataTooLargeHint(e("f64", 2e7, GIB4), false);
  assert.match(f64, /^; --f32 stores X in half the memory and fits; /);
  assert.match(f64, /--data duckdb:FILE\.duckdb\?table=T&key=COL/);
  assert.match(f64, /tallmc convert FILE OUT\.rows --response COL --storage f32, then sample it/);
  assert.doesNotMatch(dataTooLargeHint(e("f64", 1e8, GIB4), false), /--f32/);
  assert.doesNotMatch(dataTooLargeHint(e("f32", 1e8, GIB4), true), /--f32/);
  assert.equal(dataTooLargeHint(new RangeError("other"), false), "");
});
