/**
 * The checks of a CSV load (data/csv.ts) that do not need the parser: the
 * options, the path, the extreme-value limits {@link EXTREME_ABS} and
 * {@link EXTREME_RATIO}, and the data-load warnings computed from the
 * per-column ranges once every row is in. The rules themselves are described
 * in csv.ts's module doc.
 *
 * @module
 */
import type { CsvOptions } from "./csv.ts";

/** Cells with a magnitude above this are refused (see the module doc). */
export const EXTREME_ABS = 1e100;

/**
 * A covariate whose largest magnitude exceeds this many times
 * max(1, the median of the columns' largest magnitudes) draws a warning.
 */
export const EXTREME_RATIO = 1e6;

/** The per-column summary of a loaded table that {@link csvDataWarnings} reads. */
export interface CsvColumnSummary {
  /** Message prefix naming the input ("" or "file.csv: "). */
  where: string;
  /** The GLM family. */
  family: CsvOptions["family"];
  /** Whether X starts with the intercept column. */
  intercept: boolean;
  /** Name of the response column. */
  responseName: string;
  /** Names of the columns of X. */
  columnNames: string[];
  /** Number of data rows. */
  numRows: number;
  /** Number of columns of X. */
  numCols: number;
  /** Smallest value per column of X. */
  colMin: Float64Array;
  /** Largest value per column of X. */
  colMax: Float64Array;
  /** Smallest response. */
  yMin: number;
  /** Largest response. */
  yMax: number;
}

/**
 * The warnings of the csv.ts module doc (extreme covariates, a large Gaussian
 * response, a constant response or covariate, fewer rows than columns), from
 * the per-column ranges.
 *
 * @param s The table's per-column summary.
 * @returns The warnings, in that order (empty if none).
 */
export function csvDataWarnings(s: CsvColumnSummary): string[] {
  const out: string[] = [];
  const w = s.where;
  const resp = JSON.stringify(s.responseName);
  const n = s.numRows;
  if (n > 1 && s.yMin === s.yMax) {
    out.push(
      `${w}the response ${resp} is ${s.yMin} in every one of the ${n} rows; the data ` +
        `cannot locate the coefficients (the posterior follows the prior)`,
    );
  }
  if (s.family === "gaussian") {
    const big = Math.max(-s.yMin, s.yMax);
    if (big > EXTREME_RATIO) {
      out.push(
        `${w}the response ${resp} reaches ${big}; rescale or standardise it so that the ` +
          `default priors and step sizes fit`,
      );
    }
  }
  const first = s.intercept ? 1 : 0;
  const maxAbs: number[] = [];
  for (let k = 0; k < s.numCols; k++) {
    maxAbs.push(Math.max(-s.colMin[k], s.colMax[k]));
  }
  const sorted = maxAbs.filter((v) => v > 0).sort((a, b) => a - b);
  const median = sorted.length === 0
    ? 1
    : sorted.length % 2 === 1
    ? sorted[(sorted.length - 1) / 2]
    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  const limit = EXTREME_RATIO * Math.max(1, median);
  for (let k = first; k < s.numCols; k++) {
    const name = JSON.stringify(s.columnNames[k]);
    if (maxAbs[k] > limit) {
      out.push(
        `${w}column ${name} has values up to ${
          maxAbs[k]
        } in magnitude, more than ${EXTREME_RATIO.toExponential()} times the typical column (${median}); standardise the columns (e.g. with ` +
          `standardize()) or rescale ${name}, or HMC will need a step size too small for ` +
          `the other coefficients`,
      );
    }
    if (s.intercept && n > 1 && s.colMin[k] === s.colMax[k]) {
      out.push(
        `${w}column ${name} is ${s.colMin[k]} in every row; next to the intercept its ` +
          `coefficient is not identified by the data`,
      );
    }
  }
  if (n < s.numCols) {
    out.push(
      `${w}only ${n} data row${n === 1 ? "" : "s"} for ${s.numCols} columns of X; the ` +
        `coefficients are identified by the prior alone`,
    );
  }
  return out;
}

/** Refuses options without a known family, a response, or with a bad delimiter. */
export function checkCsvOptions(options: CsvOptions): void {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`options must be an object with response and family, got ${options}`);
  }
  const { family } = options;
  if (family !== "logistic" && family !== "gaussian" && family !== "poisson") {
    throw new TypeError(
      `family must be "logistic", "gaussian" or "poisson", got ${JSON.stringify(family)}`,
    );
  }
  if (typeof options.response !== "string" && typeof options.response !== "number") {
    throw new TypeError(
      `response must be a column name or a 0-based index, got ${JSON.stringify(options.response)}`,
    );
  }
  const delimiter = options.delimiter ?? ",";
  if (typeof delimiter !== "string" || delimiter.length === 0 || /["\r\n]/.test(delimiter)) {
    throw new TypeError(
      `delimiter must be a non-empty string without quotes or line breaks, got ${
        JSON.stringify(delimiter)
      }`,
    );
  }
}

/**
 * Refuses a path that does not exist, cannot be read or is a directory with
 * a message naming it (the file system's own errors name neither the file
 * nor the option).
 */
export async function checkCsvFile(path: string | URL, where: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new RangeError(`${where}no such file`, { cause: e });
    }
    if (e instanceof Deno.errors.PermissionDenied) {
      throw new RangeError(`${where}the file cannot be read (permission denied)`, { cause: e });
    }
    throw e;
  }
  if (info.isDirectory) {
    throw new TypeError(`${where}is a directory, not a CSV file; give the path of the file`);
  }
}
