/**
 * A GLM whose rows stay where a SQL engine holds them (DuckDB, PostgreSQL,
 * ClickHouse): an {@link ExternalGlmModel} over a {@link DatabaseRowSource}.
 *
 * ```
 *  engine entry point (engines/)           this module (models/)
 *  openDuckDbRows / openDatabaseRows  ──►  DatabaseRowSource ──► databaseGlmModel(source, glm)
 *  (a worker holds the connection)         fetchRows(keys)        readRows(indices), per-row terms
 *                                          sums(θ, family)        controlVariateSums, logLikelihood
 * ```
 *
 * The row source is the engine's part: it holds the connection, fetches rows
 * by key and runs the full-data sums as one SQL aggregate; its methods are
 * synchronous (the engine answers in a worker and the caller waits with
 * `Atomics.wait`). This module is the model's part: the family, the prior
 * (`GlmModel`'s own, checked over the first row), the batching and
 * de-duplication of row reads, per-row evaluations over the fetched rows
 * with the in-memory kernels, and the fetch counters. It imports no engine:
 * `defineModel({ likelihood, rows: { database: source } })`
 * (models/compose.ts) builds the model from a source an engine's entry
 * point opened, so neither `mod.ts` nor `models/` loads a driver or a
 * native addon.
 *
 * Row k of the model is the row whose key column holds `keyBase + k`.
 * Values are exact (the engines cast every column to a double and hand back
 * doubles unchanged), so for the same rows, centring and seed HMC-ECS draws
 * what it draws on the in-memory model (`models/in_memory_external.ts`),
 * bit for bit; the full-data sums differ from the in-memory ones only by the
 * summation order (docs/databases.md).
 *
 * References: docs/architecture.md, "Data beyond memory"; docs/databases.md.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { freeGlmData, glmDataFromArrays } from "../data/dataset.ts";
import type { ExternalGlmModel } from "./external_glm.ts";
import { GlmModel, type GlmOptions } from "./glm.ts";
import { type CostCounter, logPosteriorAndGradient, newCostCounter } from "./model.ts";

/** The families whose full-data sums the engines' SQL computes for a row source. */
export type DatabaseGlmFamily = "logistic" | "poisson" | "gaussian";

/** {@link DatabaseGlmFamily}'s values: the families whose control variates expand in η. */
export const DATABASE_GLM_FAMILIES: readonly DatabaseGlmFamily[] = [
  "logistic",
  "poisson",
  "gaussian",
];

/**
 * Rows held by a SQL engine and fetched by key, as an engine's entry point
 * opens them (`openDuckDbRows` in engines/duckdb.ts, `openDatabaseRows` in
 * engines/database_glm.ts). Every method is synchronous. A model built over
 * it ({@link databaseGlmModel}, `defineModel`) owns it: the model's
 * `close()` closes it (a call that fails closes it too). One source serves
 * one model.
 */
export interface DatabaseRowSource {
  /** Marks the interface (`defineModel` recognises a row source by it). */
  readonly isDatabaseRowSource: true;
  /** Where the rows are, for messages: `table T at URL` (password as `***`). */
  readonly where: string;
  /** The connection with any password replaced by `***`. */
  readonly label: string;
  /** Number of rows n. */
  readonly numRows: number;
  /** The smallest key (row 0): row k has key `keyBase + k`. */
  readonly keyBase: number;
  /** The columns of X in the order of θ (after the intercept, if any). */
  readonly columns: readonly string[];
  /** Whether θ[0] is an intercept (an implicit column of ones). */
  readonly intercept: boolean;
  /** Most keys one {@link DatabaseRowSource.fetchRows} call takes. */
  readonly batchRows: number;
  /**
   * The rows of `keys` (distinct, at most `batchRows`): for key i, its
   * columns then its response, `columns.length + 1` values from
   * `out[i · (columns.length + 1)]`.
   */
  fetchRows(keys: Float64Array, out: Float64Array): void;
  /**
   * One full-data pass as one SQL aggregate at `theta`: returns n and
   * S = Σₖ ℓₖ(θ), writes A = Σₖ ∇ℓₖ(θ) into `grad` and, when given,
   * B = Σₖ ∇²ℓₖ(θ) into `hess` (d × d, row-major). Sums that overflow at
   * `theta` (exp(η) of a θ far from the data) come back as NaN, n included.
   */
  sums(
    theta: Float64Array,
    family: { family: DatabaseGlmFamily; sigma?: number },
    grad: Float64Array,
    hess?: Float64Array,
  ): { numRows: number; logLikelihood: number };
  /** End the connection; the source is unusable afterwards. */
  close(): void;
}

/**
 * Whether `rows` is a {@link DatabaseRowSource} (by its marker and methods).
 *
 * @param rows Any value.
 * @returns True for a row source an engine's entry point opened.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isDatabaseRowSource } from "./database_glm.ts";
 * assert.equal(isDatabaseRowSource({ sql: "SELECT 1" }), false);
 * ```
 */
export function isDatabaseRowSource(rows: unknown): rows is DatabaseRowSource {
  const r = rows as Partial<DatabaseRowSource> | null;
  return r !== null && typeof r === "object" && r.isDatabaseRowSource === true &&
    typeof r.fetchRows === "function" && typeof r.sums === "function";
}

/** An {@link ExternalGlmModel} over a {@link DatabaseRowSource}, with its fetch counts. */
export interface DatabaseGlmModel extends ExternalGlmModel {
  /** The smallest key (row 0). */
  readonly keyBase: number;
  /** The connection URL with the password replaced by `***`. */
  readonly label: string;
  /**
   * Queries made by `readRows` and the rows (distinct keys) they returned;
   * `numPasses`: full-data passes (one SQL aggregate each: the centring sums,
   * ℓ and ∇ℓ, or the Hessian).
   */
  readonly fetches: { numQueries: number; numRows: number; numPasses: number };
}

/**
 * The GLM over a row source: `glm`'s family (one of
 * {@link DATABASE_GLM_FAMILIES}, no offset or trials) and prior, as for
 * `GlmModel`. The call takes the source over: the model's `close()` closes
 * it, and so does a call that fails.
 *
 * @param source Rows an engine's entry point opened.
 * @param glm Family, σ and prior, as for `GlmModel`.
 * @returns The model.
 * @throws {RangeError} A family the SQL does not serve, or the errors of
 *   `GlmModel`'s option checks (naming the source); {@link TypeError} for
 *   an offset or trials option, or a source that is not a row source.
 */
export function databaseGlmModel(source: DatabaseRowSource, glm: GlmOptions): DatabaseGlmModel {
  if (!isDatabaseRowSource(source)) {
    throw new TypeError(
      `a database GLM needs a row source opened by an engine (openDuckDbRows, openDatabaseRows), got ${
        typeof source === "object" && source !== null
          ? `keys ${JSON.stringify(Object.keys(source))}`
          : String(source)
      }`,
    );
  }
  try {
    const family = glm?.family;
    if (!(DATABASE_GLM_FAMILIES as readonly unknown[]).includes(family)) {
      throw new RangeError(
        `a database GLM samples "logistic", "poisson" or "gaussian" (known sigma), got ${
          JSON.stringify(family)
        }`,
      );
    }
    if (glm.offset !== undefined || glm.trials !== undefined) {
      throw new TypeError("a database GLM takes no offset or trials option");
    }
    return new DatabaseGlm(source, glm);
  } catch (e) {
    source.close();
    throw e;
  }
}

class DatabaseGlm implements DatabaseGlmModel {
  readonly isExternalGlm = true as const;
  readonly family: DatabaseGlmFamily;
  readonly auxColumn = null;
  readonly numCols: number;
  readonly dim: number;
  readonly numRows: number;
  readonly storage = "f64" as const;
  readonly glmOptions: Readonly<GlmOptions>;
  readonly parameterNames: readonly string[];
  readonly cost: CostCounter = newCostCounter();
  readonly keyBase: number;
  readonly label: string;
  readonly fetches = { numQueries: 0, numRows: 0, numPasses: 0 };
  #source: DatabaseRowSource;
  #p: number;
  #sumsFamily: { family: DatabaseGlmFamily; sigma?: number };
  #prior: GlmModel;
  #priorGrad: Float64Array;
  #closed = false;

  constructor(source: DatabaseRowSource, glm: GlmOptions) {
    this.#source = source;
    const d = source.columns.length + (source.intercept ? 1 : 0);
    this.numCols = this.dim = d;
    this.#priorGrad = new Float64Array(d);
    this.numRows = source.numRows;
    this.keyBase = source.keyBase;
    this.label = source.label;
    this.#p = source.columns.length + 1;
    this.family = glm.family as DatabaseGlmFamily;
    this.#sumsFamily = glm.sigma === undefined
      ? { family: this.family }
      : { family: this.family, sigma: glm.sigma };
    // The prior and the option checks are GlmModel's own, over the first row.
    const x = new Float64Array(d), y = new Float64Array(1);
    this.readRows(new Int32Array(1), x, y);
    this.fetches.numQueries = this.fetches.numRows = 0;
    const names = [...(source.intercept ? ["(Intercept)"] : []), ...source.columns];
    try {
      this.#prior = new GlmModel(
        glmDataFromArrays(loadCore(), x, y, { numCols: d, columnNames: names }),
        glm,
      );
    } catch (e) {
      throw new RangeError(`${source.where}: ${(e as Error).message}`);
    }
    this.glmOptions = this.#prior.options;
    this.parameterNames = this.#prior.parameterNames;
  }

  #open(what: string): void {
    if (this.#closed) throw new Error(`${what}: the database model has been closed`);
  }

  readRows(rows: Int32Array, x: Float64Array, y: Float64Array): void {
    this.#open("readRows");
    const k = rows.length, d = this.numCols, p = this.#p, n = this.numRows;
    if (x.length < k * d || y.length < k) {
      throw new RangeError(
        `readRows of ${k} rows needs x of ${
          k * d
        } and y of ${k} values, got ${x.length} and ${y.length}`,
      );
    }
    const slot = new Map<number, number>();
    const order: number[] = [];
    for (let i = 0; i < k; i++) {
      const r = rows[i];
      if (!(Number.isInteger(r) && r >= 0 && r < n)) {
        throw new RangeError(`row index ${r} at position ${i} is outside [0, ${n - 1}]`);
      }
      if (!slot.has(r)) {
        slot.set(r, order.length);
        order.push(r);
      }
    }
    const batch = this.#source.batchRows;
    const values = new Float64Array(order.length * p);
    for (let b = 0; b < order.length; b += batch) {
      const m = Math.min(batch, order.length - b);
      const keys = new Float64Array(m);
      for (let i = 0; i < m; i++) keys[i] = this.keyBase + order[b + i];
      this.#source.fetchRows(keys, values.subarray(b * p, (b + m) * p));
      this.fetches.numQueries++;
      this.fetches.numRows += m;
    }
    const off = this.#source.intercept ? 1 : 0;
    for (let i = 0; i < k; i++) {
      const s = slot.get(rows[i])! * p;
      if (off) x[i * d] = 1;
      for (let j = 0; j < p - 1; j++) x[i * d + off + j] = values[s + j];
      y[i] = values[s + p - 1];
    }
  }

  #sums(
    theta: Float64Array,
    grad: Float64Array | undefined,
    hess: Float64Array | undefined,
    centring = false,
  ) {
    const d = this.dim;
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new RangeError(`theta must be a Float64Array of length ${d}`);
    }
    const g = grad ?? new Float64Array(d);
    const r = this.#source.sums(theta.slice(), this.#sumsFamily, g, hess);
    this.fetches.numPasses++;
    if (Number.isNaN(r.numRows)) {
      // Overflowed at θ: a non-finite log likelihood, which a sampler takes as
      // a divergence (as in memory); an expansion point must be finite.
      if (centring) {
        throw new RangeError(
          `${this.#source.where}: the full-data sums at θ* are not finite (θ* too far from the data, or a value in the table is not finite)`,
        );
      }
    } else if (r.numRows !== this.numRows) {
      throw new Error(
        `${this.#source.where} changed: ${r.numRows} rows now, ${this.numRows} when opened`,
      );
    }
    this.cost.numLogLikRows += this.numRows;
    this.cost.numGradRows += this.numRows;
    if (hess !== undefined) this.cost.numHessianRows += this.numRows;
    return r.logLikelihood;
  }

  controlVariateSums(thetaStar: Float64Array, gradSum: Float64Array, hessSum?: Float64Array) {
    this.#open("controlVariateSums");
    if (hessSum !== undefined && hessSum.length !== this.dim * this.dim) {
      throw new RangeError(
        `hessSum must have ${this.dim * this.dim} entries, got ${hessSum.length}`,
      );
    }
    return this.#sums(thetaStar, gradSum, hessSum, true);
  }

  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    this.#open("logLikelihood");
    return this.#sums(theta, grad, undefined);
  }

  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    this.#open("logLikelihoodHessian");
    this.#sums(theta, undefined, out);
    this.cost.numLogLikRows -= this.numRows;
    this.cost.numGradRows -= this.numRows;
  }

  /** The rows as an in-memory GLM (released after `f`), for per-row evaluations. */
  #withRows<T>(rows: Int32Array, f: (m: GlmModel, idx: Int32Array) => T): T {
    const k = rows.length, d = this.numCols;
    const x = new Float64Array(k * d), y = new Float64Array(k);
    this.readRows(rows, x, y);
    const data = glmDataFromArrays(this.#prior.data.arena, x, y, { numCols: d });
    try {
      const m = new GlmModel(data, this.#prior.options);
      const out = f(m, Int32Array.from({ length: k }, (_, i) => i));
      this.cost.numLogLikRows += m.cost.numLogLikRows;
      this.cost.numGradRows += m.cost.numGradRows;
      this.cost.numHessianRows += m.cost.numHessianRows;
      return out;
    } finally {
      freeGlmData(data);
    }
  }

  logLikelihoodRows(
    theta: Float64Array,
    rows: Int32Array,
    options?: { grad?: Float64Array; perRow?: Float64Array },
  ): number {
    this.#open("logLikelihoodRows");
    if (rows.length === 0) {
      options?.grad?.fill(0);
      return 0;
    }
    return this.#withRows(rows, (m, idx) => m.logLikelihoodRows(theta, idx, options));
  }

  perRowGradients(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.#open("perRowGradients");
    if (rows.length === 0) return;
    this.#withRows(rows, (m, idx) => m.perRowGradients(theta, idx, out));
  }

  logPrior(theta: Float64Array, grad?: Float64Array): number {
    return this.#prior.logPrior(theta, grad);
  }

  logPriorHessian(theta: Float64Array, out: Float64Array): void {
    this.#prior.logPriorHessian(theta, out);
  }

  logDensity(theta: Float64Array): number {
    return this.logPrior(theta) + this.logLikelihood(theta);
  }

  logDensityAndGradient(theta: Float64Array, grad: Float64Array): number {
    return logPosteriorAndGradient(this, theta, grad, this.#priorGrad);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#source.close();
  }
}
