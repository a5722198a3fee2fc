import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { dataViews } from "../../core/row_buffer.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import {
  fingerprintFile,
  openRowStore,
  type RowChunk,
  writeRowStore,
  writeRowStoreFromGlmData,
} from "../../data/row_store.ts";
import { sha256Hex } from "../../data/_sha256.ts";

const meta = (d: number, storage: "f32" | "f64", auxName?: string) => ({
  numCols: d,
  storage,
  columnNames: Array.from({ length: d }, (_, j) => `c${j}`),
  responseName: "y",
  ...(auxName ? { auxName } : {}),
});

Deno.test("sha256Hex() agrees with Web Crypto", async () => {
  for (const len of [0, 3, 55, 56, 63, 64, 65, 1000, 100_003]) {
    const bytes = Uint8Array.from({ length: len }, (_, i) => (i * 131 + 7) & 255);
    const want = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    assert.equal(
      sha256Hex([bytes.subarray(0, len >> 1), bytes.subarray(len >> 1)]),
      want,
      `${len}`,
    );
  }
});

Deno.test("writeRowStore() / RowStore round trip", async (t) => {
  const arena = loadCore({ backend: "reference" });
  for (const storage of ["f32", "f64"] as const) {
    await t.step(`${storage}: readRange and readRows return the data exactly`, async () => {
      const { data } = higgsShaped(arena, { n: 40_007, seed: 3, storage });
      const n = data.numRows, d = data.numCols;
      const aux = Float64Array.from({ length: n }, (_, i) => i * 0.25 - 7);
      const path = await Deno.makeTempFile({ suffix: ".rows" });
      try {
        const h = await writeRowStoreFromGlmData(path, data, {
          aux,
          auxName: "offset",
          chunkRows: 999,
        });
        assert.equal(h.numRows, n);
        assert.equal(h.rowBytes, d * (storage === "f32" ? 4 : 8) + 16);
        assert.equal((await Deno.stat(path)).size, h.dataOffset + n * h.rowBytes);
        const store = openRowStore(path);
        assert.deepEqual(store.header, h);
        const v = dataViews(data);
        // Whole range: more bytes than the 4 MiB staging buffer, so read in pieces.
        const x = storage === "f32" ? new Float32Array(n * d) : new Float64Array(n * d);
        const y = new Float64Array(n), a = new Float64Array(n);
        store.readRange(0, n, x, y, a);
        assert.deepEqual(x, v.x);
        assert.deepEqual(y, v.y);
        assert.deepEqual(a, aux);
        // A middle range into f64 outputs (f32 widens exactly).
        const xs = new Float64Array(100 * d), ys = new Float64Array(100);
        store.readRange(5000, 100, xs, ys);
        for (let q = 0; q < 100 * d; q++) assert.equal(xs[q], v.x[5000 * d + q]);
        // Gathers: unsorted, repeated, adjacent and far apart, in the caller's order.
        const rows = new Int32Array([n - 1, 0, 17, 18, 17, 4000, 19, 0, 9000, 5, n - 1]);
        const xr = new Float64Array(rows.length * d), yr = new Float64Array(rows.length);
        const ar = new Float64Array(rows.length);
        store.readRows(rows, xr, yr, ar);
        rows.forEach((r, k) => {
          for (let j = 0; j < d; j++) assert.equal(xr[k * d + j], v.x[r * d + j], `row ${r}`);
          assert.equal(yr[k], v.y[r]);
          assert.equal(ar[k], aux[r]);
        });
        store.close();
        assert.throws(() => store.readRows(rows, xr, yr), /closed/);
      } finally {
        await Deno.remove(path);
      }
    });
  }
  await t.step("an async iterable of chunks, and zero rows", async () => {
    const path = await Deno.makeTempFile({ suffix: ".rows" });
    try {
      const chunks = async function* (): AsyncIterable<RowChunk> {
        yield { numRows: 1, x: new Float64Array([1, 2]), y: new Float64Array([3]) };
        yield { numRows: 0, x: new Float64Array(0), y: new Float64Array(0) };
        yield { numRows: 1, x: new Float64Array([4, 5]), y: new Float64Array([6]) };
      };
      const h = await writeRowStore(path, chunks(), meta(2, "f64"));
      assert.equal(h.numRows, 2);
      const store = openRowStore(path);
      const x = new Float64Array(4), y = new Float64Array(2);
      store.readRange(0, 2, x, y);
      assert.deepEqual([...x, ...y], [1, 2, 4, 5, 3, 6]);
      store.close();
      await writeRowStore(path, [], meta(2, "f64"));
      const empty = openRowStore(path);
      assert.equal(empty.header.numRows, 0);
      empty.close();
    } finally {
      await Deno.remove(path);
    }
  });
});

Deno.test("openRowStore() rejects damaged files and changed sources", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/s.rows`, src = `${dir}/src.csv`;
  try {
    await Deno.writeTextFile(src, "y,a,b\n1,2,3\n");
    const source = await fingerprintFile(src);
    const chunk = { numRows: 3, x: new Float64Array([1, 2, 3, 4, 5, 6]), y: new Float64Array(3) };
    const h = await writeRowStore(path, [chunk], { ...meta(2, "f64"), source });
    assert.deepEqual(h.source, source);
    await t.step("no .partial file is left", async () => {
      await assert.rejects(Deno.stat(path + ".partial"), Deno.errors.NotFound);
    });
    await t.step("truncated file → size mismatch naming the file", async () => {
      const bytes = await Deno.readFile(path);
      const cut = `${dir}/cut.rows`;
      await Deno.writeFile(cut, bytes.subarray(0, bytes.length - 5));
      assert.throws(
        () => openRowStore(cut),
        (e: Error) =>
          e.message.includes(cut) &&
          /file size \d+ bytes does not match the header/.test(e.message),
      );
      await Deno.writeFile(cut, new Uint8Array([...bytes, 0]));
      assert.throws(() => openRowStore(cut), /does not match the header/);
      await Deno.writeFile(cut, new TextEncoder().encode("y,a\n1,2\n3,4\n5,6\n"));
      assert.throws(() => openRowStore(cut), /not a row store: magic "y,a\\n1,2\\n"/);
    });
    await t.step("changed source → error naming both files", async () => {
      await Deno.writeTextFile(src, "y,a,b\n1,2,4\n"); // same size, new content
      assert.throws(
        () => openRowStore(path),
        (e: Error) =>
          e.message.includes(path) && e.message.includes(source.path) &&
          e.message.includes("content digest differs"),
      );
      openRowStore(path, { checkSource: false }).close();
      await Deno.remove(src);
      openRowStore(path).close(); // a source that is gone is not checked
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RowStore bad indices and writer errors", async (t) => {
  const path = await Deno.makeTempFile({ suffix: ".rows" });
  try {
    const chunk = { numRows: 3, x: new Float32Array([1, 2, 3, 4, 5, 6]), y: new Float64Array(3) };
    await writeRowStore(path, [chunk], meta(2, "f32"));
    const store = openRowStore(path);
    const x = new Float64Array(8), y = new Float64Array(4);
    await t.step("readRows names the bad index", () => {
      assert.throws(
        () => store.readRows(new Int32Array([0, 2, 3]), x, y),
        (e: Error) => e instanceof RangeError && e.message.startsWith("rows[2] = 3 is not a row"),
      );
      assert.throws(() => store.readRows(new Int32Array([-1]), x, y), /rows\[0\] = -1/);
    });
    await t.step("readRange and outputs", () => {
      assert.throws(() => store.readRange(2, 2, x, y), RangeError);
      assert.throws(() => store.readRange(0, 1, x, y, new Float64Array(1)), /no aux column/);
      assert.throws(() => store.readRows(new Int32Array(5), x, y), /needs x of 10/);
    });
    store.close();
    await t.step("writer: malformed chunks and non-finite values", async () => {
      await assert.rejects(
        writeRowStore(
          path,
          [{ numRows: 2, x: new Float64Array(3), y: new Float64Array(2) }],
          meta(2, "f64"),
        ),
        /needs x of 4/,
      );
      await assert.rejects(
        writeRowStore(
          path,
          [{ numRows: 1, x: new Float64Array([1, NaN]), y: new Float64Array(1) }],
          meta(2, "f64"),
        ),
        /non-finite value NaN at row 0, column c1/,
      );
      await assert.rejects(
        writeRowStore(
          path,
          [{ numRows: 1, x: new Float64Array(2), y: new Float64Array(1) }],
          meta(2, "f64", "t"),
        ),
        /every chunk needs aux/,
      );
      // The failed writes left the earlier store intact and no partial file.
      openRowStore(path).close();
      await assert.rejects(Deno.stat(path + ".partial"), Deno.errors.NotFound);
    });
  } finally {
    await Deno.remove(path);
  }
});
