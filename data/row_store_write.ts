/**
 * Writing row stores: streamed from row chunks, or from GLM data in the
 * arena; the file appears by rename when complete.
 *
 * @module
 */
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "./dataset.ts";
import {
  checkMeta,
  encodeHeader,
  PAGE,
  rowBytesOf,
  type RowChunk,
  type RowStoreHeader,
  type RowStoreMeta,
  VERSION,
  writeAll,
} from "./row_store_format.ts";

/**
 * Write rows to a row store: chunks are encoded and streamed into
 * `path + ".partial"`, which is renamed to `path` when all are written (so a
 * store at `path` is always complete).
 *
 * @param path Where the store goes.
 * @param chunks Blocks of rows, in order.
 * @param meta Columns, storage, names and the optional source fingerprint.
 * @returns The header written.
 * @throws {RangeError} On a malformed chunk or a non-finite value (naming the row).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openRowStore, writeRowStore } from "./row_store.ts";
 * const path = await Deno.makeTempFile({ suffix: ".rows" });
 * const chunk = { numRows: 2, x: new Float64Array([1, 0.5, 1, -2]), y: new Float64Array([1, 0]) };
 * const h = await writeRowStore(path, [chunk], {
 *   numCols: 2, storage: "f64", columnNames: ["a", "b"], responseName: "y",
 * });
 * assert.equal(h.numRows, 2);
 * const store = openRowStore(path);
 * const x = new Float64Array(2), y = new Float64Array(1);
 * store.readRows(new Int32Array([1]), x, y);
 * assert.deepEqual([...x, ...y], [1, -2, 0]);
 * store.close();
 * await Deno.remove(path);
 * ```
 */
export async function writeRowStore(
  path: string,
  chunks: AsyncIterable<RowChunk> | Iterable<RowChunk>,
  meta: RowStoreMeta,
): Promise<RowStoreHeader> {
  checkMeta(meta);
  const d = meta.numCols, f32 = meta.storage === "f32", hasAux = meta.auxName !== undefined;
  const rowBytes = rowBytesOf(meta);
  const base: RowStoreHeader = {
    numCols: d,
    storage: meta.storage,
    columnNames: [...meta.columnNames],
    responseName: meta.responseName,
    ...(hasAux ? { auxName: meta.auxName } : {}),
    ...(meta.source ? { source: { ...meta.source } } : {}),
    numRows: 0,
    rowBytes,
    dataOffset: PAGE,
    version: VERSION,
  };
  // Room for the JSON with any numRows (up to 16 digits).
  const jsonLen = new TextEncoder().encode(JSON.stringify({ ...base, numRows: 1e16 })).length;
  base.dataOffset = Math.ceil((16 + jsonLen) / PAGE) * PAGE;
  const partial = path + ".partial";
  let numRows = 0;
  const file = await Deno.open(partial, { write: true, create: true, truncate: true });
  try {
    await writeAll(file, new Uint8Array(base.dataOffset));
    let staging = new Uint8Array(0);
    for await (const chunk of chunks as AsyncIterable<RowChunk>) {
      const m = chunk.numRows;
      if (!Number.isInteger(m) || m < 0) {
        throw new RangeError(`chunk numRows must be a non-negative integer, got ${m}`);
      }
      if (chunk.x.length !== m * d || chunk.y.length !== m) {
        throw new RangeError(
          `a chunk of ${m} rows needs x of ${
            m * d
          } and y of ${m} values, got ${chunk.x.length} and ${chunk.y.length} (rows from ${numRows} on, writing ${path})`,
        );
      }
      if (hasAux !== (chunk.aux !== undefined) || (chunk.aux && chunk.aux.length !== m)) {
        throw new RangeError(
          hasAux
            ? `meta names aux column "${meta.auxName}", so every chunk needs aux of ${m} values (rows from ${numRows} on)`
            : `a chunk has aux values but meta names no auxName (rows from ${numRows} on)`,
        );
      }
      if (staging.length < m * rowBytes) staging = new Uint8Array(m * rowBytes);
      const v = new DataView(staging.buffer);
      for (let i = 0; i < m; i++) {
        let o = i * rowBytes;
        for (let j = 0; j < d; j++) {
          const val = chunk.x[i * d + j];
          if (!Number.isFinite(val)) {
            throw new RangeError(
              `x has a non-finite value ${val} at row ${numRows + i}, column ${
                meta.columnNames[j]
              } (writing ${path})`,
            );
          }
          if (f32) {
            v.setFloat32(o, val, true);
            o += 4;
          } else {
            v.setFloat64(o, val, true);
            o += 8;
          }
        }
        const yi = chunk.y[i];
        if (!Number.isFinite(yi)) {
          throw new RangeError(
            `y has a non-finite value ${yi} at row ${numRows + i} (writing ${path})`,
          );
        }
        v.setFloat64(o, yi, true);
        if (chunk.aux) {
          const ai = chunk.aux[i];
          if (!Number.isFinite(ai)) {
            throw new RangeError(
              `${meta.auxName} has a non-finite value ${ai} at row ${
                numRows + i
              } (writing ${path})`,
            );
          }
          v.setFloat64(o + 8, ai, true);
        }
      }
      await writeAll(file, staging.subarray(0, m * rowBytes));
      numRows += m;
    }
    const header = { ...base, numRows };
    await file.seek(0, Deno.SeekMode.Start);
    await writeAll(file, encodeHeader(header));
    file.close();
    await Deno.rename(partial, path);
    return header;
  } catch (e) {
    try {
      file.close();
    } catch { /* already closed */ }
    await Deno.remove(partial).catch(() => {});
    throw e;
  }
}

/**
 * Write the rows of an in-memory data set to a row store (for tests and for
 * handing a data set to workers that read it by range).
 *
 * @param path Where the store goes.
 * @param data The data set.
 * @param options `responseName` (default "y"), an `aux` column with its `auxName`, `chunkRows`.
 * @returns The header written.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "./dataset.ts";
 * import { openRowStore, writeRowStoreFromGlmData } from "./row_store.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 2, 3, 4], [0, 1], { numCols: 2, storage: "f32" });
 * const path = await Deno.makeTempFile({ suffix: ".rows" });
 * await writeRowStoreFromGlmData(path, data);
 * const store = openRowStore(path);
 * assert.equal(store.header.rowBytes, 2 * 4 + 8);
 * store.close();
 * await Deno.remove(path);
 * ```
 */
export function writeRowStoreFromGlmData(
  path: string,
  data: GlmData,
  options: {
    responseName?: string;
    aux?: ArrayLike<number>;
    auxName?: string;
    chunkRows?: number;
  } = {},
): Promise<RowStoreHeader> {
  const n = data.numRows, d = data.numCols;
  const chunkRows = options.chunkRows ?? 65536;
  if (options.aux !== undefined && options.aux.length !== n) {
    throw new RangeError(`aux must have one value per row (${n}), got ${options.aux.length}`);
  }
  const aux = options.aux;
  function* chunks(): Iterable<RowChunk> {
    for (let s = 0; s < n; s += chunkRows) {
      const m = Math.min(chunkRows, n - s);
      const v = dataViews(data); // fresh each chunk: memory may grow between yields
      yield {
        numRows: m,
        x: v.x.slice(s * d, (s + m) * d),
        y: v.y.slice(s, s + m),
        ...(aux ? { aux: Float64Array.from({ length: m }, (_, i) => aux[s + i]) } : {}),
      };
    }
  }
  return writeRowStore(path, chunks(), {
    numCols: d,
    storage: data.storage,
    columnNames: [...data.columnNames],
    responseName: options.responseName ?? "y",
    ...(aux ? { auxName: options.auxName ?? "aux" } : {}),
  });
}
