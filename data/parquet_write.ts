/**
 * GLM row chunks → a Parquet file, streamed one row group at a time (the
 * library choice and its measured speed are in data/parquet.ts's module
 * comment).
 *
 * @module
 */
import { ByteWriter, ParquetWriter } from "npm:hyparquet-writer@0.17.0";
import { CSV_INTERCEPT_NAME } from "./csv.ts";
import type { Storage } from "./dataset.ts";
import type { ParquetRowChunk } from "./parquet_source.ts";

/** Options of {@link writeParquet}: what the chunks' columns are, and the file layout. */
export interface WriteParquetOptions {
  /**
   * Names of the chunks' X columns. A leading "(Intercept)" column is not
   * written (it is a column of ones that loading adds back).
   */
  columnNames: readonly string[];
  /** Name of the response column (written first). */
  responseName: string;
  /** Name of the chunks' `aux` column, written last when given. */
  auxName?: string;
  /** X columns as DOUBLE ("f64") or FLOAT ("f32"); y and aux are always DOUBLE. */
  storage: Storage;
  /** Rows per row group (default 100 000). */
  rowGroupSize?: number;
}

/** What {@link writeParquet} wrote. */
export interface ParquetWriteResult {
  /** Rows written. */
  numRows: number;
  /** Row groups written. */
  numRowGroups: number;
  /** Size of the file in bytes. */
  numBytes: number;
}

/**
 * Write row chunks to a Parquet file, streaming: rows are gathered into one
 * row group of `rowGroupSize` rows (column-major), encoded, appended to the
 * file and dropped, so memory holds one row group whatever the file's size.
 * Columns are REQUIRED (no nulls), snappy-compressed, with min/max
 * statistics; a leading "(Intercept)" column of X is left out. If a chunk
 * is refused, the partial file is removed.
 *
 * Needs write permission for `path`.
 *
 * @param path The file to create (or overwrite).
 * @param chunks Row chunks (sync or async), all with the same number of columns.
 * @param options `columnNames`, `responseName`, `auxName`, `storage`, `rowGroupSize`.
 * @returns Rows, row groups and bytes written.
 * @throws {RangeError} For a chunk of the wrong shape, a value that is not
 *   finite (or overflows f32), or bad options.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeParquet } from "./parquet_write.ts";
 * const path = await Deno.makeTempFile({ suffix: ".parquet" });
 * const chunk = { numRows: 2, x: new Float32Array([1, 0.5, 1, -1]), y: new Float64Array([1, 0]) };
 * const r = await writeParquet(path, [chunk], {
 *   columnNames: ["(Intercept)", "a"], responseName: "y", storage: "f32",
 * });
 * assert.equal(r.numRows, 2);
 * assert.equal(new TextDecoder().decode((await Deno.readFile(path)).subarray(0, 4)), "PAR1");
 * await Deno.remove(path);
 * ```
 */
export async function writeParquet(
  path: string | URL,
  chunks: AsyncIterable<ParquetRowChunk> | Iterable<ParquetRowChunk>,
  options: WriteParquetOptions,
): Promise<ParquetWriteResult> {
  const { columnNames, responseName, auxName, storage } = options;
  const rowGroupSize = options.rowGroupSize ?? 100_000;
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1) {
    throw new RangeError(`rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  }
  if (storage !== "f64" && storage !== "f32") {
    throw new TypeError(`storage must be "f64" or "f32", got ${JSON.stringify(storage)}`);
  }
  const numCols = columnNames.length;
  if (numCols === 0) throw new RangeError("columnNames must name at least one column");
  const skip = columnNames[0] === CSV_INTERCEPT_NAME ? 1 : 0;
  const xNames = columnNames.slice(skip);
  const names = [responseName, ...xNames, ...(auxName !== undefined ? [auxName] : [])];
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) {
      throw new RangeError(`column ${JSON.stringify(n)} appears twice (names must differ)`);
    }
    seen.add(n);
  }
  const where = `${path instanceof URL ? path.href : path}: `;
  const schema = [
    { name: "root", num_children: names.length },
    ...names.map((name, j) => ({
      name,
      type: j >= 1 && j <= xNames.length && storage === "f32" ? "FLOAT" : "DOUBLE",
      repetition_type: "REQUIRED",
    })),
  ];
  // Column-major buffers for one row group.
  const xCols = xNames.map(() =>
    storage === "f64" ? new Float64Array(rowGroupSize) : new Float32Array(rowGroupSize)
  );
  const yCol = new Float64Array(rowGroupSize);
  const auxCol = auxName !== undefined ? new Float64Array(rowGroupSize) : undefined;
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const writer = new ByteWriter(1 << 20);
    // Every row group is appended to the file and the buffer emptied.
    const flush = async () => {
      let bytes = writer.getBytes();
      while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
      writer.index = 0;
    };
    (writer as unknown as { flush: () => Promise<void> }).flush = flush;
    const pw = new ParquetWriter({
      writer,
      schema: schema as ConstructorParameters<typeof ParquetWriter>[0]["schema"],
    });
    let inGroup = 0, numRows = 0, numRowGroups = 0;
    const emit = async () => {
      if (inGroup === 0) return;
      const columnData = [
        { name: responseName, data: yCol.subarray(0, inGroup) },
        ...xNames.map((name, j) => ({ name, data: xCols[j].subarray(0, inGroup) })),
        ...(auxCol !== undefined ? [{ name: auxName!, data: auxCol.subarray(0, inGroup) }] : []),
      ];
      await pw.write({ columnData, rowGroupSize: inGroup });
      numRowGroups++;
      inGroup = 0;
    };
    for await (const c of chunks) {
      const m = c.numRows;
      if (!Number.isInteger(m) || m < 0 || c.x.length !== m * numCols || c.y.length !== m) {
        throw new RangeError(
          `${where}a chunk of ${m} rows must have x of ${m} × ${numCols} values and y of ${m}; got ${c.x.length} and ${c.y.length}`,
        );
      }
      if (auxCol !== undefined && (c.aux === undefined || c.aux.length !== m)) {
        throw new RangeError(
          `${where}aux column ${JSON.stringify(auxName)}: a chunk of ${m} rows has ${
            c.aux?.length ?? "no"
          } aux values`,
        );
      }
      for (let i = 0; i < m;) {
        const take = Math.min(m - i, rowGroupSize - inGroup);
        for (let r = 0; r < take; r++) {
          const row = i + r, dst = inGroup + r, o = row * numCols + skip;
          const v = c.y[row];
          if (!Number.isFinite(v)) _badWrite(where, responseName, numRows + row + 1, v);
          yCol[dst] = v;
          for (let j = 0; j < xNames.length; j++) {
            const xv = c.x[o + j];
            xCols[j][dst] = xv;
            if (!Number.isFinite(xCols[j][dst])) {
              _badWrite(where, xNames[j], numRows + row + 1, xv, storage);
            }
          }
          if (auxCol !== undefined) {
            const av = c.aux![row];
            if (!Number.isFinite(av)) _badWrite(where, auxName!, numRows + row + 1, av);
            auxCol[dst] = av;
          }
        }
        i += take;
        inGroup += take;
        if (inGroup === rowGroupSize) await emit();
      }
      numRows += m;
    }
    await emit();
    await pw.finish();
    await flush();
    return { numRows, numRowGroups, numBytes: (await file.stat()).size };
  } catch (e) {
    // No half-written file is left to be mistaken for data.
    await Deno.remove(path).catch(() => {});
    throw e;
  } finally {
    file.close();
  }
}

function _badWrite(where: string, name: string, row: number, v: number, storage?: Storage): never {
  throw new RangeError(
    Number.isFinite(v)
      ? `${where}row ${row}, column ${JSON.stringify(name)}: ${v} overflows ${storage} storage`
      : `${where}row ${row}, column ${JSON.stringify(name)}: values must be finite, got ${v}`,
  );
}
