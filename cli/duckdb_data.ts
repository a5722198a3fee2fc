/**
 * `tallmc sample --data duckdb:FILE.duckdb?table=T[&key=COL]` (or
 * `FILE.duckdb?table=T…`): a table of a DuckDB database file. As for
 * `postgres://` and `clickhouse://` (./sample_data.ts,
 * ./database_model.ts), HMC-ECS over a keyed table keeps the rows in
 * DuckDB — the library's `openDuckDbRows` (engines/duckdb.ts) and
 * `defineModel({ rows: { database } })`: rows fetched by key, full-data
 * passes as SQL — and otherwise the table is read whole into a private CSV
 * file (DuckDB's `COPY … TO`, REAL widened to DOUBLE, every value exact)
 * and handled as any `--data` file.
 *
 * DuckDB's native addon is loaded only here, when such a source is given,
 * and needs Deno's `--allow-ffi` (the `deno task cli` task grants none):
 * without it the run is refused before anything is opened, with the flag to
 * add. The database file is opened read-only.
 *
 * @module
 */
import type { DatabaseGlmModel } from "../engines/database_glm.ts";
import { quoteIdentifier } from "../engines/control_variate_sql.ts";
import type { GlmModel } from "../models/glm.ts";
import { CliUsageError } from "./usage.ts";

/** A DuckDB table named by `--data`. */
export interface DuckDbData {
  /** `--data` as typed (for messages). */
  label: string;
  /** The database file (absolute). */
  path: string;
  /** The table: a name, or schema and name. */
  table: string | [string, string];
  /** The key column (`&key=`), or null. */
  key: string | null;
}

/**
 * Whether a `--data` value names a DuckDB table: `duckdb:…`, or a path
 * ending in `.duckdb` (before any `?`).
 *
 * @param value `--data` as typed.
 * @returns Whether the value is a DuckDB source.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isDuckDbData } from "./duckdb_data.ts";
 * assert.ok(isDuckDbData("duckdb:sales.db?table=t"));
 * assert.ok(isDuckDbData("sales.duckdb?table=t&key=id"));
 * assert.ok(!isDuckDbData("sales.csv"));
 * ```
 */
export function isDuckDbData(value: string): boolean {
  return /^duckdb:/i.test(value) || /\.duckdb$/i.test(value.replace(/\?.*$/s, ""));
}

/**
 * The database file, table and key of a DuckDB `--data` value.
 *
 * @param value `--data` as typed (see {@link isDuckDbData}).
 * @param resolvePath How to resolve the file's path (the CLI's `resolveUserPath`).
 * @returns The table's description.
 * @throws {CliUsageError} Naming `--data` and the value: no file, no
 *   `?table=`, a table name of more than two parts, an unknown parameter.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { duckDbDataOf } from "./duckdb_data.ts";
 * const d = duckDbDataOf("duckdb:/d/s.duckdb?table=main.t&key=id", (p) => p);
 * assert.deepEqual([d.path, d.table, d.key], ["/d/s.duckdb", ["main", "t"], "id"]);
 * assert.throws(() => duckDbDataOf("s.duckdb", (p) => p), /--data s.duckdb names no table/);
 * ```
 */
export function duckDbDataOf(value: string, resolvePath: (path: string) => string): DuckDbData {
  const body = value.replace(/^duckdb:(\/\/)?/i, "");
  const q = body.indexOf("?");
  const file = q < 0 ? body : body.slice(0, q);
  const params = new URLSearchParams(q < 0 ? "" : body.slice(q + 1));
  const hint = "give --data duckdb:FILE.duckdb?table=T (&key=COL to keep the rows in DuckDB)";
  if (file.trim() === "") {
    throw new CliUsageError(`--data ${value} names no database file; ${hint}`);
  }
  for (const k of params.keys()) {
    if (k !== "table" && k !== "key") {
      throw new CliUsageError(
        `--data ${value}: unknown parameter ${JSON.stringify(k)} (table and key are known)`,
      );
    }
  }
  const t = params.get("table");
  if (t === null || t.trim() === "") {
    throw new CliUsageError(`--data ${value} names no table; ${hint}`);
  }
  const parts = t.split(".");
  if (parts.length > 2 || parts.some((p) => p === "")) {
    throw new CliUsageError(
      `--data ${value}: table ${JSON.stringify(t)} must be NAME or SCHEMA.NAME`,
    );
  }
  const key = params.get("key");
  return {
    label: value,
    path: resolvePath(file),
    table: parts.length === 2 ? [parts[0], parts[1]] : parts[0],
    key: key === null || key.trim() === "" ? null : key,
  };
}

/**
 * Refuse, before the addon is loaded, a run that may not load it
 * (`--allow-ffi` missing) and a database file that cannot be read.
 *
 * @param d The table.
 * @throws {CliUsageError} Naming `--data`, the value and the flag to add.
 */
export function checkDuckDbAccess(d: DuckDbData): void {
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    throw new CliUsageError(
      `--data ${d.label}: DuckDB's native addon needs --allow-ffi (the cli task grants none): ` +
        `run deno run --allow-read --allow-write=. --allow-ffi cli.ts sample …`,
    );
  }
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(d.path);
  } catch (e) {
    throw new CliUsageError(
      `--data ${d.label}: the database file ${d.path} cannot be read: ${(e as Error).message}`,
    );
  }
  if (!info.isFile) {
    throw new CliUsageError(`--data ${d.label}: ${d.path} is not a DuckDB database file`);
  }
}

/** The table's name as SQL. */
function _from(d: DuckDbData): string {
  return typeof d.table === "string"
    ? quoteIdentifier(d.table)
    : d.table.map((p) => quoteIdentifier(p)).join(".");
}

/** A SELECT list of the table's columns as the CSV file holds them (numbers as DOUBLE or integers). */
function _selectList(d: DuckDbData, columns: { name: string; type: string }[]): string[] {
  return columns.map(({ name, type }) => {
    const q = quoteIdentifier(name), t = type.toUpperCase();
    if (/^(FLOAT|REAL|FLOAT4|DECIMAL.*|NUMERIC.*)$/.test(t)) return `CAST(${q} AS DOUBLE) AS ${q}`;
    if (t === "BOOLEAN") return `CAST(${q} AS INTEGER) AS ${q}`;
    if (/^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|DOUBLE|FLOAT8|VARCHAR|TEXT|STRING)$/.test(t)) {
      return q;
    }
    throw new RangeError(
      `column ${JSON.stringify(name)} of table ${
        typeof d.table === "string" ? d.table : d.table.join(".")
      } is ${type}, neither a number nor text`,
    );
  });
}

/** What {@link duckDbTableToCsv} wrote. */
export interface DuckDbCsv {
  /** The CSV file (in a private temporary directory). */
  path: string;
  /** Remove the file and its directory. */
  remove: () => Promise<void>;
}

/**
 * Read the table (or its first `limit` rows in key order) into a private CSV
 * file: a header of the column names, REAL and DECIMAL as DOUBLE, BOOLEAN
 * as 0/1, rows in key order when the key is given. A NULL in any column is
 * refused (naming the column, and the first key holding one).
 *
 * @param d The table.
 * @param options `limit`: read only the first rows in key order (needs the key).
 * @returns The file and how to remove it.
 * @throws {Error} DuckDB's refusal (a missing table or column), a column of
 *   another type, a NULL.
 */
export async function duckDbTableToCsv(
  d: DuckDbData,
  options: { limit?: number } = {},
): Promise<DuckDbCsv> {
  // The addon loads here, on first use (the version engines/duckdb.ts uses).
  const { DuckDBInstance } = await import("npm:@duckdb/node-api@1.5.5-r.5");
  const instance = await DuckDBInstance.create(d.path, { access_mode: "READ_ONLY", threads: "1" });
  const conn = await instance.connect().catch((e: unknown) => {
    instance.closeSync();
    throw e;
  });
  const dir = await Deno.makeTempDir({ prefix: "tallmc_duckdb_" });
  const remove = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    const from = _from(d);
    const rows = async (sql: string) =>
      (await conn.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
    const columns = (await rows(`DESCRIBE SELECT * FROM ${from}`)).map((r) => ({
      name: String(r.column_name),
      type: String(r.column_type),
    }));
    const list = _selectList(d, columns);
    const key = d.key === null ? null : quoteIdentifier(d.key);
    const nulls = await rows(
      `SELECT ${
        columns.map(({ name }, j) =>
          `count(*) - count(${quoteIdentifier(name)}) AS n${j}` +
          (key === null
            ? ""
            : `, min(${key}) FILTER (WHERE ${quoteIdentifier(name)} IS NULL) AS k${j}`)
        ).join(", ")
      } FROM ${from}`,
    );
    columns.forEach(({ name }, j) => {
      const n = Number(nulls[0][`n${j}`]);
      if (n > 0) {
        throw new RangeError(
          `column ${JSON.stringify(name)} holds ${n} NULL${n === 1 ? "" : "s"}${
            key === null ? "" : ` (the first at ${d.key} = ${nulls[0][`k${j}`]})`
          }: the model needs a number in every row`,
        );
      }
    });
    const limit = options.limit;
    if (limit !== undefined && (key === null || !(Number.isInteger(limit) && limit > 0))) {
      throw new RangeError(`reading the first ${limit} rows needs &key=COL and a positive count`);
    }
    const name = (typeof d.table === "string" ? d.table : d.table[1]).replace(/[^\w.-]/g, "_");
    const path = `${dir}/${name || "table"}.csv`;
    await conn.run(
      `COPY (SELECT ${list.join(", ")} FROM ${from}${key === null ? "" : ` ORDER BY ${key}`}${
        limit === undefined ? "" : ` LIMIT ${limit}`
      }) TO '${path.replaceAll("'", "''")}' (FORMAT CSV, HEADER true, DELIMITER ',')`,
    );
    return { path, remove };
  } catch (e) {
    await remove();
    throw e;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/**
 * The model over the table's rows left in DuckDB, with the family, prior and
 * columns of `glm` (the command line's model over the first rows):
 * `openDuckDbRows` and `defineModel({ prior, likelihood, rows: { database } })`.
 *
 * @param d The table (with its key).
 * @param glm The command line's model of the flags over the probe's rows.
 * @param response The response column.
 * @returns The model (its `close()` ends the worker).
 * @throws {TypeError} `defineModel`'s refusal of the family (naming it);
 *   the errors of `openDuckDbRows`.
 */
export async function openDuckDbModel(
  d: DuckDbData,
  glm: GlmModel,
  response: string,
): Promise<DatabaseGlmModel> {
  const { openDuckDbRows } = await import("../engines/duckdb.ts");
  const { defineModel } = await import("../models/compose.ts");
  const names = glm.data.columnNames, intercept = names[0] === "(Intercept)";
  const o = glm.options;
  const pick = (keys: readonly string[]) =>
    Object.fromEntries(
      keys.filter((k) => (o as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, (o as Record<string, unknown>)[k]]),
    );
  const source = await openDuckDbRows({
    database: d.path,
    source: { table: d.table },
    key: d.key!,
    columns: names.slice(intercept ? 1 : 0),
    response,
    intercept,
  });
  const prior = pick(["priorScale", "priorMean", "interceptColumn", "interceptPriorScale"]);
  return await defineModel({
    // The GLM's own prior settings ({} would be read as an empty prior spec).
    ...(Object.keys(prior).length === 0 ? {} : { prior }),
    likelihood: {
      family: o.family,
      ...pick(["sigma", "nu", "nuPrior", "scalePrior"]),
    },
    rows: { database: source },
  });
}
