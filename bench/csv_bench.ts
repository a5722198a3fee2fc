/**
 * Numeric CSV reading speed: the WebAssembly reader of data/csv.ts (on
 * workers and on one thread), the papaparse reader it replaces, and
 * DuckDB's `read_csv` measured beside them in the same run, on one file.
 *
 *   deno run --allow-read --allow-write=/tmp --allow-env --allow-ffi --allow-sys=loadavg \
 *     bench/csv_bench.ts [rows] [rounds]
 *     the measurement of docs/csv_reader.md: a generated file of `rows`
 *     (default 10⁶) × 30 columns (≈ 290 MB), read `rounds` times (default 3)
 *     by every reader in turn (interleaved, so that they share the machine's
 *     load), printing MB/s per reader and round, the medians, the ratios to
 *     the papaparse reader and to DuckDB, and the load average. Add
 *     `--parsers` for the npm parsers alone (papaparse, csv-parse, a split +
 *     Number baseline) on the same rows in memory.
 *   deno bench --allow-read --allow-write=/tmp --allow-env --allow-ffi bench/csv_bench.ts
 *     (part of `deno task bench`) the same readers on a file of
 *     TALLMC_CSV_BENCH_ROWS rows (default 100 000), the papaparse reader as
 *     the baseline; plus the npm parsers on 20 000 rows in memory.
 */
import Papa from "papaparse";
import { parse as csvParseStream } from "csv-parse/stream";
import { loadCore } from "../core/load.ts";
import process from "node:process";
import { DuckDBInstance } from "npm:@duckdb/node-api@1.5.5-r.5";
import { type LoadCsvOptions, loadCsvToArena } from "../data/csv.ts";

const NUM_COLS = 30; // response + 29 covariates, like HIGGS

interface _PapaResult {
  data: string[][];
  meta: { cursor: number };
}
type _PapaParserClass = new (config: {
  delimiter: string;
  newline: string;
  step: (result: _PapaResult) => void;
}) => { parse(input: string, baseIndex: number, ignoreLastRow: boolean): _PapaResult };
const _Parser = (Papa as unknown as { Parser: _PapaParserClass }).Parser;

/** A numeric CSV as byte chunks (≈ 1 MiB each), y ∈ {0, 1} first. */
function makeCsvChunks(rows: number, seed = 12345): Uint8Array[] {
  let s = seed;
  const u = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let lines = ["y," + Array.from({ length: NUM_COLS - 1 }, (_, j) => `x${j + 1}`).join(",")];
  let size = 0;
  for (let i = 0; i < rows; i++) {
    let line = u() < 0.5 ? "0" : "1";
    for (let j = 1; j < NUM_COLS; j++) line += "," + ((u() * 2 - 1) * 3).toPrecision(7);
    lines.push(line);
    size += line.length;
    if (size > 1 << 20) {
      chunks.push(enc.encode(lines.join("\n") + "\n"));
      lines = [];
      size = 0;
    }
  }
  if (lines.length > 0) chunks.push(enc.encode(lines.join("\n") + "\n"));
  return chunks;
}

/** Sink shared by all methods: Number() every field into one reused row. */
function makeSink(): { put: (rec: string[]) => void; count: () => number } {
  const row = new Float64Array(NUM_COLS);
  let n = -1; // the header is the first record
  return {
    put(rec: string[]) {
      if (n++ < 0) return;
      for (let j = 0; j < rec.length; j++) row[j] = +rec[j];
    },
    count: () => n,
  };
}

/** Baseline: decode, split on "\n" and ",", Number() — no CSV library. */
function baseline(chunks: Uint8Array[]): number {
  const sink = makeSink(), dec = new TextDecoder();
  let carry = "";
  for (const buf of chunks) {
    const text = carry + dec.decode(buf, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      sink.put(text.slice(start, nl).split(","));
      start = nl + 1;
    }
    carry = text.slice(start);
  }
  return sink.count();
}

/** papaparse's Parser fed chunk by chunk with carried partial rows (what data/csv.ts does). */
function papaChunked(chunks: Uint8Array[]): number {
  const sink = makeSink(), dec = new TextDecoder();
  const parser = new _Parser({ delimiter: ",", newline: "\n", step: (r) => sink.put(r.data[0]) });
  let partial = "", base = 0;
  for (const buf of chunks) {
    const aggregate = partial + dec.decode(buf, { stream: true });
    const res = parser.parse(aggregate, base, true);
    partial = aggregate.substring(res.meta.cursor - base);
    base = res.meta.cursor;
  }
  parser.parse(partial, base, false);
  return sink.count();
}

/** csv-parse's WHATWG TransformStream (the streaming API that fits Deno). */
async function csvParse(chunks: Uint8Array[]): Promise<number> {
  const sink = makeSink();
  const stream = ReadableStream.from(chunks).pipeThrough(
    csvParseStream({}) as unknown as TransformStream<Uint8Array, string[]>,
  );
  for await (const rec of stream) sink.put(rec);
  return sink.count();
}

async function writeFile(path: string, chunks: Uint8Array[]): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for (const c of chunks) {
    for (let off = 0; off < c.length;) off += await file.write(c.subarray(off));
  }
}

/** The readers compared: the data layer's, with options, or DuckDB's on a number of threads. */
const READERS: { name: string; options?: Partial<LoadCsvOptions>; duckdbThreads?: number }[] = [
  { name: "wasm reader, 2 workers", options: { workers: 2 } },
  { name: "wasm reader, 1 worker", options: { workers: 1 } },
  { name: "wasm reader, this thread", options: { workers: 0 } },
  { name: "papaparse reader (before)", options: { reader: "papaparse" } },
  { name: "DuckDB read_csv, 1 thread", duckdbThreads: 1 },
  { name: "DuckDB read_csv, 2 threads", duckdbThreads: 2 },
];

const _arena = loadCore();

/** Reads `path` with one of {@link READERS}; returns the number of rows. */
async function readWith(r: (typeof READERS)[number], path: string): Promise<number> {
  if (r.duckdbThreads !== undefined) {
    const instance = await DuckDBInstance.create(":memory:", {
      threads: String(r.duckdbThreads),
    });
    const conn = await instance.connect();
    try {
      await conn.run(
        `CREATE TABLE t AS SELECT * FROM read_csv('${path}', header = true, delim = ',')`,
      );
      const rows = await conn.runAndReadAll("SELECT count(*) FROM t");
      return Number(rows.getRows()[0][0]);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  }
  const data = await loadCsvToArena(_arena, path, {
    response: "y",
    family: "logistic",
    ...r.options,
  });
  _arena.free(data.x);
  _arena.free(data.y);
  return data.numRows;
}

function _median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function readers(rows: number, rounds: number): Promise<void> {
  const chunks = makeCsvChunks(rows);
  const bytes = chunks.reduce((s, c) => s + c.length, 0);
  const path = await Deno.makeTempFile({
    dir: "/tmp",
    prefix: "tallmc_csv_bench_",
    suffix: ".csv",
  });
  try {
    await writeFile(path, chunks);
    chunks.length = 0;
    const load = () => {
      try {
        return Deno.loadavg().map((v) => v.toFixed(2)).join(" ");
      } catch {
        return "unknown (run with --allow-sys=loadavg)";
      }
    };
    console.log(
      `numeric CSV: ${rows} rows × ${NUM_COLS} columns, ${(bytes / 1e6).toFixed(0)} MB; ` +
        `${navigator.hardwareConcurrency} processors; load average ${load()}`,
    );
    await readWith(READERS[2], path); // warm the page cache and the code
    const mbs = READERS.map(() => [] as number[]);
    const cpu = READERS.map(() => [] as number[]);
    for (let round = 1; round <= rounds; round++) {
      const line: string[] = [];
      for (let k = 0; k < READERS.length; k++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const n = await readWith(READERS[k], path);
        const sec = (performance.now() - t0) / 1000;
        const c = process.cpuUsage(c0);
        if (n !== rows) throw new Error(`${READERS[k].name} read ${n} rows, expected ${rows}`);
        mbs[k].push(bytes / 1e6 / sec);
        cpu[k].push(bytes / 1e6 / ((c.user + c.system) / 1e6));
        line.push(`${READERS[k].name}: ${(bytes / 1e6 / sec).toFixed(0)}`);
      }
      console.log(`round ${round} (MB/s; load ${load()}): ${line.join(", ")}`);
    }
    const med = mbs.map(_median), medCpu = cpu.map(_median);
    const papa = med[3], duck1 = med[4], duck2 = med[5];
    console.log(
      `\nmedian of ${rounds} rounds (MB/s of wall time; MB per CPU second of all the ` +
        `process's threads):`,
    );
    for (let k = 0; k < READERS.length; k++) {
      console.log(
        `  ${READERS[k].name.padEnd(28)} ${med[k].toFixed(0).padStart(6)} MB/s ` +
          `${medCpu[k].toFixed(0).padStart(5)} MB/CPU-s  ×${
            (med[k] / papa).toFixed(2)
          } papaparse  ` +
          `×${(med[k] / duck1).toFixed(2)} DuckDB 1 thread  ×${(med[k] / duck2).toFixed(2)} ` +
          `DuckDB 2 threads`,
      );
    }
    console.log(`load average after: ${load()}`);
  } finally {
    await Deno.remove(path);
  }
}

async function parsers(rows: number): Promise<void> {
  const chunks = makeCsvChunks(rows);
  const bytes = chunks.reduce((s, c) => s + c.length, 0);
  console.log(`numeric CSV: ${rows} rows × ${NUM_COLS} columns, ${(bytes / 1e6).toFixed(0)} MB`);
  const time = async (name: string, fn: () => number | Promise<number>) => {
    const t0 = performance.now();
    const n = await fn();
    const sec = (performance.now() - t0) / 1000;
    if (n !== rows) throw new Error(`${name} parsed ${n} rows, expected ${rows}`);
    console.log(
      `${name.padEnd(40)} ${sec.toFixed(2).padStart(6)} s ${
        (rows / sec).toFixed(0).padStart(8)
      } rows/s ${(bytes / 1e6 / sec).toFixed(1).padStart(6)} MB/s`,
    );
  };
  await time("baseline: split + Number (no library)", () => baseline(chunks));
  await time("papaparse Parser, chunked", () => papaChunked(chunks));
  await time("csv-parse TransformStream", () => csvParse(chunks));
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--parsers");
  const rows = Number(args[0] ?? 1_000_000);
  if (Deno.args.includes("--parsers")) await parsers(rows);
  else await readers(rows, Number(args[1] ?? 3));
} else {
  const rows = 20_000;
  const chunks = makeCsvChunks(rows);
  const group = `csv ${rows}×${NUM_COLS}`;
  const opts = { group, n: 5, warmup: 1 };
  Deno.bench(`split + Number, no library (${group})`, { ...opts, baseline: true }, () => {
    baseline(chunks);
  });
  Deno.bench(`papaparse Parser, chunked (${group})`, opts, () => {
    papaChunked(chunks);
  });
  Deno.bench(`csv-parse TransformStream (${group})`, opts, async () => {
    await csvParse(chunks);
  });
  const writable = Deno.permissions.querySync({ name: "write", path: "/tmp" }).state === "granted";
  if (writable) {
    const fileRows = Number(Deno.env.get("TALLMC_CSV_BENCH_ROWS") ?? 100_000);
    const path = Deno.makeTempFileSync({
      dir: "/tmp",
      prefix: "tallmc_csv_bench_",
      suffix: ".csv",
    });
    await writeFile(path, makeCsvChunks(fileRows));
    const fileGroup = `csv file ${fileRows}×${NUM_COLS}`;
    for (const r of READERS) {
      Deno.bench(
        `${r.name} (${fileGroup})`,
        { group: fileGroup, n: 3, warmup: 1, baseline: r.options?.reader === "papaparse" },
        async () => {
          await readWith(r, path);
        },
      );
    }
    globalThis.addEventListener("unload", () => Deno.removeSync(path));
  }
}
