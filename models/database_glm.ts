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
 * by key, runs the full-data sums as one SQL aggregate where its SQL can
 * compute them, and reads every row in key order for a streamed pass; its
 * methods are synchronous (the engine answers in a worker and the caller
 * waits with `Atomics.wait`). This module is the model's part: the family,
 * the prior (`GlmModel`'s own, checked over the first row), the batching and
 * de-duplication of row reads, per-row evaluations over the fetched rows
 * with the in-memory kernels, the fetch counters, and the choice of how a
 * full-data pass runs:
 *
 * ```
 *  "sql"     the family's sums are one SQL aggregate (DATABASE_GLM_FAMILIES,
 *            where the engine's SQL has what they need: lnΓ for Poisson and
 *            binomial): within the summation and libm bound of docs/databases.md
 *  "stream"  every row read in key order (scanRows) and summed by the core's
 *            family kernels in blocks of chunkRows, as a streamed row store's
 *            shard does (models/_shard_worker.ts): the same sums, bit for bit,
 *            as a row store of these rows streamed in the same blocks; every
 *            family, the user AssemblyScript family included
 * ```
 *
 * It imports no engine:
 * `defineModel({ likelihood, rows: { database: source } })`
 * (models/compose.ts) builds the model from a source an engine's entry
 * point opened, so neither `mod.ts` nor `models/` loads a driver or a
 * native addon.
 *
 * Row k of the model is the row whose key column holds `keyBase + k`.
 * Values are exact (the engines cast every column to a double and hand back
 * doubles unchanged), so per-row terms of fetched rows are the in-memory
 * model's bits, and for the same rows, centring and seed HMC-ECS draws what
 * it draws on the in-memory model (`models/in_memory_external.ts`), bit for
 * bit; the full-data sums differ from the in-memory ones only by the
 * summation order (and, in SQL, libm) (docs/databases.md, docs/placement.md).
 *
 * References: docs/architecture.md, "Data beyond memory"; docs/databases.md.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { loadCore } from "../core/load.ts";
import { freeGlmData, type GlmData, glmDataFromArrays } from "../data/dataset.ts";
import { StagedRows } from "../data/row_store.ts";
import type { ExternalGlmModel } from "./external_glm.ts";
import { checkGlmResponse, GlmModel, type GlmModelFamily, type GlmOptions } from "./glm.ts";
import {
  assertPosition,
  type CostCounter,
  logPosteriorAndGradient,
  newCostCounter,
} from "./model.ts";
import type { UserGlmModel } from "./user_glm.ts";

/** The families whose full-data sums the engines' SQL computes (engines/control_variate_sql.ts). */
export type DatabaseGlmFamily = "logistic" | "poisson" | "gaussian" | "gaussian-scale" | "binomial";

/**
 * {@link DatabaseGlmFamily}'s values: summed in SQL where the engine has what
 * their terms need (Poisson and binomial: lnΓ, or PostgreSQL's ln(y!)
 * column for Poisson); every other family streams its rows through the core.
 */
export const DATABASE_GLM_FAMILIES: readonly DatabaseGlmFamily[] = [
  "logistic",
  "poisson",
  "gaussian",
  "gaussian-scale",
  "binomial",
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
  /** The engine, for messages: "DuckDB", "PostgreSQL" or "ClickHouse". */
  readonly engine: string;
  /** Number of rows n. */
  readonly numRows: number;
  /** The smallest key (row 0): row k has key `keyBase + k`. */
  readonly keyBase: number;
  /** The columns of X in the order of θ (after the intercept, if any). */
  readonly columns: readonly string[];
  /** Whether θ[0] is an intercept (an implicit column of ones). */
  readonly intercept: boolean;
  /** The per-row column read after the response (an offset or the trials), or null. */
  readonly aux: { readonly kind: "offset" | "trials"; readonly column: string } | null;
  /** The families whose sums this engine's SQL computes over these columns. */
  readonly sqlFamilies: readonly DatabaseGlmFamily[];
  /**
   * How full-data passes run: "auto" (SQL for a family in
   * {@link DatabaseRowSource.sqlFamilies}, else streamed), "sql" (a family
   * the SQL cannot sum is refused) or "stream" (always streamed).
   */
  readonly passes: "auto" | "sql" | "stream";
  /** Rows per block of a streamed pass (the kernels' block, as a row store's `chunkRows`). */
  readonly chunkRows: number;
  /** Most keys one {@link DatabaseRowSource.fetchRows} call takes. */
  readonly batchRows: number;
  /**
   * The rows of `keys` (distinct, at most `batchRows`): for key i, its
   * columns, its response, then its aux column if any: p values from
   * `out[i · p]`, p = `columns.length` + 1 (+ 1 with `aux`).
   */
  fetchRows(keys: Float64Array, out: Float64Array): void;
  /**
   * Every row in key order, `visit`ed a chunk at a time (at most
   * `batchRows` rows, laid out as {@link DatabaseRowSource.fetchRows}'
   * answer; the view is valid during the call only). Returns n.
   */
  scanRows(visit: (values: Float64Array, count: number) => void): number;
  /**
   * One full-data pass as one SQL aggregate at `theta`: returns n and
   * S = Σₖ ℓₖ(θ), writes A = Σₖ ∇ℓₖ(θ) into `grad` and, when given,
   * B = Σₖ ∇²ℓₖ(θ) into `hess` (P × P, row-major; P = θ's length). Sums
   * that overflow at `theta` (exp(η) of a θ far from the data) come back as
   * NaN, n included. The source's aux column is the offset of "poisson" or
   * the trials of "binomial".
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
   * How its full-data passes run: "sql" (one aggregate query each) or
   * "stream" (every row read in key order and summed by the core's kernels).
   */
  readonly passes: "sql" | "stream";
  /**
   * Queries made by `readRows` and the rows (distinct keys) they returned;
   * `numPasses`: full-data passes (one SQL aggregate or one streamed read
   * each: the centring sums, ℓ and ∇ℓ, or the Hessian).
   */
  readonly fetches: { numQueries: number; numRows: number; numPasses: number };
}

/**
 * A family written in AssemblyScript, compiled in this thread over the first
 * block of `arena`, for {@link databaseUserGlmModel}.
 */
interface _UserFamily {
  readonly arena: Arena;
  over(data: GlmData): UserGlmModel;
  dispose(): void;
}

/**
 * The GLM over a row source: `glm`'s family and prior, as for `GlmModel`;
 * the offset ("poisson", "negative-binomial") or the trials ("binomial")
 * are the source's `offset` / `trials` column. Full-data passes run as SQL
 * for the families in the source's `sqlFamilies`, else streamed through the
 * core's kernels (see the module notes). The call takes the source over:
 * the model's `close()` closes it, and so does a call that fails.
 *
 * @param source Rows an engine's entry point opened.
 * @param glm Family, σ, ν and prior, as for `GlmModel`.
 * @returns The model.
 * @throws {RangeError} A family the source's SQL cannot sum with
 *   `passes: "sql"` (naming the family and the engine), or the errors of
 *   `GlmModel`'s option checks (naming the source); {@link TypeError} for
 *   an offset or trials option, a column the family does not take or
 *   lacks, or a source that is not a row source.
 */
export function databaseGlmModel(source: DatabaseRowSource, glm: GlmOptions): DatabaseGlmModel {
  _assertSource(source);
  try {
    if (glm === null || typeof glm !== "object") {
      throw new TypeError(`a database GLM needs GLM options ({ family, … }), got ${String(glm)}`);
    }
    for (const key of ["offset", "trials"] as const) {
      if (glm[key] !== undefined) {
        throw new TypeError(
          `${source.where}: the ${key} of rows in a SQL engine is a column: open the source with ${key}: "COLUMN", and give no ${key} option`,
        );
      }
    }
    return new DatabaseGlm(source, glm, null);
  } catch (e) {
    source.close();
    throw e;
  }
}

/**
 * A family written in AssemblyScript over a row source: its full-data
 * passes stream the rows through the compiled family (the SQL never sees
 * it), its per-row terms are those of a `UserGlmModel` over the fetched
 * rows. Loads the AssemblyScript compiler (in this thread). The call takes
 * the source over, as {@link databaseGlmModel}.
 *
 * @param source Rows an engine's entry point opened (no aux column).
 * @param options The AssemblyScript source and the prior sd of every coefficient (default 10).
 * @returns The model.
 * @throws {SyntaxError} If the source does not compile; {@link RangeError}
 *   with `passes: "sql"`; {@link TypeError} for a source with an aux column.
 */
export async function databaseUserGlmModel(
  source: DatabaseRowSource,
  options: { source: string; priorScale?: number },
): Promise<DatabaseGlmModel> {
  _assertSource(source);
  let user: _UserFamily | null = null;
  try {
    const s = options.priorScale ?? 10;
    if (!(s > 0)) throw new RangeError(`priorScale must be positive, got ${s}`);
    _userFamilyAllowed(source);
    const { compileUserFamily } = await import("../core/user_family.ts");
    const { UserGlmModel } = await import("./user_glm.ts");
    // A fresh arena: the family's static block is its first block.
    const arena = loadCore();
    const kernels = await compileUserFamily(arena, options.source);
    user = {
      arena,
      over: (data) => UserGlmModel.overKernels(data, kernels, s),
      dispose: () => kernels.dispose(),
    };
    return new DatabaseGlm(source, null, user);
  } catch (e) {
    user?.dispose();
    source.close();
    throw e;
  }
}

function _assertSource(source: DatabaseRowSource): void {
  if (!isDatabaseRowSource(source)) {
    throw new TypeError(
      `a database GLM needs a row source opened by an engine (openDuckDbRows, openDatabaseRows), got ${
        typeof source === "object" && source !== null
          ? `keys ${JSON.stringify(Object.keys(source))}`
          : String(source)
      }`,
    );
  }
}

function _userFamilyAllowed(source: DatabaseRowSource): void {
  if (source.aux !== null) {
    throw new TypeError(
      `${source.where}: column "${source.aux.column}" is read as the ${source.aux.kind}, which a family written in AssemblyScript does not take (its functions read η and y)`,
    );
  }
  if (source.passes === "sql") {
    throw new RangeError(
      `a family written in AssemblyScript cannot be summed in ${source.engine}'s SQL (${source.where}): it runs in the core only; open the source with passes: "auto" or "stream" to stream the rows through it`,
    );
  }
}

/** Why an engine's SQL cannot sum `family` over the source's columns. */
function _noSqlReason(source: DatabaseRowSource, family: GlmModelFamily): string {
  if (family === "student-t" || family === "negative-binomial") {
    return `its terms need lnΓ, ψ and ψ′ at a parameter that changes at every step, which no engine's SQL has`;
  }
  if (family === "poisson" || family === "binomial") {
    return `${source.engine} has no LGAMMA${
      source.engine === "PostgreSQL"
        ? ` before 18${
          family === "poisson" ? " (or give logFactorialColumn, a column of ln(y!))" : ""
        }`
        : ""
    }`;
  }
  return "its sums are not in the engines' SQL";
}

/** The kernels a streamed pass runs on a block of staged rows. */
interface _BlockKernels {
  logLikelihood(data: GlmData, theta: Float64Array, options: { grad?: Float64Array }): number;
  hessian(data: GlmData, theta: Float64Array, options: { out: Float64Array }): unknown;
}

class DatabaseGlm implements DatabaseGlmModel {
  readonly isExternalGlm = true as const;
  readonly family: GlmModelFamily | null;
  readonly auxColumn: "offset" | "trials" | null;
  readonly numCols: number;
  readonly dim: number;
  readonly numRows: number;
  readonly storage = "f64" as const;
  readonly glmOptions: Readonly<GlmOptions> | null;
  readonly parameterNames: readonly string[];
  readonly cost: CostCounter = newCostCounter();
  readonly keyBase: number;
  readonly label: string;
  readonly passes: "sql" | "stream";
  readonly fetches = { numQueries: 0, numRows: 0, numPasses: 0 };
  #source: DatabaseRowSource;
  /** Values per fetched row: X's columns, y, the aux column if any. */
  #p: number;
  #sumsFamily: { family: DatabaseGlmFamily; sigma?: number } | null;
  #prior: GlmModel | UserGlmModel;
  #user: _UserFamily | null;
  #arena: Arena;
  #priorData: GlmData;
  #staged: StagedRows | null = null;
  #priorGrad: Float64Array;
  #closed = false;

  constructor(
    source: DatabaseRowSource,
    glm: GlmOptions | null,
    user: _UserFamily | null,
  ) {
    this.#source = source;
    this.#user = user;
    const d = source.columns.length + (source.intercept ? 1 : 0);
    this.numCols = d;
    this.numRows = source.numRows;
    this.keyBase = source.keyBase;
    this.label = source.label;
    this.#p = source.columns.length + 1 + (source.aux === null ? 0 : 1);
    const family = glm === null ? null : glm.family;
    this.family = family;
    // The per-row column the family takes, as a row store's aux column.
    const takes = family === "binomial"
      ? "trials"
      : family === "poisson" || family === "negative-binomial"
      ? "offset"
      : null;
    const what = family === null
      ? "a family written in AssemblyScript"
      : `family ${JSON.stringify(family)}`;
    if (source.aux !== null && source.aux.kind !== takes) {
      throw new TypeError(
        `${source.where}: column "${source.aux.column}" is read as the ${source.aux.kind}, which ${what} does not take${
          takes === null ? "" : ` (it takes ${takes === "trials" ? "the trials" : "an offset"})`
        }`,
      );
    }
    if (takes === "trials" && source.aux === null) {
      throw new TypeError(
        `family "binomial" needs the number of trials: open ${source.where} with trials: "COLUMN"`,
      );
    }
    this.auxColumn = source.aux === null ? null : source.aux.kind;
    // How the full-data passes run.
    const inSql = family !== null &&
      (source.sqlFamilies as readonly string[]).includes(family);
    if (source.passes === "sql" && !inSql) {
      throw new RangeError(
        `${what} cannot be summed in ${source.engine}'s SQL (${source.where}): ${
          family === null ? "it runs in the core only" : _noSqlReason(source, family)
        }; open the source with passes: "auto" or "stream" to stream its rows through the core's family kernels`,
      );
    }
    this.passes = source.passes === "stream" || !inSql ? "stream" : "sql";
    this.#sumsFamily = this.passes === "sql"
      ? glm!.sigma === undefined
        ? { family: family as DatabaseGlmFamily }
        : { family: family as DatabaseGlmFamily, sigma: glm!.sigma }
      : null;
    // The prior and the option checks are GlmModel's own (or the user family's
    // model's), over the first row.
    this.#arena = user?.arena ?? loadCore();
    const x = new Float64Array(d), y = new Float64Array(1), aux = new Float64Array(1);
    this.readRows(new Int32Array(1), x, y, this.auxColumn === null ? undefined : aux);
    this.fetches.numQueries = this.fetches.numRows = 0;
    const names = [...(source.intercept ? ["(Intercept)"] : []), ...source.columns];
    this.#priorData = glmDataFromArrays(this.#arena, x, y, { numCols: d, columnNames: names });
    try {
      if (user !== null) this.#prior = user.over(this.#priorData);
      else {
        const o: GlmOptions = { ...glm! };
        if (this.auxColumn !== null) o[this.auxColumn] = [aux[0]];
        this.#prior = new GlmModel(this.#priorData, o);
      }
    } catch (e) {
      freeGlmData(this.#priorData);
      throw new RangeError(`${source.where}: ${(e as Error).message}`);
    }
    this.dim = this.#prior.dim;
    this.#priorGrad = new Float64Array(this.dim);
    if (this.#prior instanceof GlmModel) {
      const { offset: _o, trials: _t, ...rest } = this.#prior.options;
      this.glmOptions = rest;
    } else this.glmOptions = null;
    this.parameterNames = this.#prior.parameterNames;
  }

  #open(what: string): void {
    if (this.#closed) throw new Error(`${what}: the database model has been closed`);
  }

  readRows(rows: Int32Array, x: Float64Array, y: Float64Array, aux?: Float64Array): void {
    this.#open("readRows");
    const k = rows.length, d = this.numCols, p = this.#p, n = this.numRows;
    if (x.length < k * d || y.length < k || (aux !== undefined && aux.length < k)) {
      throw new RangeError(
        `readRows of ${k} rows needs x of ${k * d} and y${
          aux === undefined ? "" : " and aux"
        } of ${k} values, got ${x.length} and ${y.length}${
          aux === undefined ? "" : ` and ${aux.length}`
        }`,
      );
    }
    if (aux !== undefined && this.#source.aux === null) {
      throw new RangeError(
        "these rows have no aux column (offset or trials), but aux was asked for",
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
    const off = this.#source.intercept ? 1 : 0, nx = this.#source.columns.length;
    for (let i = 0; i < k; i++) {
      const s = slot.get(rows[i])! * p;
      if (off) x[i * d] = 1;
      for (let j = 0; j < nx; j++) x[i * d + off + j] = values[s + j];
      y[i] = values[s + nx];
      if (aux !== undefined) aux[i] = values[s + nx + 1];
    }
  }

  /** One full-data pass: SQL or streamed. */
  #sums(
    theta: Float64Array,
    grad: Float64Array | undefined,
    hess: Float64Array | undefined,
    want: { ll: boolean; centring?: boolean },
  ): number {
    const P = this.dim;
    assertPosition(theta, P);
    let ll: number;
    if (this.#sumsFamily === null) ll = this.#stream(theta, want.ll, grad, hess);
    else {
      const g = grad ?? new Float64Array(P);
      const r = this.#source.sums(theta.slice(), this.#sumsFamily, g, hess);
      this.fetches.numPasses++;
      if (Number.isNaN(r.numRows)) {
        // Overflowed at θ: a non-finite log likelihood, which a sampler takes as
        // a divergence (as in memory); an expansion point must be finite.
        if (want.centring) {
          throw new RangeError(
            `${this.#source.where}: the full-data sums at θ* are not finite (θ* too far from the data, or a value in the table is not finite)`,
          );
        }
      } else if (r.numRows !== this.numRows) {
        throw new Error(
          `${this.#source.where} changed: ${r.numRows} rows now, ${this.numRows} when opened`,
        );
      }
      ll = r.logLikelihood;
    }
    if (want.ll || grad !== undefined) {
      this.cost.numLogLikRows += this.numRows;
      this.cost.numGradRows += this.numRows;
    }
    if (hess !== undefined) this.cost.numHessianRows += this.numRows;
    return ll;
  }

  /**
   * A streamed pass: every row in key order, staged in blocks of `chunkRows`
   * and summed by the family's kernels block by block, then the blocks' sums
   * added in order (the arithmetic of a streamed row store's shard).
   */
  #stream(
    theta: Float64Array,
    wantLl: boolean,
    grad: Float64Array | undefined,
    hess: Float64Array | undefined,
  ): number {
    const P = this.dim, d = this.numCols, p = this.#p, n = this.numRows;
    const nx = this.#source.columns.length, off = this.#source.intercept ? 1 : 0;
    const c0 = Math.min(this.#source.chunkRows, n);
    const names = this.parameterNames.slice(0, d);
    this.#staged ??= new StagedRows(this.#arena, {
      numCols: d,
      storage: "f64",
      columnNames: names,
    });
    const staged = this.#staged;
    const glm = this.#prior instanceof GlmModel ? this.#prior : null;
    const kernels: _BlockKernels = glm !== null
      ? glm.kernels
      : (this.#prior as UserGlmModel).kernels;
    const aux = this.auxColumn === null ? null : new Float64Array(c0);
    const g = new Float64Array(P), h = new Float64Array(P * P);
    const gradAcc = new Float64Array(P), hessAcc = new Float64Array(P * P);
    const lg = wantLl || grad !== undefined;
    let ll = 0, fill = 0, first = 0;
    const block = () => {
      const data = staged.data(fill);
      const v = staged.views(fill);
      const a = aux?.subarray(0, fill);
      if (this.family !== null) {
        try {
          checkGlmResponse(this.family, v.y, this.auxColumn === "trials" ? a : undefined, first);
        } catch (e) {
          throw new RangeError(`${this.#source.where}: ${(e as Error).message} (in key order)`);
        }
      }
      if (a !== undefined) glm!.kernels.setAux(a);
      if (lg) {
        ll += kernels.logLikelihood(data, theta, grad !== undefined ? { grad: g } : {});
        if (grad !== undefined) { for (let j = 0; j < P; j++) gradAcc[j] += g[j]; }
      }
      if (hess !== undefined) {
        kernels.hessian(data, theta, { out: h });
        for (let q = 0; q < P * P; q++) hessAcc[q] += h[q];
      }
      first += fill;
      fill = 0;
    };
    try {
      const total = this.#source.scanRows((values, count) => {
        for (let i = 0; i < count;) {
          const take = Math.min(count - i, c0 - fill);
          // Fresh views: the kernels may have grown the arena's memory.
          const v = staged.views(c0);
          const x = v.x as Float64Array;
          for (let k = 0; k < take; k++) {
            const s = (i + k) * p, r = fill + k;
            if (off) x[r * d] = 1;
            for (let j = 0; j < nx; j++) x[r * d + off + j] = values[s + j];
            v.y[r] = values[s + nx];
            if (aux !== null) aux[r] = values[s + nx + 1];
          }
          fill += take;
          i += take;
          if (fill === c0) block();
        }
      });
      if (fill > 0) block();
      if (total !== n) {
        throw new Error(`${this.#source.where} changed: ${total} rows now, ${n} when opened`);
      }
    } finally {
      this.fetches.numPasses++;
    }
    // Added to zeros, as a row store's shards are (so −0 reads as +0 there too).
    if (grad !== undefined) { for (let j = 0; j < P; j++) grad[j] = 0 + gradAcc[j]; }
    if (hess !== undefined) { for (let q = 0; q < P * P; q++) hess[q] = 0 + hessAcc[q]; }
    return 0 + ll;
  }

  controlVariateSums(thetaStar: Float64Array, gradSum: Float64Array, hessSum?: Float64Array) {
    this.#open("controlVariateSums");
    if (hessSum !== undefined && hessSum.length !== this.dim * this.dim) {
      throw new RangeError(
        `hessSum must have ${this.dim * this.dim} entries, got ${hessSum.length}`,
      );
    }
    return this.#sums(thetaStar, gradSum, hessSum, { ll: true, centring: true });
  }

  logLikelihood(theta: Float64Array, grad?: Float64Array): number {
    this.#open("logLikelihood");
    return this.#sums(theta, grad, undefined, { ll: true });
  }

  logLikelihoodHessian(theta: Float64Array, out: Float64Array): void {
    this.#open("logLikelihoodHessian");
    this.#sums(theta, undefined, out, { ll: false });
  }

  /** The rows as an in-memory model (released after `f`), for per-row evaluations. */
  #withRows<T>(rows: Int32Array, f: (m: GlmModel | UserGlmModel, idx: Int32Array) => T): T {
    const k = rows.length, d = this.numCols;
    const x = new Float64Array(k * d), y = new Float64Array(k);
    const aux = this.auxColumn === null ? undefined : new Float64Array(k);
    this.readRows(rows, x, y, aux);
    const data = glmDataFromArrays(this.#arena, x, y, { numCols: d });
    try {
      let m: GlmModel | UserGlmModel;
      if (this.#user !== null) m = this.#user.over(data);
      else {
        const o: GlmOptions = { ...(this.#prior as GlmModel).options };
        if (this.auxColumn !== null) o[this.auxColumn] = aux;
        m = new GlmModel(data, o);
      }
      try {
        const out = f(m, Int32Array.from({ length: k }, (_, i) => i));
        this.cost.numLogLikRows += m.cost.numLogLikRows;
        this.cost.numGradRows += m.cost.numGradRows;
        this.cost.numHessianRows += m.cost.numHessianRows;
        return out;
      } finally {
        m.dispose();
      }
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

  /**
   * Per-row Hessians ∇²ℓᵢ(θ) of rows read by key (m × P × P): the in-memory
   * model's arithmetic over the fetched rows (HMC-ECS's order-2 control
   * variates on its per-row path).
   */
  perRowHessians(theta: Float64Array, rows: Int32Array, out: Float64Array): void {
    this.#open("perRowHessians");
    if (rows.length === 0) return;
    this.#withRows(rows, (m, idx) => m.perRowHessians(theta, idx, out));
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
    this.#staged?.release();
    this.#prior.dispose();
    freeGlmData(this.#priorData);
    this.#user?.dispose();
  }
}
