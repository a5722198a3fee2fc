/**
 * The WebAssembly CSV reader (data/_csv_wasm.ts on one thread,
 * data/_csv_parallel.ts on workers) against the papaparse reader it
 * replaces: bit-identical X and y, the same column names and warnings, the
 * same errors with the same messages — on the repository's CSV files, on a
 * fuzz corpus of numbers and layouts, and on bad files.
 *
 * Needs `--allow-read --allow-write=/tmp` (temporary CSV files).
 */

import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { type LoadCsvOptions, loadCsvToArena, openCsvRows, parseCsvText } from "../../data/csv.ts";
import { csvWasmCounts } from "../../data/_csv_wasm.ts";
import { csvParallelSizes } from "../../data/_csv_parallel.ts";
import { _bitsEqual, _x, _y } from "../_data_fixtures.ts";

type _Outcome =
  | {
    ok: true;
    x: Float64Array;
    y: Float64Array;
    names: string[];
    warnings: string[];
    numRows: number;
  }
  | { ok: false; kind: string; message: string };

function _text(text: string, options: LoadCsvOptions): _Outcome {
  try {
    const t = parseCsvText(text, options);
    return {
      ok: true,
      x: t.x,
      y: t.y,
      names: t.columnNames,
      warnings: t.warnings,
      numRows: t.numRows,
    };
  } catch (e) {
    return { ok: false, kind: (e as Error).constructor.name, message: (e as Error).message };
  }
}

async function _file(path: string, options: LoadCsvOptions, shared = false): Promise<_Outcome> {
  // A shared arena: the workers write the rows into it themselves.
  const arena = loadCore({ shared });
  try {
    const d = await loadCsvToArena(arena, path, options);
    return {
      ok: true,
      x: _x(d),
      y: _y(d),
      names: [...d.columnNames],
      warnings: [...(d.warnings ?? [])],
      numRows: d.numRows,
    };
  } catch (e) {
    return { ok: false, kind: (e as Error).constructor.name, message: (e as Error).message };
  }
}

function _same(a: _Outcome, b: _Outcome, what: string): void {
  if (!a.ok || !b.ok) {
    assert.deepEqual(b, a, what);
    return;
  }
  assert.equal(b.numRows, a.numRows, `${what}: rows`);
  assert.deepEqual(b.names, a.names, `${what}: names`);
  assert.deepEqual(b.warnings, a.warnings, `${what}: warnings`);
  assert.ok(_bitsEqual(b.x, a.x), `${what}: X differs bitwise`);
  assert.ok(_bitsEqual(b.y, a.y), `${what}: y differs bitwise`);
}

async function _withFile<T>(text: string, fn: (path: string) => Promise<T>): Promise<T> {
  const path = await Deno.makeTempFile({ dir: "/tmp", prefix: "tallmc_csvw_", suffix: ".csv" });
  try {
    await Deno.writeTextFile(path, text);
    return await fn(path);
  } finally {
    await Deno.remove(path);
  }
}

/**
 * Runs `fn` with the parallel reader on for files of any size, in small
 * segments (and a first block of `headBytes`: with a shared arena, files
 * longer than that are read from a guess of their rows before the count).
 */
async function _smallSegments<T>(
  segBytes: number,
  fn: () => Promise<T>,
  headBytes = 2048,
): Promise<T> {
  const saved = { ...csvParallelSizes };
  Object.assign(csvParallelSizes, { minBytes: 1, segBytes, margin: 4096, headBytes });
  try {
    return await fn();
  } finally {
    Object.assign(csvParallelSizes, saved);
  }
}

/**
 * Every reader on `text`: papaparse (the reference), the kernel on the text,
 * on the file on one thread, and on two workers with segments of `seg` bytes.
 */
async function _compareAll(
  text: string,
  options: LoadCsvOptions,
  what: string,
  seg = 97,
): Promise<_Outcome> {
  const ref = _text(text, { ...options, reader: "papaparse" });
  _same(ref, _text(text, options), `${what} (text)`);
  await _withFile(text, async (path) => {
    const refFile = await _file(path, { ...options, reader: "papaparse" });
    _same(refFile, await _file(path, { ...options, workers: 0 }), `${what} (file)`);
    await _smallSegments(seg, async () => {
      _same(refFile, await _file(path, { ...options, workers: 2 }), `${what} (2 workers)`);
      _same(
        refFile,
        await _file(path, { ...options, workers: 2 }, true),
        `${what} (2 workers, shared arena)`,
      );
    });
  });
  return ref;
}

Deno.test("csv wasm: rows written before the count, from a guess of the rows", async () => {
  // 200 columns: X'X takes every 2nd or 3rd row of 1,500 (497 rows), so the
  // guess of the records decides the stride; column c3 equals c1 on every
  // 3rd row only, so X'X over the rows of another stride misses the
  // dependence its warning names.
  const u = _gen(7);
  const text = (longFirst: number, extra: string) => {
    const cols = Array.from({ length: 200 }, (_, j) => `c${j + 1}`);
    const lines = [["y", ...cols].join(",")];
    for (let g = 0; g < 1500; g++) {
      const cells = Array.from({ length: 200 }, () => String(Math.floor(u() * 10)));
      if (g % 3 === 0) cells[2] = cells[0];
      // The first lines longer than the rest: the guess is too low.
      if (g < longFirst) { for (let j = 3; j < 9; j++) cells[j] += extra; }
      lines.push([u() < 0.5 ? "0" : "1", ...cells].join(","));
    }
    return lines.join("\n") + "\n";
  };
  const o: LoadCsvOptions = { response: "y", family: "logistic", storage: "f32" };
  const cases: [string, string, keyof typeof csvWasmCounts | null][] = [
    // Lines alike: the guess's stride is the count's.
    ["alike", text(0, ""), null],
    // Lines 3 % longer in the first block: stride 2 guessed, 3 counted (merged again).
    ["a little longer first", text(200, "12"), "remerged"],
    // Much longer: more rows than X was allocated for (read again, counted).
    ["much longer first", text(200, "." + "1".repeat(59)), "missed"],
  ];
  for (const [what, t, path] of cases) {
    await _withFile(t, async (file) => {
      const ref = await _file(file, { ...o, reader: "papaparse" });
      assert.ok(ref.ok && ref.warnings.some((w) => w.includes('"c1" with "c3"')), what);
      const before = { ...csvWasmCounts };
      await _smallSegments(64 << 10, async () => {
        _same(ref, await _file(file, { ...o, workers: 2 }, true), what);
      }, 64 << 10);
      assert.equal(csvWasmCounts.parallel, before.parallel + 1, `${what}: read by the workers`);
      for (const k of ["missed", "remerged"] as const) {
        assert.equal(csvWasmCounts[k], before[k] + (k === path ? 1 : 0), `${what}: ${k}`);
      }
    });
  }
});

Deno.test("csv wasm: a header and first line longer than the first block are read from a larger one", async () => {
  // 40 columns with 30-character names: the header alone is 1.2 KB, longer
  // than a first block of 256 bytes. The reader then takes a 4 MiB block (as
  // the one-thread reader does), and the workers still read the file.
  const u = _gen(11);
  const names = Array.from({ length: 40 }, (_, j) => `covariate_${String(j).padStart(20, "0")}`);
  const lines = [["y", ...names].join(",")];
  for (let g = 0; g < 400; g++) {
    lines.push([u() < 0.5 ? "0" : "1", ...names.map(() => (u() * 4 - 2).toFixed(5))].join(","));
  }
  const text = lines.join("\n") + "\n";
  const o: LoadCsvOptions = { response: "y", family: "logistic" };
  await _withFile(text, async (path) => {
    const ref = await _file(path, { ...o, reader: "papaparse" });
    assert.ok(ref.ok);
    for (const shared of [false, true]) {
      const before = { ...csvWasmCounts };
      await _smallSegments(4096, async () => {
        _same(ref, await _file(path, { ...o, workers: 2 }, shared), `shared arena: ${shared}`);
      }, 256);
      assert.equal(csvWasmCounts.parallel, before.parallel + 1, `shared arena: ${shared}`);
      assert.equal(csvWasmCounts.fallback, before.fallback, `shared arena: ${shared}`);
    }
  });
});

/** A deterministic generator (xorshift32), for the fuzz corpus. */
function _gen(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** A random number written in one of many plain-decimal forms. */
function _number(u: () => number): string {
  const ri = (n: number) => Math.floor(u() * n);
  const digits = (n: number) => Array.from({ length: n }, () => String(ri(10))).join("");
  const sign = u() < 0.3 ? "-" : u() < 0.1 ? "+" : "";
  switch (ri(14)) {
    case 0:
      return sign + String(u() * 10 ** (ri(30) - 15)); // shortest round trip
    case 1:
      return sign + digits(1 + ri(25)) + "." + digits(ri(25)); // 17–25+ digit mantissas
    case 2:
      return sign + digits(1 + ri(20)) + (u() < 0.5 ? "e" : "E") + (ri(400) - 200);
    case 3:
      return sign + "0".repeat(ri(5)) + digits(1 + ri(6)) + "." + digits(ri(9)); // leading zeros
    case 4:
      return sign + (u() * 10 ** -(300 + ri(23))).toExponential(ri(20)); // subnormals
    case 5:
      return sign + digits(17) + "e" + (ri(560) - 330); // near the ends of the range
    case 6: {
      const bits = new Uint32Array([ri(2 ** 32), ri(2 ** 31)]);
      const v = new Float64Array(bits.buffer)[0];
      return Math.abs(v) <= 1e100 && Number.isFinite(v) ? String(v) : "1e100";
    }
    case 7:
      return sign + ["0", "0.0", "0e5", ".0", "0.", "00", "0.000e-400"][ri(7)]; // ±0
    case 8:
      return sign + "." + digits(1 + ri(30));
    case 9:
      return sign + digits(1 + ri(3)) + ".";
    case 10:
      return sign +
        [
          "9007199254740993",
          "1.7976931348623157e308",
          "2.2250738585072014e-308",
          "4.9406564584124654e-324",
          "2.4703282292062327e-324",
          "9.999999999999999e22",
          "1e23",
          "8.98846567431158e307",
          "1e100",
          "1e-400",
        ][ri(10)];
    case 11:
      return sign + digits(1 + ri(8)) + "." + digits(1 + ri(8)); // the short form
    case 12:
      return sign + digits(1 + ri(19)) + "." + digits(ri(19 - 1)) + "e-" + ri(30);
    default:
      return sign + (u() * 3).toPrecision(1 + ri(17));
  }
}

/** A random numeric CSV: `rows` × `cols`, a logistic response first, varied layout. */
function _fuzzCsv(u: () => number, rows: number, cols: number, o: {
  crlf?: boolean;
  trailingDelimiter?: boolean;
  blankLast?: boolean;
  quoteEvery?: number;
  delimiter?: string;
}): string {
  const nl = o.crlf ? "\r\n" : "\n";
  const dl = o.delimiter ?? ",";
  const tail = o.trailingDelimiter ? dl : "";
  const lines = [["y", ...Array.from({ length: cols - 1 }, (_, j) => `x${j + 1}`)].join(dl) + tail];
  for (let i = 0; i < rows; i++) {
    const cells = [u() < 0.5 ? "0" : "1"];
    for (let j = 1; j < cols; j++) {
      let c = _number(u);
      while (!(Math.abs(+c) <= 1e100)) c = _number(u); // the bad cells have their own test
      cells.push(o.quoteEvery !== undefined && u() < 1 / o.quoteEvery ? `"${c}"` : c);
    }
    lines.push(cells.join(dl) + tail);
  }
  return lines.join(nl) + nl + (o.blankLast ? nl : "");
}

Deno.test("csv wasm: the kernel reads clean files (it does not always fall back)", async () => {
  const before = { ...csvWasmCounts };
  const text = "y,a,b\n1,0.5,-2\n0,1e-3,3.25\n";
  _same(
    _text(text, { response: "y", family: "logistic", reader: "papaparse" }),
    _text(text, { response: "y", family: "logistic" }),
    "small",
  );
  assert.equal(csvWasmCounts.done, before.done + 1);
  assert.equal(csvWasmCounts.fallback, before.fallback);
  await _withFile(text.repeat(1).concat("1,2,3\n".repeat(200)), async (path) => {
    await _smallSegments(64, async () => {
      const out = await _file(path, { response: "y", family: "logistic", workers: 2 });
      assert.ok(out.ok);
      assert.equal(out.numRows, 202);
    });
  });
  assert.equal(csvWasmCounts.parallel, before.parallel + 1);
});

Deno.test("[e2e] csv wasm: the repository's CSV files read bit for bit as papaparse reads them", async (t) => {
  const dir = new URL("./posteriordb/", import.meta.url);
  const files = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".csv"))
    .map((e) => e.name).sort();
  assert.ok(files.length >= 5, `found ${files.length} CSV files`);
  for (const name of files) {
    await t.step(name, async () => {
      const text = Deno.readTextFileSync(new URL(name, dir));
      const header = text.slice(0, text.search(/\r?\n/)).split(",").map((s) => s.replace(/"/g, ""));
      for (const response of [header[0], header[header.length - 1]]) {
        const ref = await _compareAll(
          text,
          { response, family: "gaussian" },
          `${name} ~ ${response}`,
        );
        assert.ok(ref.ok || /expected a number|empty|NaN/.test(ref.message), `${name}: ${ref}`);
        await _compareAll(
          text,
          { response, family: "gaussian", intercept: false, header: true },
          `${name} ~ ${response}, no intercept`,
        );
      }
    });
  }
});

Deno.test("csv wasm: fuzz corpus of numbers and layouts, f64 and f32", async (t) => {
  const layouts = [
    {},
    { crlf: true },
    { trailingDelimiter: true },
    { blankLast: true },
    { crlf: true, blankLast: true },
    { quoteEvery: 50 },
    { delimiter: ";" },
    { delimiter: "\t", crlf: true },
  ];
  for (let seed = 1; seed <= layouts.length * 2; seed++) {
    const layout = layouts[(seed - 1) % layouts.length];
    await t.step(`seed ${seed} ${JSON.stringify(layout)}`, async () => {
      const u = _gen(seed * 7919);
      const text = _fuzzCsv(u, 150 + Math.floor(u() * 150), 2 + Math.floor(u() * 9), layout);
      const fallbacks = csvWasmCounts.fallback;
      const ref = await _compareAll(text, { response: "y", family: "logistic" }, `seed ${seed}`);
      if (layout.quoteEvery === undefined && layout.trailingDelimiter === undefined) {
        assert.equal(csvWasmCounts.fallback, fallbacks, "the kernel read every copy");
      }
      if (layout.trailingDelimiter === undefined) assert.ok(ref.ok, JSON.stringify(ref));
      await _withFile(text, async (path) => {
        const o: LoadCsvOptions = { response: "y", family: "logistic", storage: "f32" };
        const refF32 = await _file(path, { ...o, reader: "papaparse" });
        _same(refF32, await _file(path, { ...o, workers: 0 }), `seed ${seed} f32`);
        await _smallSegments(211, async () => {
          _same(refF32, await _file(path, { ...o, workers: 2 }), `seed ${seed} f32, 2 workers`);
          _same(
            refF32,
            await _file(path, { ...o, workers: 2 }, true),
            `seed ${seed} f32, 2 workers, shared arena`,
          );
        });
      });
    });
  }
});

Deno.test("csv wasm: hard numbers (> 19 digits, subnormals, halfway cases) in bulk", () => {
  const u = _gen(424242);
  const cells: string[] = [];
  while (cells.length < 30_000) {
    const c = _number(u);
    if (Math.abs(+c) <= 1e100) cells.push(c);
  }
  const text = "v\n" + cells.join("\n") + "\n";
  const o: LoadCsvOptions = { response: "v", family: "gaussian", intercept: true };
  const before = csvWasmCounts.done;
  const got = _text(text, o);
  assert.equal(csvWasmCounts.done, before + 1, "the kernel read it");
  assert.ok(got.ok);
  for (let i = 0; i < cells.length; i++) {
    assert.ok(Object.is(got.y[i], Number(cells[i])), `${cells[i]}: got ${got.y[i]}`);
  }
});

/** Bad and awkward files: each reader must give the papaparse reader's data or error. */
const BAD_FILES: [string, string, Partial<LoadCsvOptions>?][] = [
  ["non-numeric", "y,a\n1,abc\n0,2\n"],
  ["empty cell", "y,a\n1,\n0,2\n"],
  ["NA", "y,a\n1,NA\n0,2\n"],
  ["NaN", "y,a\n1,NaN\n0,2\n"],
  ["Infinity", "y,a\n1,-Infinity\n0,2\n"],
  ["overflow", "y,a\n1,1e400\n0,2\n"],
  ["beyond 1e100", "y,a\n1,2e100\n0,2\n"],
  ["hexadecimal", "y,a\n1,0x10\n0,2\n"],
  ["digit separator", "y,a\n1,1_000\n0,2\n"],
  ["decimal comma", "y;a\n1;0,5\n0;2\n"],
  ["short row", "y,a,b\n1,2,3\n0,2\n"],
  ["long row", "y,a\n1,2,3\n0,2\n"],
  ["logistic response 2", "y,a\n2,1\n0,2\n"],
  ["poisson response", "y,a\n-1,1\n1.5,2\n", { family: "poisson" }],
  ["header only", "y,a\n"],
  ["header only, no newline", "y,a"],
  ["empty", ""],
  ["duplicate column", "y,a,a\n1,2,3\n"],
  ["unknown response", "q,a\n1,2\n", { response: "y" }],
  ["unknown column", "y,a\n1,2\n", { columns: ["b"] }],
  ["ambiguous delimiter", "y,a;b\n1,2;3\n"],
  ["many problems", "y,a\n" + "1,x\n".repeat(30)],
  ["bad value after many good rows", "y,a\n" + "1,2.5\n".repeat(5000) + "0,oops\n"],
  ["f32 overflow", "y,a\n1,1e39\n0,2\n", { storage: "f32" }],
  ["f32 underflow", "y,a\n1,1e-39\n0,2\n", { storage: "f32" }],
  ["bare carriage returns", "y,a\r1,2\r0,3\r"],
  ["quoted newline", 'y,a\n1,"2\n3"\n0,4\n'],
  ["blank around a number", "y,a\n1, 2.5\n0,\t3 \n"],
  ["text column used", "y,a,s\n1,2,abc\n", { columns: ["s"] }],
  ["text column unused", 'y,a,s\n1,2,abc\n0,3,"d,e"\n1,4,f\n', { columns: ["a"] }],
  ["BOM and quoted header", '\uFEFF"y","a b"\r\n1,2\r\n0,3\r\n'],
  ["blank lines", "y,a\n\n1,2\n\n0,3\n\n\n"],
  ["no trailing newline", "y,a\n1,2\n0,3"],
  ["CRLF, no trailing newline", "y,a\r\n1,2\r\n0,3"],
  ["mixed line breaks", "y,a\r\n1,2\n0,3\r\n"],
  ["reserved and empty names", "y,chain,,lp__\n1,2,3,4\n0,1,2,3\n"],
  ["no header", "1,2,3\n0,4,5\n", { header: false, response: 0 }],
  ["pipe delimiter", "y|a|b\n1|2|3\n0|4|5\n"],
  ["user delimiter", "y:a\n1:2\n0:3\n", { delimiter: ":" }],
  ["multi-byte delimiter", "y::a\n1::2\n0::3\n", { delimiter: "::" }],
  ["constant and copied columns", "y,a,b,c\n1,1,5,5\n0,1,6,6\n1,1,7,7\n"],
  ["extreme column", "y,a,b\n1,1,1e9\n0,2,3\n1,3,4\n"],
];

Deno.test("csv wasm: the same errors, with the same messages, on bad files", async (t) => {
  for (const [what, text, extra] of BAD_FILES) {
    await t.step(what, async () => {
      const o = { response: "y", family: "logistic", ...extra } as LoadCsvOptions;
      await _compareAll(text, o, what, 7);
    });
  }
});

/** Every chunk of `openCsvRows` concatenated, its names and warnings, or its error. */
async function _streamed(
  path: string,
  options: LoadCsvOptions,
  chunkRows = 3,
): Promise<_Outcome> {
  try {
    const rows = await openCsvRows(path, { ...options, chunkRows });
    const xs: number[] = [], ys: number[] = [];
    for await (const c of rows) {
      xs.push(...c.x);
      ys.push(...c.y);
    }
    return {
      ok: true,
      x: Float64Array.from(xs),
      y: Float64Array.from(ys),
      names: [...rows.columnNames],
      warnings: [...rows.warnings],
      numRows: ys.length,
    };
  } catch (e) {
    return { ok: false, kind: (e as Error).constructor.name, message: (e as Error).message };
  }
}

Deno.test("csv wasm: openCsvRows streams the kernel's rows, and after a fall back the papaparse reader's, as papaparse alone reads them", async (t) => {
  const late: [string, string, Partial<LoadCsvOptions>?][] = [
    // Rows handed on before the kernel meets what it does not read: the
    // papaparse reader starts over and skips them.
    ["a quote after many rows", "y,a\n" + "1,2.5\n".repeat(3000) + '0,"3"\n1,4\n'],
    ["a bad value after many rows", "y,a\n" + "1,2.5\n".repeat(3000) + "0,oops\n"],
    ["a blank after many rows, f32", "y,a\n" + "1,0.1\n".repeat(3000) + "0, 2\n", {
      storage: "f32",
    }],
    ["clean, many blocks", "y,a,b\n" + "1,0.25,-3e-7\n0,17,2\n".repeat(4000)],
  ];
  const before = { ...csvWasmCounts };
  for (const [what, text, extra] of [...BAD_FILES, ...late]) {
    await t.step(what, async () => {
      const o = { response: "y", family: "logistic", ...extra } as LoadCsvOptions;
      await _withFile(text, async (path) => {
        const general = await _streamed(path, { ...o, reader: "papaparse" });
        _same(general, await _streamed(path, o), what);
        _same(general, await _streamed(path, { ...o, chunkBytes: 5 }), `${what}, 5-byte reads`);
      });
    });
  }
  await t.step("a quote in the second of the kernel's 4 MiB blocks", async () => {
    // The first block's rows are handed on before the kernel falls back.
    const text = "y,a\n" + "1,2.5\n".repeat(800_000) + '0,"3"\n1,4\n';
    const o = { response: "y", family: "logistic" } as LoadCsvOptions;
    await _withFile(text, async (path) => {
      const fallbacks = csvWasmCounts.fallback;
      const general = await _streamed(path, { ...o, reader: "papaparse" }, 50_000);
      _same(general, await _streamed(path, o, 50_000), "late quote");
      assert.equal(csvWasmCounts.fallback, fallbacks + 1);
      assert.ok(general.ok && general.numRows === 800_002);
    });
  });
  // The kernel read files through, and fell back on others.
  assert.ok(csvWasmCounts.done > before.done && csvWasmCounts.fallback > before.fallback);
});
