/**
 * A GLM whose rows stay in PostgreSQL or ClickHouse: an
 * {@link ExternalGlmModel} that HMC-ECS samples with
 * `sample(model, { sampler: "hmc-ecs", centring })` while the table never
 * leaves its database.
 *
 * ```
 *  sampler (main thread)                 worker                      engine
 *  readRows(k rows) ── distinct keys ──► SELECT key, x…, y FROM T ──► WHERE key = ANY($1)   (PostgreSQL)
 *        Atomics.wait ◄── values in a SharedArrayBuffer ◄──           WHERE key IN (…)       (ClickHouse)
 *  controlVariateSums(θ*) ────────────► the centring SQL ──────────► one aggregate: n, S, A, B
 * ```
 *
 * Row k of the model is the row whose key column holds `base + k`: the key
 * must be an integer column whose values are `base, base + 1, …,
 * base + n − 1` (checked when the model opens: min, max and the count of
 * distinct keys). One query per `readRows` call (in batches of at most
 * `batchRows` distinct keys), so one per subsample update of HMC-ECS; a
 * repeated index is fetched once. The worker holds the connection (a
 * client of `npm:pg`, or ClickHouse's HTTP interface through
 * `engines/clickhouse.ts`) and the sampler waits for it with `Atomics.wait`,
 * as the synchronous model interface needs.
 *
 * Values are exact: every column is cast to a double in the query, and both
 * engines print doubles as shortest round-trip decimals. So for the same
 * rows, the same centring and the same seed the draws are those of the
 * in-memory model (`models/in_memory_external.ts`), bit for bit.
 *
 * A query that fails (a dropped connection, a dropped table) throws an
 * Error naming the table and the server (the URL with its password replaced
 * by `***`); the sampler's driver then keeps the draws made so far and
 * reports the error as the chain's stop. See docs/databases.md.
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { freeGlmData, glmDataFromArrays } from "../data/dataset.ts";
import type { ExternalGlmModel } from "../models/external_glm.ts";
import { GlmModel, type GlmOptions } from "../models/glm.ts";
import { type CostCounter, logPosteriorAndGradient, newCostCounter } from "../models/model.ts";
import type { RowsWorkerInit, RowsWorkerRequest } from "./_database_rows_protocol.ts";
import { redactDatabaseUrl } from "./database_rows.ts";

export type { ExternalGlmModel } from "../models/external_glm.ts";
export type { GlmFamily, GlmModelFamily, GlmOptions } from "../models/glm.ts";
export type { CostCounter, DataModel, Model } from "../models/model.ts";
export type { NuPrior } from "../models/nu_prior.ts";
export type { ScalePrior } from "../models/priors.ts";

/** Options of {@link openDatabaseGlm}. */
export interface DatabaseGlmOptions {
  /**
   * `postgres://user@host:port/db` or `clickhouse://user@host:port/db` (HTTP
   * port); it may carry `?table=T&key=K`. Passwords: in the URL, or
   * PGPASSWORD / CLICKHOUSE_PASSWORD.
   */
  connection: string;
  /** The table (`name`, `schema.name` or `database.name`); default the URL's `table`. */
  table?: string;
  /** The integer key column (values base … base + n − 1); default the URL's `key`. */
  key?: string;
  /** Columns of X in the order of θ (after the intercept, if any). */
  columns: readonly string[];
  /** The response column. */
  response: string;
  /** Whether θ[0] is an intercept (an implicit column of ones). Default false. */
  intercept?: boolean;
  /**
   * Family ("logistic", "poisson", "gaussian" with `sigma`) and prior, as
   * for {@link GlmModel} (no per-row offset or trials).
   */
  glm: GlmOptions;
  /** PostgreSQL before 18, "poisson": a column holding ln(yₖ!) for the centring SQL. */
  logFactorialColumn?: string;
  /** Most distinct keys per query (default 16 384; ClickHouse's query text stays < 256 KiB). */
  batchRows?: number;
  /** Longest wait for one query, in seconds (default 600). */
  timeoutSeconds?: number;
}

/** An {@link ExternalGlmModel} over a database table, with its fetch counts. */
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

const STATE_BUSY = 0, STATE_ERROR = 2;

/**
 * Open a GLM over a table in PostgreSQL or ClickHouse (see the module
 * notes). Needs `--allow-net` to the server and `--allow-env`.
 *
 * @param options Connection, table, key, columns, response, family and prior.
 * @returns The model; `close()` it to end the worker and the connection.
 * @throws {RangeError} On a family without a compact cache, a key that is
 *   not base … base + n − 1, an empty table; Error naming the table and the
 *   server when a query fails.
 */
export async function openDatabaseGlm(options: DatabaseGlmOptions): Promise<DatabaseGlmModel> {
  const label = redactDatabaseUrl(options.connection);
  let u: URL;
  try {
    u = new URL(options.connection);
  } catch {
    throw new TypeError("the connection is not a URL (postgres://… or clickhouse://…)");
  }
  const engine = /^postgres(ql)?:$/i.test(u.protocol)
    ? "postgres"
    : /^clickhouses?:$/i.test(u.protocol)
    ? "clickhouse"
    : null;
  if (engine === null) {
    throw new TypeError(
      `the connection must start with postgres:// or clickhouse://, got ${label}`,
    );
  }
  const table = options.table ?? u.searchParams.get("table");
  const key = options.key ?? u.searchParams.get("key");
  if (!table) throw new RangeError(`${label} names no table: give table or ?table=NAME`);
  if (!key) {
    throw new RangeError(
      `table ${table}: rows are fetched by an integer key column (values base … base + n − 1): give key or &key=COLUMN`,
    );
  }
  u.searchParams.delete("table");
  u.searchParams.delete("key");
  const parts = table.split(".");
  if (parts.length > 2) throw new RangeError(`table must be NAME or SCHEMA.NAME, got ${table}`);
  const family = options.glm.family;
  if (family !== "logistic" && family !== "poisson" && family !== "gaussian") {
    throw new RangeError(
      `a database GLM samples "logistic", "poisson" or "gaussian" (known sigma), got ${
        JSON.stringify(family)
      }`,
    );
  }
  if (options.glm.offset !== undefined || options.glm.trials !== undefined) {
    throw new TypeError("a database GLM takes no offset or trials option");
  }
  const batchRows = options.batchRows ?? 16384;
  if (!Number.isInteger(batchRows) || batchRows < 1) {
    throw new RangeError(`batchRows must be a positive integer, got ${options.batchRows}`);
  }
  const timeout = options.timeoutSeconds ?? 600;
  if (!(timeout > 0)) {
    throw new RangeError(`timeoutSeconds must be positive, got ${options.timeoutSeconds}`);
  }
  const intercept = options.intercept ?? false;
  const cols = [...options.columns];
  const d = cols.length + (intercept ? 1 : 0);
  if (d < 1) throw new RangeError("the model needs at least one column or an intercept");
  const p = cols.length + 1;
  const dataLen = Math.max(batchRows * p, 2 + d + d * d, 4);
  const init: RowsWorkerInit = {
    engine,
    url: engine === "postgres" ? u.toString().replace(/^postgresql:/i, "postgres:") : u.toString(),
    table: parts.length === 2 ? [parts[0], parts[1]] : parts[0],
    key,
    columns: cols,
    response: options.response,
    family,
    intercept,
    ctrl: new SharedArrayBuffer(16),
    data: new SharedArrayBuffer(8 * dataLen),
    message: new SharedArrayBuffer(4096),
  };
  if (options.glm.sigma !== undefined) init.sigma = options.glm.sigma;
  if (options.logFactorialColumn !== undefined) {
    init.logFactorialColumn = options.logFactorialColumn;
  }
  const ctrl = new Int32Array(init.ctrl), data = new Float64Array(init.data);
  const where = `table ${table} at ${label}`;
  const worker = new Worker(new URL("./_database_rows_worker.ts", import.meta.url), {
    type: "module",
  });
  const message = () =>
    new TextDecoder().decode(new Uint8Array(init.message).slice(0, Atomics.load(ctrl, 2)));
  let broken: string | null = null;
  /** One request, answered synchronously (the caller blocks in Atomics.wait). */
  const call = (req: RowsWorkerRequest): number => {
    if (broken !== null) throw new Error(`${where}: ${broken}`);
    Atomics.store(ctrl, 0, STATE_BUSY);
    worker.postMessage(req);
    if (Atomics.wait(ctrl, 0, STATE_BUSY, timeout * 1000) === "timed-out") {
      broken = `no answer within ${timeout} s (timeoutSeconds)`;
      throw new Error(`${where}: ${broken}`);
    }
    if (Atomics.load(ctrl, 0) === STATE_ERROR) throw new Error(`${where}: ${message()}`);
    return Atomics.load(ctrl, 1);
  };
  try {
    Atomics.store(ctrl, 0, STATE_BUSY);
    worker.postMessage(init);
    const w = Atomics.waitAsync(ctrl, 0, STATE_BUSY, timeout * 1000);
    if (w.async && (await w.value) === "timed-out") {
      throw new Error(`${where}: no connection within ${timeout} s`);
    }
    if (Atomics.load(ctrl, 0) === STATE_ERROR) {
      throw new Error(`could not connect for ${where}: ${message()}`);
    }
    call({ op: "meta" });
    const [n, lo, hi, distinct] = data.slice(0, 4);
    if (!(n >= 1)) throw new RangeError(`${where} has no rows`);
    if (!(Number.isSafeInteger(lo) && hi - lo + 1 === n && distinct === n)) {
      throw new RangeError(
        `${where}: key column "${key}" must hold the integers base … base + n − 1 once each (n = ${n}); it holds ${distinct} distinct values from ${lo} to ${hi}`,
      );
    }
    return new DatabaseGlm({ options, d, p, n, base: lo, label, where, call, data, worker });
  } catch (e) {
    worker.terminate();
    throw e;
  }
}

class DatabaseGlm implements DatabaseGlmModel {
  readonly isExternalGlm = true as const;
  readonly family: "logistic" | "poisson" | "gaussian";
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
  #p: number;
  #intercept: boolean;
  #batch: number;
  #where: string;
  #call: (req: RowsWorkerRequest) => number;
  #data: Float64Array;
  #worker: Worker;
  #prior: GlmModel;
  #priorGrad: Float64Array;
  #closed = false;

  constructor(f: {
    options: DatabaseGlmOptions;
    d: number;
    p: number;
    n: number;
    base: number;
    label: string;
    where: string;
    call: (req: RowsWorkerRequest) => number;
    data: Float64Array;
    worker: Worker;
  }) {
    this.numCols = this.dim = f.d;
    this.#priorGrad = new Float64Array(f.d);
    this.numRows = f.n;
    this.keyBase = f.base;
    this.label = f.label;
    this.#p = f.p;
    this.#intercept = f.options.intercept ?? false;
    this.#batch = f.options.batchRows ?? 16384;
    this.#where = f.where;
    this.#call = f.call;
    this.#data = f.data;
    this.#worker = f.worker;
    this.family = f.options.glm.family as "logistic" | "poisson" | "gaussian";
    // The prior and the option checks are GlmModel's own, over the first row.
    const x = new Float64Array(f.d), y = new Float64Array(1);
    this.readRows(new Int32Array(1), x, y);
    this.fetches.numQueries = this.fetches.numRows = 0;
    const names = [...(this.#intercept ? ["(Intercept)"] : []), ...f.options.columns];
    const arena = loadCore();
    try {
      this.#prior = new GlmModel(
        glmDataFromArrays(arena, x, y, { numCols: f.d, columnNames: names }),
        f.options.glm,
      );
    } catch (e) {
      throw new RangeError(`${f.where}: ${(e as Error).message}`);
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
    const values = new Float64Array(order.length * p);
    for (let b = 0; b < order.length; b += this.#batch) {
      const m = Math.min(this.#batch, order.length - b);
      const keys = new Float64Array(m);
      for (let i = 0; i < m; i++) keys[i] = this.keyBase + order[b + i];
      this.#call({ op: "rows", keys });
      values.set(this.#data.subarray(0, m * p), b * p);
      this.fetches.numQueries++;
      this.fetches.numRows += m;
    }
    const off = this.#intercept ? 1 : 0;
    for (let i = 0; i < k; i++) {
      const s = slot.get(rows[i])! * p;
      if (off) x[i * d] = 1;
      for (let j = 0; j < p - 1; j++) x[i * d + off + j] = values[s + j];
      y[i] = values[s + p - 1];
    }
  }

  #sums(theta: Float64Array, grad: Float64Array | undefined, hess: Float64Array | undefined) {
    const d = this.dim;
    if (!(theta instanceof Float64Array) || theta.length !== d) {
      throw new RangeError(`theta must be a Float64Array of length ${d}`);
    }
    this.#call({ op: "sums", theta: theta.slice(), hessian: hess !== undefined });
    this.fetches.numPasses++;
    const v = this.#data;
    if (v[0] !== this.numRows) {
      throw new Error(`${this.#where} changed: ${v[0]} rows now, ${this.numRows} when opened`);
    }
    if (grad !== undefined) grad.set(v.subarray(2, 2 + d));
    if (hess !== undefined) hess.set(v.subarray(2 + d, 2 + d + d * d));
    this.cost.numLogLikRows += this.numRows;
    this.cost.numGradRows += this.numRows;
    if (hess !== undefined) this.cost.numHessianRows += this.numRows;
    return v[1];
  }

  controlVariateSums(thetaStar: Float64Array, gradSum: Float64Array, hessSum?: Float64Array) {
    this.#open("controlVariateSums");
    if (hessSum !== undefined && hessSum.length !== this.dim * this.dim) {
      throw new RangeError(
        `hessSum must have ${this.dim * this.dim} entries, got ${hessSum.length}`,
      );
    }
    return this.#sums(thetaStar, gradSum, hessSum);
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
    // Ending the worker closes its connection.
    this.#worker.terminate();
  }
}
