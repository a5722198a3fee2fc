/**
 * Tall data end to end, phase by phase: generate HIGGS-shaped logistic data
 * (1 + 29 columns, f32) straight to Parquet in bounded memory, stream it
 * back, and convert it to the row store; time, peak resident memory and file
 * sizes per phase, for n = 10⁶, 10⁷, 10⁸.
 *
 *   deno task tall-data --n 1e4                 # smoke run
 *   deno task tall-data --n 1e6,1e7 --dir /tmp/tall --keep
 *   deno task tall-data --n 1e6 --phases generate,scan --json out/tall.json
 *
 * Phases (exported, so that later phases — centring passes, per-iteration
 * HMC-ECS cost — can be appended with the same bookkeeping):
 *
 * - `generate`: {@link higgsShapedChunks} → {@link writeParquet}. The rows
 *   are those of `higgsShaped(arena, {n, seed, storage: "f32"})` (the same
 *   random streams in the same order), produced 10⁵ at a time.
 * - `scan`: one full pass over the Parquet file with {@link parquetRowChunks}
 *   (decode + checks, no arithmetic): the I/O floor of a full-data pass.
 * - `rows`: Parquet → fixed-width row store (`data/row_store.ts`), through
 *   `convertTable` (what `tallmc convert IN.parquet OUT.rows` runs).
 * - `rowscan`: one full pass over the row store with `readRange`, in blocks
 *   of 10⁵ rows: the row store's floor for a full-data pass.
 * - `gather`: `readRows` of m = 1000 random rows (a subsample), repeated
 *   200 times: the I/O part of one HMC-ECS iteration's block refresh. The
 *   page cache is warm (the file was just written), as it stays on a machine
 *   with memory to spare; a cold cache costs one disk seek per row.
 * - `load`: `loadParquet` into a fresh core's memory (f32), the in-memory path;
 *   skipped when X would not fit in a 4 GiB wasm32 memory (n above ≈ 3·10⁷).
 * - `centre`: a {@link ShardedGlmModel} streaming the row store (2 workers),
 *   one `controlVariateSums` pass with B (S, A and B in one read) and one
 *   log-likelihood + gradient pass: the full-data passes of HMC-ECS, out of
 *   core.
 * - `ecs`: HMC-ECS (`sample(…, { sampler: "hmc-ecs" })`, one chain) on that
 *   streamed model: warm-up wall time and full-data pass-equivalents, then
 *   the wall time and rows per iteration of the sampling phase, with the
 *   time spent in `readRows` (the subsample's block refresh).
 * - `ecsmem`: the same HMC-ECS run on a {@link GlmModel} over the data loaded
 *   into wasm memory (f32), for comparison; skipped where `load` is.
 *
 * Peak memory is the kernel's VmHWM (/proc/self/status), reset at the start
 * of each phase through /proc/self/clear_refs; Deno only lets a script read
 * /proc/self with every permission, so the task runs with `-A` (elsewhere
 * the peak falls back to the largest RSS seen between chunks). The task also
 * exposes V8's `gc()`, run before each phase so that memory an earlier phase
 * dropped is not counted as the next one's peak.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Rng } from "../random/rng.ts";
import { loadParquet, parquetRowChunks } from "../data/parquet.ts";
import { writeParquet } from "../data/parquet_write.ts";
import { loadCore } from "../core/load.ts";
import { openRowStore } from "../data/row_store.ts";
import { convertTable } from "../cli/convert_command.ts";
import { fmtBytes, PeakMemory, type PhaseResult, printPhase, runPhase } from "./phase_measure.ts";
import {
  higgsShapedChunks,
  TALL_COLUMN_NAMES,
  TALL_NUM_COLS,
  type TallDataOptions,
} from "./higgs_chunks.ts";
import {
  centringPhases,
  ecsMemoryPhase,
  type EcsSettings,
  ecsStreamPhase,
  smallHessianCostRatio,
} from "./tall_data_ecs.ts";

export { PeakMemory, type PhaseResult, printPhase, runPhase } from "./phase_measure.ts";
export {
  higgsShapedChunks,
  TALL_COLUMN_NAMES,
  TALL_NUM_COLS,
  type TallDataOptions,
} from "./higgs_chunks.ts";
export {
  centringPhases,
  ecsMemoryPhase,
  ecsPhase,
  type EcsResult,
  type EcsSettings,
  ecsStreamPhase,
} from "./tall_data_ecs.ts";

/**
 * Phase `generate`: HIGGS-shaped rows straight to a Parquet file.
 *
 * @param path The Parquet file.
 * @param options `n`, `seed`, `chunkRows`, `storage`; and `rowGroupSize`.
 * @param mem Peak-memory bookkeeping.
 * @returns The measurement.
 */
export function generatePhase(
  path: string,
  options: TallDataOptions & { rowGroupSize?: number },
  mem: PeakMemory,
): Promise<PhaseResult> {
  return runPhase("generate → parquet", options.n, mem, async () => {
    const chunks = (function* () {
      for (const c of higgsShapedChunks(options)) {
        mem.sample();
        yield c;
      }
    })();
    const r = await writeParquet(path, chunks, {
      columnNames: TALL_COLUMN_NAMES,
      responseName: "y",
      storage: options.storage ?? "f32",
      rowGroupSize: options.rowGroupSize ?? 100_000,
    });
    return { fileBytes: r.numBytes, note: `${r.numRowGroups} row groups` };
  });
}

/**
 * Phase `scan`: one streaming pass over the Parquet file (decode and
 * checks), summing y so the work cannot be skipped.
 *
 * @param path The Parquet file.
 * @param n Rows (for the record).
 * @param mem Peak-memory bookkeeping.
 * @returns The measurement.
 */
export function scanPhase(path: string, n: number, mem: PeakMemory): Promise<PhaseResult> {
  return runPhase("scan parquet (one full pass)", n, mem, async () => {
    let rows = 0, sumY = 0;
    for await (
      const c of parquetRowChunks(path, {
        response: "y",
        family: "logistic",
        storage: "f32",
      })
    ) {
      rows += c.numRows;
      for (let i = 0; i < c.numRows; i++) sumY += c.y[i];
      mem.sample();
    }
    if (rows !== n) throw new Error(`${path}: scanned ${rows} rows, expected ${n}`);
    return { note: `mean y ${(sumY / rows).toFixed(4)}` };
  });
}

/**
 * Phase `load`: the whole file into a fresh core's memory as f32 GLM data.
 *
 * @param path The Parquet file.
 * @param n Rows (for the record).
 * @param mem Peak-memory bookkeeping.
 * @returns The measurement.
 */
export function loadPhase(path: string, n: number, mem: PeakMemory): Promise<PhaseResult> {
  return runPhase("load parquet → wasm memory", n, mem, async () => {
    const arena = loadCore();
    const data = await loadParquet(arena, path, {
      response: "y",
      family: "logistic",
      storage: "f32",
    });
    if (data.numRows !== n) throw new Error(`${path}: loaded ${data.numRows} rows, expected ${n}`);
    return { note: `wasm memory ${fmtBytes(arena.memory.buffer.byteLength)}` };
  });
}

/**
 * Phase `rows`: Parquet → row store (f32), as `tallmc convert` does it.
 *
 * @param parquet The Parquet file.
 * @param rows The row store to write.
 * @param n Rows (for the record).
 * @param mem Peak-memory bookkeeping.
 * @returns The measurement.
 */
export function rowStorePhase(
  parquet: string,
  rows: string,
  n: number,
  mem: PeakMemory,
): Promise<PhaseResult> {
  return runPhase("parquet → row store", n, mem, async () => {
    const r = await convertTable(parquet, rows, {
      response: "y",
      family: "logistic",
      storage: "f32",
    });
    if (r.numRows !== n) throw new Error(`${rows}: wrote ${r.numRows} rows, expected ${n}`);
    return { fileBytes: r.numBytes };
  });
}

/**
 * Phase `rowscan`: every row of the store once, with `readRange` in blocks.
 *
 * @param rows The row store.
 * @param n Rows (for the record).
 * @param mem Peak-memory bookkeeping.
 * @returns The measurement.
 */
export function rowScanPhase(rows: string, n: number, mem: PeakMemory): Promise<PhaseResult> {
  return runPhase("scan row store (one full pass)", n, mem, () => {
    const store = openRowStore(rows);
    try {
      const d = store.header.numCols, block = 100_000;
      const x = new Float32Array(block * d), y = new Float64Array(block);
      let sumY = 0;
      for (let s = 0; s < n; s += block) {
        const c = Math.min(block, n - s);
        store.readRange(s, c, x.subarray(0, c * d), y.subarray(0, c));
        for (let i = 0; i < c; i++) sumY += y[i];
      }
      return Promise.resolve({ note: `mean y ${(sumY / n).toFixed(4)}` });
    } finally {
      store.close();
    }
  });
}

/**
 * Phase `gather`: `readRows` of `m` random rows, `repeats` times.
 *
 * @param rows The row store.
 * @param n Rows (for the record).
 * @param mem Peak-memory bookkeeping.
 * @param options `m` (default 1000), `repeats` (default 200), `seed`.
 * @returns The measurement (seconds for all repeats; the note gives µs per gather).
 */
export function gatherPhase(
  rows: string,
  n: number,
  mem: PeakMemory,
  options: { m?: number; repeats?: number; seed?: number } = {},
): Promise<PhaseResult> {
  const m = Math.min(options.m ?? 1000, n), repeats = options.repeats ?? 200;
  return runPhase(`gather ${m} random rows ×${repeats}`, n, mem, () => {
    const store = openRowStore(rows);
    try {
      const d = store.header.numCols;
      const x = new Float64Array(m * d), y = new Float64Array(m), idx = new Int32Array(m);
      const rng = new Rng(options.seed ?? 7);
      const t = performance.now();
      for (let r = 0; r < repeats; r++) {
        for (let k = 0; k < m; k++) idx[k] = Math.floor(rng.uniform() * n);
        store.readRows(idx, x, y);
      }
      const us = (performance.now() - t) * 1000 / repeats;
      return Promise.resolve({
        rowsHandled: m * repeats,
        note: `${us.toFixed(0)} µs per gather, ${(us * 1000 / m).toFixed(0)} ns per row`,
      });
    } finally {
      store.close();
    }
  });
}

/** How much of a file is in the page cache (`fincore`, util-linux), or "" where unavailable. */
function _cacheNote(path: string): string {
  try {
    const out = new Deno.Command("fincore", { args: ["-b", "-n", "-r", "-o", "RES,SIZE", path] })
      .outputSync();
    if (!out.success) return "";
    const [res, size] = new TextDecoder().decode(out.stdout).trim().split(/\s+/).map(Number);
    return `${path}: ${fmtBytes(res)} of ${fmtBytes(size)} in the page cache`;
  } catch {
    return "";
  }
}

async function _main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      n: { type: "string", default: "1e4" },
      seed: { type: "string", default: "1" },
      dir: { type: "string" },
      phases: {
        type: "string",
        default: "generate,scan,rows,rowscan,gather,centre,ecs,load,ecsmem",
      },
      warmup: { type: "string", default: "300" },
      samples: { type: "string", default: "5000" },
      "row-group": { type: "string", default: "100000" },
      keep: { type: "boolean" },
      json: { type: "string" },
    },
  });
  const ns = values.n!.split(",").map((s) => Number(s.trim()));
  for (const n of ns) {
    if (!Number.isInteger(n) || n < 1) {
      throw new RangeError(`--n must be positive integers, got ${values.n}`);
    }
  }
  const rowGroupSize = Number(values["row-group"]);
  const phases = new Set(values.phases!.split(",").map((s) => s.trim()));
  const ecs: EcsSettings = {
    numWarmup: Number(values.warmup),
    numSamples: Number(values.samples),
    seed: Number(values.seed),
  };
  const dir = values.dir ?? await Deno.makeTempDir({ prefix: "tallmc_tall_" });
  await Deno.mkdir(dir, { recursive: true });
  const mem = new PeakMemory();
  console.log(
    `tall data in ${dir}; peak memory from ${mem.isKernelPeak ? "VmHWM" : "sampled RSS"}; ` +
      `${TALL_NUM_COLS} columns f32, row groups of ${rowGroupSize}`,
  );
  // w (Hessian row / gradient row cost) for the pass-equivalents: a per-row
  // compute ratio, measured once on 2·10⁵ rows in memory.
  const w = phases.has("ecs") || phases.has("ecsmem") ? smallHessianCostRatio(values.seed!) : 0;
  if (w > 0) console.log(`w = t(Hessian pass) / t(gradient pass) = ${w.toFixed(2)}`);
  const results: PhaseResult[] = [];
  for (const n of ns) {
    const parquet = `${dir}/higgs_${n}.parquet`;
    if (phases.has("generate")) {
      results.push(await generatePhase(parquet, { n, seed: values.seed!, rowGroupSize }, mem));
      printPhase(results.at(-1)!);
    }
    if (phases.has("scan")) {
      results.push(await scanPhase(parquet, n, mem));
      printPhase(results.at(-1)!);
    }
    const rows = `${dir}/higgs_${n}.rows`;
    if (phases.has("rows")) {
      results.push(await rowStorePhase(parquet, rows, n, mem));
      printPhase(results.at(-1)!);
    }
    if (phases.has("rowscan")) {
      results.push(await rowScanPhase(rows, n, mem));
      printPhase(results.at(-1)!);
    }
    if (phases.has("gather")) {
      results.push(await gatherPhase(rows, n, mem));
      printPhase(results.at(-1)!);
    }
    // Out of core first: memory an in-memory phase held (wasm memory is
    // freed only when V8 collects it) would count in the later phases' peaks.
    if (phases.has("centre") || phases.has("ecs")) {
      const note = _cacheNote(rows);
      if (note) console.log(note);
    }
    if (phases.has("centre")) {
      for (const r of await centringPhases(rows, n, mem)) {
        results.push(r);
        printPhase(r);
      }
    }
    if (phases.has("ecs")) {
      const note = phases.has("centre") ? _cacheNote(rows) : "";
      if (note) console.log(note);
      const r = await ecsStreamPhase(rows, n, mem, ecs, w);
      results.push(r);
      printPhase(r);
    }
    const fitsWasm = n * TALL_NUM_COLS * 4 + n * 8 < 3.5 * 2 ** 30;
    if (phases.has("load") && fitsWasm) {
      results.push(await loadPhase(parquet, n, mem));
      printPhase(results.at(-1)!);
    }
    if (phases.has("ecsmem") && fitsWasm) {
      const r = await ecsMemoryPhase(parquet, n, mem, ecs, w);
      results.push(r);
      printPhase(r);
    }
    if (!values.keep) {
      await Deno.remove(parquet).catch(() => {});
      await Deno.remove(rows).catch(() => {});
    }
  }
  if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(results, null, 1) + "\n");
  if (values.dir === undefined && !values.keep) await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) await _main(Deno.args);
