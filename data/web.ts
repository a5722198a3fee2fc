/**
 * The data layer without file access: what a page, a worker or an edge
 * runtime can use (data sets built from arrays or text, formulas, designs,
 * synthetic data, bases and projections). File readers (`loadCsvToArena`,
 * Parquet, row stores) are in ./mod.ts, for Deno.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { parseCsvWithFormula } from "./web.ts";
 * const d = parseCsvWithFormula("y,x\n1,0.5\n0,-1\n1,2\n", { formula: "y ~ x" });
 * assert.equal(d.numRows, 3);
 * ```
 *
 * @module
 */
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export {
  bytesPerCell,
  checkRowsFit,
  DataTooLargeError,
  freeGlmData,
  type GlmData,
  glmDataFromArrays,
  type Storage,
} from "./dataset.ts";
export { CSV_INTERCEPT_NAME, type CsvOptions, type CsvTable, parseCsvText } from "./csv.ts";
export { type Formula, parseFormula } from "./formula.ts";
export {
  buildDesign,
  columnMoments,
  type ColumnTable,
  type Design,
  type DesignInfo,
  type DesignOptions,
  type FormulaData,
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
