/**
 * `tallmc convert IN OUT`: numeric tables between CSV and Parquet, and from
 * either to the fixed-width row store that out-of-core samplers gather rows
 * from, streamed.
 *
 * ```
 *  IN.csv ──openCsvRows──────┐                 ┌──► writeParquet   OUT.parquet
 *                            ├── row chunks ───┤
 *  IN.parquet ──openParquetRows┘  (checked)     ├──► CSV text       OUT.csv
 *                                               └──► writeRowStore  OUT.rows
 * ```
 *
 * The formats come from the extensions (`.parquet`; anything else is read
 * as CSV; `.csv` or `.rows` written). Rows pass through in blocks (a Parquet row group,
 * or `--row-group` CSV rows), so memory holds one block whatever the file's
 * size. Every cell gets the checks of loading (finite, |x| ≤ 10¹⁰⁰, the
 * response in `--family`'s domain), so a converted file loads without
 * errors. Tables are written as the response column first, then the
 * covariates (the intercept is not a column of the file: loading adds it).
 * A row store holds the design matrix itself — the intercept column
 * included unless `--no-intercept` — with the input's fingerprint (path,
 * size, modification time, digest), so that a store gone stale after its
 * source changed is detected.
 *
 * @module
 */
import { openCsvRows } from "../data/csv.ts";
import type { Storage } from "../data/dataset.ts";
import { openParquetRows, type ParquetRowChunk } from "../data/parquet.ts";
import { writeParquet } from "../data/parquet_write.ts";
import { fingerprintFile } from "../data/row_store_format.ts";
import { writeRowStore } from "../data/row_store_write.ts";
import { compressors as parquetDecompressors } from "npm:hyparquet-compressors@1.1.2";
import { loadCore } from "../core/load.ts";
import { CliUsageError, intFlag, parseFlags, resolveUserPath } from "./args.ts";
import { binaryKind, headBytes } from "./file_kind.ts";
import { AtomicOutput, checkWritable, isSameFile, refuseSameFile } from "./safe_output.ts";
import { csvField } from "../data/column_names.ts";

/** The `convert --help` text. */
export const CONVERT_HELP = `Usage: tallmc convert IN OUT --response COL [options]

Convert a numeric table between CSV and Parquet, streamed (one block of rows in
memory at a time), with the checks of "tallmc sample --data": every cell finite,
the response in the family's domain. The format is taken from each file's
extension: .parquet, or CSV (with a header row) for anything else; OUT must end
in .parquet, .csv or .rows. Written tables hold the response column first, then
the covariates; "sample --data OUT" then reads them as it reads IN. A .rows file
is the fixed-width binary row store out-of-core samplers gather rows from: the
design matrix (intercept first) and y, with the input's fingerprint.

Options:
  --response COL   the response column (required)
  --columns A,B,…  covariate columns, in order (default: every other column)
  --family F       logistic | gaussian | poisson: check the response's domain
                   (default gaussian: any finite number)
  --storage S      f64 (default) or f32: covariates as Parquet DOUBLE or FLOAT
  --row-group N    rows per Parquet row group (default 100000)
  --no-intercept   .rows: no column of ones in front of the covariates
  -h, --help       this help

Examples:
  tallmc convert data.csv data.parquet --response y --storage f32
  tallmc convert data.parquet back.csv --response y
  tallmc convert data.parquet data.rows --response y --storage f32`;

/** Options of {@link convertTable}. */
export interface ConvertOptions {
  /** The response column. */
  response: string;
  /** Covariate columns, in order (default: every other column). */
  columns?: readonly string[];
  /** Family whose response domain is checked (default "gaussian": finite). */
  family?: "logistic" | "gaussian" | "poisson";
  /** Covariates as f64 (default) or f32. */
  storage?: Storage;
  /** Rows per Parquet row group, and per block read from CSV (default 100 000). */
  rowGroupSize?: number;
  /** A row store's X starts with a column of ones (default true; tables never hold it). */
  intercept?: boolean;
  /**
   * Told the temporary file the output is written to (beside it, renamed
   * into place when complete), then null once it is renamed or removed: a
   * caller that is stopped meanwhile removes it.
   */
  onTempFile?: (path: string | null) => void;
}

/** What {@link convertTable} wrote. */
export interface ConvertResult {
  /** Rows written. */
  numRows: number;
  /** Columns of X written (besides the response); a row store's start with "(Intercept)". */
  columnNames: readonly string[];
  /** Size of the output in bytes. */
  numBytes: number;
  /** Warnings of the input's checks (constant or extreme columns, …). */
  warnings: readonly string[];
}

/** The format of a path, from its extension. */
function _format(path: string): "parquet" | "csv" {
  return /\.parquet$/i.test(path) ? "parquet" : "csv";
}

/**
 * Convert a table between CSV and Parquet, streamed (see the module doc).
 *
 * Needs read permission for `input` and write permission for `output`.
 *
 * @param input The input file (.parquet, or CSV).
 * @param output The output file (.parquet or .csv).
 * @param options `response`, `columns`, `family`, `storage`, `rowGroupSize`.
 * @returns Rows, columns and bytes written, and the input's warnings.
 * @throws {RangeError} For bad data (naming file, column, row) or paths.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { convertTable } from "./convert_command.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.csv`, "a,y\n0.5,1\n-1,0\n");
 * await convertTable(`${dir}/a.csv`, `${dir}/a.parquet`, { response: "y" });
 * await convertTable(`${dir}/a.parquet`, `${dir}/b.csv`, { response: "y" });
 * assert.equal(await Deno.readTextFile(`${dir}/b.csv`), "y,a\n1,0.5\n0,-1\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function convertTable(
  input: string,
  output: string,
  options: ConvertOptions,
): Promise<ConvertResult> {
  const outFormat = /\.parquet$/i.test(output)
    ? "parquet"
    : /\.csv$/i.test(output)
    ? "csv"
    : /\.rows$/i.test(output)
    ? "rows"
    : null;
  if (outFormat === null) {
    throw new RangeError(
      `the output ${
        JSON.stringify(output)
      } must end in .parquet, .csv or .rows (the format is taken from the extension)`,
    );
  }
  if (isSameFile(input, output) || resolveUserPath(input) === resolveUserPath(output)) {
    throw new RangeError(
      `the output ${output} is the input file ${input} (compared by device and inode, so ` +
        `also through a symlink or a hard link); writing it would destroy the input; give another path`,
    );
  }
  if (_format(input) === "csv") {
    const head = headBytes(input);
    const kind = head === null ? null : binaryKind(head);
    if (kind !== null) {
      throw new RangeError(
        `the input ${input} is ${kind}, not CSV text${
          /Parquet/.test(kind) ? "; name it with the extension .parquet to read it as Parquet" : ""
        }`,
      );
    }
  }
  const storage = options.storage ?? "f64";
  const rowGroupSize = options.rowGroupSize ?? 100_000;
  const loadOptions = {
    response: options.response,
    family: options.family ?? "gaussian",
    columns: options.columns,
    intercept: outFormat === "rows" && (options.intercept ?? true),
    storage,
  } as const;
  const rows = _format(input) === "parquet"
    ? await openParquetRows(
      input,
      { ...loadOptions, compressors: parquetDecompressors },
      loadCore(),
    )
    : await openCsvRows(input, { ...loadOptions, chunkRows: rowGroupSize });
  const columnNames = rows.columnNames;
  let numRows = 0, numBytes = 0;
  // Written beside the target under a temporary name (with the same
  // extension), renamed into place when complete: a failed or killed
  // conversion never leaves a partial file under the output's name.
  let atomic: AtomicOutput;
  try {
    atomic = AtomicOutput.create(output, `.${outFormat}`);
  } catch (e) {
    rows.close();
    throw e;
  }
  atomic.file?.close();
  atomic.file = null;
  const tmp = atomic.tempPath;
  options.onTempFile?.(atomic.tempPath);
  let complete = false;
  try {
    if (outFormat === "parquet") {
      const r = await writeParquet(tmp, rows, {
        columnNames,
        responseName: rows.responseName,
        storage,
        rowGroupSize,
      });
      numRows = r.numRows;
      numBytes = r.numBytes;
    } else if (outFormat === "rows") {
      const source = await fingerprintFile(input);
      const header = await writeRowStore(tmp, rows, {
        numCols: columnNames.length,
        storage,
        columnNames: [...columnNames],
        responseName: rows.responseName,
        source,
      });
      numRows = header.numRows;
      numBytes = (await Deno.stat(tmp)).size;
    } else {
      numRows = await _writeCsv(tmp, rows, rows.responseName, columnNames);
      numBytes = (await Deno.stat(tmp)).size;
    }
    atomic.commit();
    complete = true;
  } finally {
    rows.close();
    if (!complete) {
      atomic.discard();
      await Deno.remove(`${atomic.tempPath}.partial`).catch(() => {});
    }
    options.onTempFile?.(null);
  }
  return { numRows, columnNames, numBytes, warnings: rows.warnings };
}

/** Writes chunks as CSV text (shortest round-trip number format); returns the row count. */
async function _writeCsv(
  path: string,
  chunks: AsyncIterable<ParquetRowChunk>,
  responseName: string,
  columnNames: readonly string[],
): Promise<number> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  const write = async (text: string) => {
    let bytes = enc.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
  };
  await write([responseName, ...columnNames].map(csvField).join(",") + "\n");
  const d = columnNames.length;
  let numRows = 0;
  for await (const c of chunks) {
    const lines: string[] = [];
    for (let i = 0; i < c.numRows; i++) {
      let line = String(c.y[i]);
      for (let j = 0, o = i * d; j < d; j++) line += "," + String(c.x[o + j]);
      lines.push(line);
      if (lines.length === 8192) {
        await write(lines.join("\n") + "\n");
        lines.length = 0;
      }
    }
    if (lines.length > 0) await write(lines.join("\n") + "\n");
    numRows += c.numRows;
  }
  return numRows;
}

/**
 * Run `tallmc convert`.
 *
 * @param args The arguments after `convert`.
 * @returns The exit code (0).
 * @throws {CliUsageError} For bad flags or data (exit code 2).
 */
export async function convertCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags("convert", args, {
    flags: {
      response: { type: "string" },
      columns: { type: "string" },
      family: { type: "string" },
      storage: { type: "string" },
      "row-group": { type: "string" },
      "no-intercept": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    maxPositionals: 2,
  });
  if (values.help) {
    console.log(CONVERT_HELP);
    return 0;
  }
  if (positionals.length < 2) {
    throw new CliUsageError(
      `convert needs an input and an output file, got ${positionals.length} (see tallmc convert --help)`,
    );
  }
  if (values.response === undefined) {
    throw new CliUsageError("convert needs --response (see tallmc convert --help)");
  }
  const family = (values.family as string | undefined) ?? "gaussian";
  if (family !== "logistic" && family !== "gaussian" && family !== "poisson") {
    throw new CliUsageError(
      `--family must be logistic, gaussian or poisson, got ${JSON.stringify(family)}`,
    );
  }
  const storage = (values.storage as string | undefined) ?? "f64";
  if (storage !== "f64" && storage !== "f32") {
    throw new CliUsageError(`--storage must be f64 or f32, got ${JSON.stringify(storage)}`);
  }
  const rowGroupSize = intFlag(values["row-group"], {
    flag: "row-group",
    default: 100_000,
    min: 1,
    max: 1 << 24,
  });
  const [input, output] = positionals.map(resolveUserPath);
  if (!/\.(parquet|csv|rows)$/i.test(output)) {
    throw new CliUsageError(
      `the output ${output} must end in .parquet, .csv or .rows (the format is taken from the extension)`,
    );
  }
  if (values["no-intercept"] && !/\.rows$/i.test(output)) {
    throw new CliUsageError(
      "--no-intercept applies to .rows output only (tables never hold the intercept column)",
    );
  }
  refuseSameFile({ path: output, flag: "the output" }, [{ path: input, flag: "input" }]);
  checkWritable(output, "the output");
  // A signal removes the temporary file: the output is never left half-written.
  let temp: string | null = null;
  const onSignal = (name: string, code: number) => () => {
    if (temp !== null) {
      try {
        Deno.removeSync(temp);
      } catch {
        // not created yet, or gone
      }
      try {
        Deno.removeSync(`${temp}.partial`);
      } catch {
        // only a row store writes one
      }
    }
    console.error(`tallmc: stopped by ${name}: ${output} was not written`);
    Deno.exit(code);
  };
  const listeners: [Deno.Signal, () => void][] = [
    ["SIGINT", onSignal("SIGINT", 130)],
    ["SIGTERM", onSignal("SIGTERM", 143)],
  ];
  for (const [sig, f] of listeners) {
    try {
      Deno.addSignalListener(sig, f);
    } catch {
      // a platform without this signal
    }
  }
  const t0 = performance.now();
  let r: ConvertResult;
  try {
    r = await convertTable(input, output, {
      onTempFile: (path) => (temp = path),
      response: values.response as string,
      columns: values.columns === undefined
        ? undefined
        : (values.columns as string).split(",").map((s) => s.trim()),
      family,
      storage,
      rowGroupSize,
      intercept: !values["no-intercept"],
    });
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    const msg = e.message;
    throw new CliUsageError(msg.includes(input) || msg.includes(output) ? msg : `${input}: ${msg}`);
  } finally {
    for (const [sig, f] of listeners) {
      try {
        Deno.removeSignalListener(sig, f);
      } catch {
        // never added
      }
    }
  }
  for (const w of r.warnings) console.error(`tallmc: warning: ${w}`);
  console.log(
    `wrote ${output}: ${r.numRows} rows, response + ${r.columnNames.length} columns, ${r.numBytes} bytes in ${
      ((performance.now() - t0) / 1000).toFixed(2)
    } s`,
  );
  return 0;
}
