/**
 * A GLM data set held in WebAssembly linear memory.
 *
 * ```
 *  x : numRows × numCols, row-major, f64 (8 bytes) or f32 (4 bytes) per cell
 *  y : numRows f64 responses
 * ```
 *
 * The arena owns the memory; a data set is a pair of byte offsets into it.
 *
 * @module
 */
import { type Arena, MAX_BYTES } from "../core/arena.ts";
import { f32Problem } from "./csv_checks.ts";

/** Storage type of the design matrix. */
export type Storage = "f64" | "f32";

/** A design matrix and response vector living in an {@link Arena}. */
export interface GlmData {
  /** The arena whose memory holds `x` and `y`. */
  readonly arena: Arena;
  /** Byte offset of X (row-major numRows × numCols). */
  readonly x: number;
  /** Byte offset of y (numRows f64). */
  readonly y: number;
  /** Number of rows n. */
  readonly numRows: number;
  /** Number of columns d of X (including an intercept column if any). */
  readonly numCols: number;
  /** Storage type of X; y is always f64. */
  readonly storage: Storage;
  /** One name per column of X. */
  readonly columnNames: readonly string[];
  /**
   * Problems found while loading that did not stop the load (see
   * `loadCsvToArena`): one sentence each, naming the column. Absent or empty
   * when there are none.
   */
  readonly warnings?: readonly string[];
}

/**
 * Copy a row-major design matrix and a response vector into the arena.
 *
 * @param arena The arena to allocate in.
 * @param x Row-major n × numCols values.
 * @param y n responses.
 * @param options `numCols` (required), `storage` ("f64" default), `columnNames`.
 * @returns The data set.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "./dataset.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, new Float64Array([1, 0.5, 1, -2]), new Float64Array([1, 0]), {
 *   numCols: 2,
 * });
 * if (data.numRows !== 2) throw new Error();
 * ```
 */
export function glmDataFromArrays(
  arena: Arena,
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  options: { numCols: number; storage?: Storage; columnNames?: readonly string[] },
): GlmData {
  const numCols = options.numCols;
  if (!Number.isInteger(numCols) || numCols <= 0) {
    throw new RangeError(`numCols must be a positive integer, got ${numCols}`);
  }
  if (x.length % numCols !== 0) {
    throw new RangeError(
      `x has ${x.length} values, which is not a multiple of numCols = ${numCols}`,
    );
  }
  const numRows = x.length / numCols;
  if (numRows === 0) throw new RangeError("the data set has no rows");
  if (y.length !== numRows) {
    throw new RangeError(`y must have one value per row (${numRows}), got ${y.length}`);
  }
  const storage = options.storage ?? "f64";
  const columnName = (j: number) =>
    options.columnNames?.[j] !== undefined ? ` (${JSON.stringify(options.columnNames[j])})` : "";
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) {
      throw new RangeError(
        `x has a non-finite value ${x[i]} at row ${Math.floor(i / numCols) + 1}, column ${
          (i % numCols) + 1
        }${columnName(i % numCols)}`,
      );
    }
    if (storage === "f32") {
      const why = f32Problem(x[i]);
      if (why !== null) {
        throw new RangeError(
          `x has the value ${x[i]} at row ${Math.floor(i / numCols) + 1}, column ${
            (i % numCols) + 1
          }${columnName(i % numCols)}, which ${why}`,
        );
      }
    }
  }
  for (let i = 0; i < numRows; i++) {
    if (!Number.isFinite(y[i])) {
      throw new RangeError(`y has a non-finite value ${y[i]} at row ${i + 1}`);
    }
  }
  const columnNames = options.columnNames ?? Array.from({ length: numCols }, (_, j) => `x${j}`);
  if (columnNames.length !== numCols) {
    throw new RangeError(`columnNames must have ${numCols} names, got ${columnNames.length}`);
  }
  checkRowsFit(arena, { numRows, numCols, storage }, "");
  const xPtr = storage === "f64" ? arena.allocF64(x.length) : arena.allocF32(x.length);
  const yPtr = arena.allocF64(numRows);
  if (storage === "f64") arena.f64(xPtr, x.length).set(x);
  else arena.f32(xPtr, x.length).set(x);
  arena.f64(yPtr, numRows).set(y);
  return { arena, x: xPtr, y: yPtr, numRows, numCols, storage, columnNames };
}

/**
 * A view of rows `[start, start + count)` of a data set: the same memory,
 * nothing copied (free only the original).
 *
 * @param data A data set.
 * @param start First row.
 * @param count Number of rows.
 * @returns The block as a data set of `count` rows.
 * @throws {RangeError} If the rows are not inside the data set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays, glmDataRows } from "./dataset.ts";
 * const arena = loadCore({ backend: "reference" });
 * const data = glmDataFromArrays(arena, [1, 2, 3, 4, 5, 6], [0, 1, 1], { numCols: 2 });
 * const tail = glmDataRows(data, 1, 2);
 * assert.deepEqual(Array.from(arena.readF64(tail.y, 2)), [1, 1]);
 * ```
 */
export function glmDataRows(data: GlmData, start: number, count: number): GlmData {
  if (
    !Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 1 ||
    start + count > data.numRows
  ) {
    throw new RangeError(
      `rows [${start}, ${start + count}) are not inside the data set's ${data.numRows} rows`,
    );
  }
  assertLiveGlmData(data, "glmDataRows");
  const view = {
    ...data,
    x: data.x + start * data.numCols * bytesPerCell(data.storage),
    y: data.y + start * 8,
    numRows: count,
  };
  _parentOf.set(view, _parentOf.get(data) ?? data);
  return view;
}

/** Data sets released by {@link freeGlmData}. */
const _freed = new WeakSet<GlmData>();
/** The data set a {@link glmDataRows} view reads. */
const _parentOf = new WeakMap<GlmData, GlmData>();

/**
 * Refuse a data set released by {@link freeGlmData} (or a view of one): its
 * memory may already hold another data set's rows.
 *
 * @param data The data set.
 * @param where Who uses it, for the message.
 * @throws {RangeError} `GlmModel: the data set was released by freeGlmData …`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { assertLiveGlmData, freeGlmData, glmDataFromArrays } from "./dataset.ts";
 * const data = glmDataFromArrays(loadCore({ backend: "reference" }), [1, 2], [0, 1], { numCols: 1 });
 * freeGlmData(data);
 * assert.throws(() => assertLiveGlmData(data, "GlmModel"), /released by freeGlmData/);
 * ```
 */
export function assertLiveGlmData(data: GlmData, where: string): void {
  if (_freed.has(data) || _freed.has(_parentOf.get(data) ?? data)) {
    throw new RangeError(
      `${where}: the data set was released by freeGlmData; its memory may now hold other rows (load it again)`,
    );
  }
}

/**
 * Release a data set's memory back to its arena.
 *
 * @param data The data set; using it afterwards (in a new model, or
 *   freeing it again) is a RangeError.
 * @throws {RangeError} For a data set already freed, or a view from
 *   {@link glmDataRows} (free the original).
 */
export function freeGlmData(data: GlmData): void {
  assertLiveGlmData(data, "freeGlmData");
  if (_parentOf.has(data)) {
    throw new RangeError(
      "freeGlmData: this is a view from glmDataRows; free the original data set",
    );
  }
  data.arena.free(data.x);
  data.arena.free(data.y);
  _freed.add(data);
}

/** Bytes per cell of X for a storage type. @param storage "f64" or "f32". @returns 8 or 4. */
export function bytesPerCell(storage: Storage): number {
  return storage === "f64" ? 8 : 4;
}

/**
 * The error of a table whose X and y cannot be held in the memory of one
 * arena (a wasm32 memory holds at most 4 GiB): raised by the loaders before
 * they allocate, with the sizes, so that a caller can say what to do instead.
 */
export class DataTooLargeError extends RangeError {
  /** Rows (an upper bound when `approximate`). */
  readonly numRows: number;
  /** Columns of X. */
  readonly numCols: number;
  /** X's storage. */
  readonly storage: Storage;
  /** Bytes X and y need. */
  readonly bytes: number;
  /** Bytes the arena has left. */
  readonly available: number;
  /** Whether `numRows` is an upper bound (a CSV file's line breaks). */
  readonly approximate: boolean;
  /**
   * The error for these sizes, its message naming them.
   *
   * @param where The message's prefix (the file), e.g. "data.csv: ".
   * @param sizes The rows, columns, storage, the bytes needed and available, and
   *   whether the rows are an upper bound.
   */
  constructor(
    where: string,
    sizes: {
      numRows: number;
      numCols: number;
      storage: Storage;
      bytes: number;
      available: number;
      approximate: boolean;
    },
  ) {
    const { numRows, numCols, storage, bytes, available, approximate } = sizes;
    const gb = (b: number) =>
      b >= 1e10
        ? `${(b / 1e9).toFixed(1)} GB`
        : b >= 1e9
        ? `${(b / 1e9).toFixed(2)} GB`
        : `${(b / 1e6).toFixed(1)} MB`;
    const xBytes = numRows * numCols * bytesPerCell(storage);
    super(
      `${where}${approximate ? "up to " : ""}${numRows} rows × ${numCols} columns need ${
        gb(bytes)
      } in memory (X as ${storage} ${gb(xBytes)}, y ${gb(bytes - xBytes)}), more than the ${
        gb(available)
      } left of the 4 GiB one WebAssembly memory holds` +
        (storage === "f64" ? ` (X as f32: ${gb(xBytes / 2)})` : ""),
    );
    this.name = "DataTooLargeError";
    this.numRows = numRows;
    this.numCols = numCols;
    this.storage = storage;
    this.bytes = bytes;
    this.available = available;
    this.approximate = approximate;
  }
}

/**
 * Throw a {@link DataTooLargeError} unless X (`numRows` × `numCols` in
 * `storage`) and y (f64) fit in what `arena` has left.
 *
 * @param arena The arena the loader is about to allocate in: its capacity and
 *   bytes in use (an attached arena that can extend its region: the 4 GiB).
 * @param sizes Rows (an upper bound if `approximate`), columns and storage.
 * @param where The message's prefix, e.g. "data.csv: ".
 * @returns Nothing.
 * @throws {DataTooLargeError} If they do not fit.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkRowsFit, DataTooLargeError } from "./dataset.ts";
 * const arena = { capacity: 2 ** 32, bytesInUse: 0 };
 * checkRowsFit(arena, { numRows: 1e7, numCols: 30, storage: "f32" }, "x.csv: ");
 * assert.throws(
 *   () => checkRowsFit(arena, { numRows: 1e8, numCols: 30, storage: "f32" }, "x.csv: "),
 *   DataTooLargeError,
 * );
 * ```
 */
export function checkRowsFit(
  arena: Pick<Arena, "capacity" | "bytesInUse"> & { readonly extendable?: boolean },
  sizes: { numRows: number; numCols: number; storage: Storage; approximate?: boolean },
  where: string,
): void {
  const { numRows, numCols, storage } = sizes;
  const bytes = numRows * numCols * bytesPerCell(storage) + numRows * 8;
  // An attached arena that can ask for more room is bounded only by the 4 GiB.
  const limit = arena.extendable === true ? MAX_BYTES : arena.capacity;
  const available = Math.max(0, limit - arena.bytesInUse);
  if (bytes > available) {
    throw new DataTooLargeError(where, {
      numRows,
      numCols,
      storage,
      bytes,
      available,
      approximate: sizes.approximate === true,
    });
  }
}
