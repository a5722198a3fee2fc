/**
 * The data layer of tallmc: numeric CSV files streamed into WebAssembly
 * memory, seeded synthetic data sets shaped like the papers' (HIGGS,
 * bankruptcy, Gaussian regression), MNIST 7 vs 9, B-spline bases, random
 * projections, PCA and standardisation.
 *
 * @example
 * ```ts
 * import { loadCore } from "../core/load.ts";
 * import { higgsShaped } from "./mod.ts";
 * const arena = loadCore({ backend: "reference" });
 * const { data } = higgsShaped(arena, { n: 100, seed: 1 });
 * console.log(data.numRows, data.numCols); // 100 30
 * ```
 *
 * @module
 */
// Re-exported so that the data API's signatures are documented in full.
export type { Arena } from "../core/arena.ts";
export type { CoreBackend } from "../core/load.ts";
export {
  bytesPerCell,
  freeGlmData,
  type GlmData,
  glmDataFromArrays,
  type Storage,
} from "./dataset.ts";
export {
  CSV_INTERCEPT_NAME,
  type CsvOptions,
  type CsvTable,
  type LoadCsvOptions,
  loadCsvToArena,
  parseCsvText,
} from "./csv.ts";
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
  loadMnist79,
  type LoadMnist79Options,
  type Mnist79,
  mnist79,
  type Mnist79Options,
  type Mnist79Pixels,
  MNIST_PIXELS,
} from "./mnist.ts";
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
