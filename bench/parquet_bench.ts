/**
 * Parquet read and write speed on numeric data (response + 29 covariates,
 * like HIGGS): hyparquet / hyparquet-writer (pure JavaScript, the library
 * data/parquet.ts uses) against parquet-wasm (Rust compiled to wasm), and
 * loadParquet / writeParquet end to end, DOUBLE and FLOAT columns.
 *
 *   deno bench --allow-read --allow-write=/tmp --allow-env bench/parquet_bench.ts
 *     TALLMC_PARQUET_BENCH_ROWS rows × 30 columns (default 200 000).
 *   deno run --allow-read --allow-write=/tmp --allow-env bench/parquet_bench.ts [rows]
 *     one-off timing (default 10⁶ rows), printing seconds and cells/s per
 *     library: the measurement behind the choice of hyparquet in
 *     data/parquet.ts.
 *
 * parquet-wasm is timed from and to Arrow IPC bytes (what its API takes and
 * gives); turning those into JS arrays needs yet another library, so its
 * numbers are a lower bound on what it would cost here.
 */
import { parquetMetadataAsync, parquetRead } from "hyparquet";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import * as parquetWasm from "npm:parquet-wasm@0.8.0";
import { loadCore } from "../core/load.ts";
import { loadParquet, type ParquetRowChunk } from "../data/parquet.ts";
import { writeParquet } from "../data/parquet_write.ts";
import type { Storage } from "../data/dataset.ts";

const NUM_COLS = 30;
const _NAMES = ["y", ...Array.from({ length: NUM_COLS - 1 }, (_, j) => `x${j + 1}`)];

/** Row chunks of 10⁵ rows: y ∈ {0, 1}, covariates uniform on (−3, 3). */
function makeChunks(rows: number, storage: Storage, seed = 12345): ParquetRowChunk[] {
  let s = seed;
  const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
  const d = NUM_COLS - 1, out: ParquetRowChunk[] = [];
  for (let start = 0; start < rows; start += 100_000) {
    const m = Math.min(100_000, rows - start);
    const x = storage === "f64" ? new Float64Array(m * d) : new Float32Array(m * d);
    const y = new Float64Array(m);
    for (let i = 0; i < m; i++) {
      y[i] = u() < 0.5 ? 0 : 1;
      for (let j = 0; j < d; j++) x[i * d + j] = (u() * 2 - 1) * 3;
    }
    out.push({ numRows: m, x, y });
  }
  return out;
}

/** hyparquet-writer alone, into memory: one DOUBLE/FLOAT column per covariate. */
async function hyparquetWrite(chunks: ParquetRowChunk[], storage: Storage): Promise<Uint8Array> {
  const d = NUM_COLS - 1;
  const writer = new ByteWriter();
  const schema = [
    { name: "root", num_children: NUM_COLS },
    ..._NAMES.map((name, j) => ({
      name,
      type: j > 0 && storage === "f32" ? "FLOAT" : "DOUBLE",
      repetition_type: "REQUIRED",
    })),
  ];
  const w = new ParquetWriter({
    writer,
    schema: schema as ConstructorParameters<typeof ParquetWriter>[0]["schema"],
  });
  for (const c of chunks) {
    const cols = Array.from(
      { length: d },
      () => storage === "f64" ? new Float64Array(c.numRows) : new Float32Array(c.numRows),
    );
    for (let i = 0; i < c.numRows; i++) for (let j = 0; j < d; j++) cols[j][i] = c.x[i * d + j];
    await w.write({
      columnData: [
        { name: "y", data: c.y },
        ...cols.map((data, j) => ({ name: _NAMES[j + 1], data })),
      ],
      rowGroupSize: c.numRows,
    });
  }
  await w.finish();
  return writer.getBytes().slice();
}

/** hyparquet alone: decode every row group of in-memory bytes; returns the cell count. */
async function hyparquetRead(bytes: Uint8Array): Promise<number> {
  const buf = bytes.buffer as ArrayBuffer;
  const file = { byteLength: buf.byteLength, slice: (a: number, b?: number) => buf.slice(a, b) };
  const metadata = await parquetMetadataAsync(file);
  let cells = 0, start = 0;
  for (const g of metadata.row_groups) {
    const n = Number(g.num_rows);
    await parquetRead({
      file,
      metadata,
      rowStart: start,
      rowEnd: start + n,
      onChunk: (c) => (cells += c.columnData.length),
    });
    start += n;
  }
  return cells;
}

/** Baseline: copy the bytes once (what any reader must at least do). */
function copyBytes(bytes: Uint8Array): number {
  return bytes.slice().length;
}

async function oneOff(rows: number): Promise<void> {
  const time = async <T>(label: string, fn: () => Promise<T> | T): Promise<T> => {
    const t = performance.now();
    const r = await fn();
    const s = (performance.now() - t) / 1000;
    console.log(
      `${label.padEnd(52)} ${s.toFixed(2)} s  ${
        (rows * NUM_COLS / s / 1e6).toFixed(1)
      }·10⁶ cells/s`,
    );
    return r;
  };
  console.log(`${rows} rows × ${NUM_COLS} columns`);
  const arena = loadCore();
  for (const storage of ["f64", "f32"] as const) {
    const type = storage === "f64" ? "DOUBLE" : "FLOAT";
    const chunks = makeChunks(rows, storage);
    const bytes = await time(
      `hyparquet-writer ${type}, in memory`,
      () => hyparquetWrite(chunks, storage),
    );
    console.log(`  file size ${(bytes.length / 1e6).toFixed(1)} MB`);
    await time(`hyparquet read ${type}, in memory`, () => hyparquetRead(bytes));
    const path = await Deno.makeTempFile({ dir: "/tmp", suffix: ".parquet" });
    try {
      await time(
        `writeParquet ${type} → file (checks, transpose)`,
        () =>
          writeParquet(path, chunks, {
            columnNames: _NAMES.slice(1),
            responseName: "y",
            storage,
          }),
      );
      await time(`loadParquet ${storage} ← file (checks, into the arena)`, async () => {
        const data = await loadParquet(arena, path, { response: "y", family: "logistic", storage });
        arena.free(data.x);
        arena.free(data.y);
      });
    } finally {
      await Deno.remove(path);
    }
    const ipc = await time(
      `parquet-wasm read ${type} → Arrow IPC`,
      () => parquetWasm.readParquet(bytes).intoIPCStream(),
    );
    await time(
      `parquet-wasm write ${type} ← Arrow IPC`,
      () => parquetWasm.writeParquet(parquetWasm.Table.fromIPCStream(ipc)),
    );
  }
}

if (import.meta.main) {
  await oneOff(Number(Deno.args[0] ?? 1_000_000));
} else {
  const rows = Number(Deno.env.get("TALLMC_PARQUET_BENCH_ROWS") ?? 200_000);
  for (const storage of ["f64", "f32"] as const) {
    const type = storage === "f64" ? "DOUBLE" : "FLOAT";
    const group = `parquet ${type} ${rows}×${NUM_COLS}`;
    const opts = { group, n: 5, warmup: 1 };
    const chunks = makeChunks(rows, storage);
    const bytes = await hyparquetWrite(chunks, storage);
    const ipc = parquetWasm.readParquet(bytes).intoIPCStream();
    Deno.bench(`copy the file's bytes (${group})`, { ...opts, baseline: true }, () => {
      copyBytes(bytes);
    });
    Deno.bench(`hyparquet read (${group})`, opts, async () => {
      await hyparquetRead(bytes);
    });
    Deno.bench(`parquet-wasm read to Arrow IPC (${group})`, opts, () => {
      parquetWasm.readParquet(bytes).intoIPCStream();
    });
    Deno.bench(`hyparquet-writer write (${group})`, opts, async () => {
      await hyparquetWrite(chunks, storage);
    });
    Deno.bench(`parquet-wasm write from Arrow IPC (${group})`, opts, () => {
      parquetWasm.writeParquet(parquetWasm.Table.fromIPCStream(ipc));
    });
    const path = Deno.makeTempFileSync({
      dir: "/tmp",
      prefix: "tallmc_pq_bench_",
      suffix: ".parquet",
    });
    await writeParquet(path, chunks, { columnNames: _NAMES.slice(1), responseName: "y", storage });
    const arena = loadCore();
    Deno.bench(`loadParquet from a file (${group})`, opts, async () => {
      const data = await loadParquet(arena, path, { response: "y", family: "logistic", storage });
      arena.free(data.x);
      arena.free(data.y);
    });
    globalThis.addEventListener("unload", () => Deno.removeSync(path));
  }
}
