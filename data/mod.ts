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
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export {
  assertLiveGlmData,
  bytesPerCell,
  freeGlmData,
  type GlmData,
  glmDataFromArrays,
  type Storage,
} from "./dataset.ts";
export {
  CSV_INTERCEPT_NAME,
  type CsvOptions,
  type CsvRowChunk,
  type CsvRows,
  type CsvTable,
  type LoadCsvOptions,
  loadCsvToArena,
  openCsvRows,
  parseCsvText,
} from "./csv.ts";
export {
  type FormulaParquetOptions,
  loadParquet,
  loadParquetWithFormula,
  openParquetRows,
  type ParquetDecompressors,
  type ParquetOptions,
  type ParquetRowChunk,
  parquetRowChunks,
  type ParquetRows,
  type ParquetSource,
  type ParquetWriteResult,
  writeParquet,
  type WriteParquetOptions,
} from "./parquet.ts";
export { type Formula, parseFormula } from "./formula.ts";
export { cellNumber, detectDelimiter, RESERVED_COLUMN_NAMES } from "./csv_checks.ts";
export {
  buildDesign,
  columnMoments,
  type ColumnTable,
  type Design,
  type DesignInfo,
  type DesignOptions,
  type FormulaCsvOptions,
  type FormulaData,
  loadCsvWithFormula,
  parseColumnTable,
  parseCsvWithFormula,
  type ResponseCoding,
} from "./design.ts";
export {
  bankruptcyShaped,
  type BankruptcyShapedOptions,
  gaussianLinearRegression,
  type GaussianLinearRegressionOptions,
  higgsShaped,
  type HiggsShapedOptions,
  INTERCEPT_NAME,
  type SyntheticBankruptcy,
  type SyntheticGaussian,
  type SyntheticGlm,
} from "./synthetic.ts";
export {
  bsplineBasis,
  type BsplineBasisOptions,
  quantileKnots,
  type QuantileKnotsOptions,
} from "./bspline.ts";
export {
  applyProjection,
  type PcaOptions,
  pcaProjection,
  type Projection,
  randomProjection,
  type RandomProjectionOptions,
  standardize,
  type Standardized,
  type StandardizeOptions,
} from "./projection.ts";
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
