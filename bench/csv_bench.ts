/**
 * CSV parsing speed on numeric data: papaparse vs csv-parse (the two npm
 * parsers the design allows), against a no-library split + Number baseline,
 * and loadCsvToArena end to end.
 *
 *   deno bench --allow-read --allow-env bench/csv_bench.ts
 *     in-memory text, TALLMC_CSV_BENCH_ROWS rows × 30 columns (default 20 000);
 *     add --allow-write=/tmp to include loadCsvToArena on a temporary file.
 *   deno run --allow-read --allow-write=/tmp --allow-env bench/csv_bench.ts [rows]
 *     one-off timing on a generated file (default 10⁶ rows × 30 columns,
 *     ≈ 290 MB), printing rows/s per parser: the measurement behind the choice
 *     of papaparse in data/csv.ts.
 */
import Papa from "papaparse";
import { parse as csvParseStream } from "csv-parse/stream";
import { loadCore } from "../core/load.ts";
import { loadCsvToArena } from "../data/csv.ts";

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

async function oneOff(rows: number): Promise<void> {
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
  const path = await Deno.makeTempFile({
    dir: "/tmp",
    prefix: "tallmc_csv_bench_",
    suffix: ".csv",
  });
  try {
    await writeFile(path, chunks);
    chunks.length = 0;
    const arena = loadCore();
    await time("loadCsvToArena (file, f64, both passes)", async () => {
      const data = await loadCsvToArena(arena, path, { response: "y", family: "logistic" });
      return data.numRows;
    });
  } finally {
    await Deno.remove(path);
  }
}

if (import.meta.main) {
  await oneOff(Number(Deno.args[0] ?? 1_000_000));
} else {
  const rows = Number(Deno.env.get("TALLMC_CSV_BENCH_ROWS") ?? 20_000);
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
    const path = Deno.makeTempFileSync({
      dir: "/tmp",
      prefix: "tallmc_csv_bench_",
      suffix: ".csv",
    });
    await writeFile(path, chunks);
    const arena = loadCore();
    Deno.bench(`loadCsvToArena f64, file (${group})`, opts, async () => {
      const data = await loadCsvToArena(arena, path, { response: "y", family: "logistic" });
      arena.free(data.x);
      arena.free(data.y);
    });
    globalThis.addEventListener("unload", () => Deno.removeSync(path));
  }
}
