/**
 * The data layer of tallmc: numeric CSV and Parquet files streamed into
 * WebAssembly memory (or row group by row group to a consumer), seeded synthetic data sets shaped like the papers' (HIGGS,
 * bankruptcy, Gaussian regression), B-spline bases, random projections, PCA
 * and standardisation. MNIST 7 vs 9 has its own entry point, `data/mnist.ts`,
 * so that importing the library does not load the 41 MB digit files.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "./mod.ts";
 * const arena = loadCore({ backend: "reference" });
 * const { data } = higgsShaped(arena, { n: 100, seed: 1 });
 * assert.equal(data.numRows, 100);
 * assert.equal(data.numCols, 30);
 * ```
 *
 * @module
 */
// Re-exported so that the data API's signatures are documented in full.
// Everything without file access is in ./web.ts (the package's browser /
// edge entry); this module adds the file readers and writers.
export * from "./web.ts";
export { assertLiveGlmData } from "./dataset.ts";
export {
  type CsvRowChunk,
  type CsvRows,
  type LoadCsvOptions,
  loadCsvToArena,
  openCsvRows,
} from "./csv.ts";
export {
  type FormulaParquetOptions,
  loadParquet,
  loadParquetWithFormula,
  openParquetRows,
  parquetColumnTable,
  type ParquetDecompressors,
  type ParquetOptions,
  type ParquetRowChunk,
  parquetRowChunks,
  type ParquetRows,
  type ParquetSource,
} from "./parquet.ts";
export {
  type ParquetWriteResult,
  writeParquet,
  type WriteParquetOptions,
} from "./parquet_write.ts";
export { cellNumber, detectDelimiter, RESERVED_COLUMN_NAMES } from "./csv_checks.ts";
export { type FormulaCsvOptions, loadCsvWithFormula } from "./design.ts";
export {
  fingerprintFile,
  openRowStore,
  type RowChunk,
  RowStore,
  type RowStoreHeader,
  type RowStoreMeta,
  type SourceFingerprint,
  StagedRows,
  writeRowStore,
  writeRowStoreFromGlmData,
} from "./row_store.ts";
export { type DrawsTable, formatDrawsCsv, parseDrawsCsv } from "./draws_csv.ts";
