/**
 * A table in PostgreSQL or ClickHouse read into this process, for
 * `tallmc sample --data postgres://…?table=T` and `--data clickhouse://…?table=T`:
 * the rows are read once, every number exactly (PostgreSQL REAL and
 * ClickHouse Float32 columns are widened to double in the query; doubles
 * come back as shortest round-trip decimals), and written to a private CSV
 * file that the command line then reads like any other `--data` file.
 *
 * URL parameters: `table` (required; `schema.table` or `database.table`
 * for a qualified name) and `key` (optional: a column to ORDER BY, so that
 * the row order — and with it the draws for a seed — does not depend on the
 * engine, e.g. on which shard of a Distributed table answers first). All
 * other parts of the URL are the engine's: PostgreSQL's user, host, port,
 * database (password from the URL or PGPASSWORD, as `npm:pg` reads it);
 * ClickHouse's HTTP port (password from the URL or CLICKHOUSE_PASSWORD).
 * No message ever holds the password: the URL is shown with it replaced
 * by `***`.
 *
 * A missing table, a column that holds NULLs, or a column of a type that is
 * neither a number nor text is an error naming the table and the column.
 *
 * @module
 */
import { clickhouseConnection, clickhouseQuery } from "./clickhouse.ts";
import { quoteIdentifier } from "./control_variate_sql.ts";
import { csvField } from "../data/column_names.ts";

/** Whether `--data` names a database table rather than a file. */
export function isDatabaseUrl(data: unknown): data is string {
  return typeof data === "string" && /^(postgres(ql)?|clickhouses?):\/\//i.test(data);
}

/**
 * The URL with its password replaced by `***` (for messages).
 *
 * @param url A database URL.
 * @returns The URL safe to print.
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { redactDatabaseUrl } from "./database_rows.ts";
 * assert.equal(
 *   redactDatabaseUrl("postgres://me:pw@db:5432/x?table=t"),
 *   "postgres://me:***@db:5432/x?table=t",
 * );
 * ```
 */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    // Not parseable: drop anything between "//" and "@".
    return url.replace(/\/\/[^/@]*@/, "//***@");
  }
}

/** The CSV file holding a table's rows, and how to name it in messages. */
export interface DatabaseCsv {
  /** The CSV file (in a private temporary directory). */
  path: string;
  /** The URL with the password replaced, for messages and output metadata. */
  label: string;
  /** Number of rows read. */
  numRows: number;
  /** Remove the file and its directory. */
  remove: () => Promise<void>;
}

/**
 * Refuse early, with the flags to add, when the process may not reach the
 * server or read the connection's environment (the `cli` task grants
 * neither): Deno would otherwise stop at the driver's first access with a
 * message about a variable the user never named.
 */
function _checkPermissions(u: URL): void {
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const net = Deno.permissions.querySync({ name: "net", host }).state;
  const env = Deno.permissions.querySync({ name: "env" }).state;
  const missing: string[] = [];
  if (net !== "granted") missing.push(`--allow-net=${host}`);
  if (env !== "granted") missing.push("--allow-env");
  if (missing.length > 0) {
    throw new Error(
      `needs ${missing.join(" and ")} (the connection's host, and the driver's USER / ` +
        `PGPASSWORD / CLICKHOUSE_PASSWORD variables): run ` +
        `deno run --allow-read --allow-write=. ${missing.join(" ")} cli.ts sample …`,
    );
  }
}

/**
 * Read the table of a `postgres://` or `clickhouse://` URL into a CSV file
 * (header row of column names, one line per row).
 *
 * @param url The URL with `?table=T` (and optionally `&key=COLUMN`).
 * @param options `limit`: read only the first rows in key order (needs `key`).
 * @returns The file, the printable label and the row count.
 */
export async function databaseTableToCsv(
  url: string,
  options: { limit?: number } = {},
): Promise<DatabaseCsv> {
  const label = redactDatabaseUrl(url);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError("is not a URL (postgres://user@host:port/db?table=T)");
  }
  const table = u.searchParams.get("table");
  if (table === null || table.trim() === "") {
    throw new RangeError("names no table: add ?table=NAME to the URL");
  }
  _checkPermissions(u);
  const key = u.searchParams.get("key");
  const limit = options.limit;
  if (limit !== undefined && (key === null || !(Number.isInteger(limit) && limit > 0))) {
    throw new RangeError(`reading the first ${limit} rows needs &key=COLUMN and a positive count`);
  }
  const tail = limit === undefined ? "" : ` LIMIT ${limit}`;
  u.searchParams.delete("table");
  u.searchParams.delete("key");
  const parts = table.split(".");
  const isPg = /^postgres/i.test(u.protocol);
  const read = isPg
    ? await _readPostgres(u, parts, key, tail)
    : await _readClickHouse(u, parts, key, tail);
  const dir = await Deno.makeTempDir({ prefix: "tallmc_db_" });
  const path = `${dir}/${parts[parts.length - 1].replace(/[^\w.-]/g, "_") || "table"}.csv`;
  const remove = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
    try {
      const enc = new TextEncoder();
      const write = async (text: string) => {
        const bytes = enc.encode(text);
        for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
      };
      await write(read.names.map(csvField).join(",") + "\n");
      const lines: string[] = [];
      for (let i = 0; i < read.rows.length; i++) {
        const row = read.rows[i];
        for (let j = 0; j < row.length; j++) {
          if (row[j] === null || row[j] === undefined) {
            throw new RangeError(
              `column "${read.names[j]}" of table ${table} holds NULL (row ${
                i + 1
              }): drop or fill those rows (a view with WHERE "${read.names[j]}" IS NOT NULL)`,
            );
          }
        }
        lines.push(row.map((v) => csvField(String(v))).join(","));
        if (lines.length === 10_000) {
          await write(lines.join("\n") + "\n");
          lines.length = 0;
        }
      }
      if (lines.length > 0) await write(lines.join("\n") + "\n");
    } finally {
      file.close();
    }
  } catch (e) {
    await remove();
    throw e;
  }
  return { path, label, numRows: read.rows.length, remove };
}

type Read = { names: string[]; rows: unknown[][] };

async function _readPostgres(
  u: URL,
  parts: string[],
  key: string | null,
  tail: string,
): Promise<Read> {
  if (parts.length > 2) {
    throw new RangeError(`table must be NAME or SCHEMA.NAME, got ${parts.join(".")}`);
  }
  const schema = parts.length === 2 ? parts[0] : null, name = parts[parts.length - 1];
  const shown = parts.join(".");
  // Loaded here, not at import: the driver reads USER from the environment as
  // it loads, before the permission check could name the flags.
  const { default: pg } = await import("npm:pg@8.16.3");
  const client = new pg.Client({
    connectionString: u.toString().replace(/^postgresql:/i, "postgres:"),
  });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `could not connect to PostgreSQL at ${u.hostname}:${u.port || 5432}: ${(e as Error).message}`,
    );
  }
  try {
    const cols = await client.query(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_name = $1 AND table_schema = COALESCE($2, current_schema())
       ORDER BY ordinal_position`,
      [name, schema],
    );
    if (cols.rows.length === 0) {
      throw new RangeError(`table ${shown} does not exist (or has no columns) in this database`);
    }
    const q = (s: string) => quoteIdentifier(s, "postgres");
    const names = cols.rows.map((r: Record<string, unknown>) => String(r.column_name));
    const select = cols.rows.map((r: Record<string, unknown>) => {
      const c = String(r.column_name), t = String(r.data_type);
      if (/^(double precision|real|numeric|integer|bigint|smallint|decimal)$/.test(t)) {
        return `CAST(${q(c)} AS DOUBLE PRECISION) AS ${q(c)}`;
      }
      if (t === "boolean") return `CAST(${q(c)} AS INTEGER) AS ${q(c)}`;
      if (/^(text|character varying|character)$/.test(t)) return q(c);
      throw new RangeError(`column "${c}" of table ${shown} is ${t}, neither a number nor text`);
    });
    if (key !== null && !names.includes(key)) {
      throw new RangeError(`table ${shown} has no column "${key}" (the key)`);
    }
    const from = (schema === null ? [] : [q(schema)]).concat(q(name)).join(".");
    let res;
    try {
      res = await client.query({
        text: `SELECT ${select.join(", ")} FROM ${from}${
          key === null ? "" : ` ORDER BY ${q(key)}`
        }${tail}`,
        rowMode: "array",
      });
    } catch (e) {
      throw new Error(`reading table ${shown} failed: ${(e as Error).message}`);
    }
    return { names, rows: res.rows as unknown[][] };
  } finally {
    await client.end().catch(() => {});
  }
}

const CH_NUMBER = /^(Nullable\()?(Float(32|64)|U?Int(8|16|32|64)|Decimal.*)\)?$/;
const CH_TEXT = /^(Nullable\()?(String|FixedString\(\d+\)|LowCardinality\(.*\))\)?$/;

async function _readClickHouse(
  u: URL,
  parts: string[],
  key: string | null,
  tail: string,
): Promise<Read> {
  if (parts.length > 2) {
    throw new RangeError(`table must be NAME or DATABASE.NAME, got ${parts.join(".")}`);
  }
  const shown = parts.join(".");
  const conn = clickhouseConnection(u.toString().replace(/\?.*$/, ""));
  const q = (s: string) => quoteIdentifier(s, "clickhouse");
  const from = parts.map(q).join(".");
  let desc;
  try {
    desc = await clickhouseQuery(conn, `DESCRIBE TABLE ${from}`);
  } catch (e) {
    throw new Error(`table ${shown}: ${(e as Error).message}`);
  }
  const names = desc.rows.map((r) => String(r.name));
  const select = desc.rows.map((r) => {
    const c = String(r.name), t = String(r.type);
    if (CH_NUMBER.test(t)) {
      return `CAST(${q(c)} AS ${t.startsWith("Nullable") ? "Nullable(Float64)" : "Float64"}) AS ${
        q(c)
      }`;
    }
    if (CH_TEXT.test(t)) return q(c);
    throw new RangeError(`column "${c}" of table ${shown} is ${t}, neither a number nor text`);
  });
  if (key !== null && !names.includes(key)) {
    throw new RangeError(`table ${shown} has no column "${key}" (the key)`);
  }
  let res;
  try {
    res = await clickhouseQuery(
      conn,
      `SELECT ${select.join(", ")} FROM ${from}${key === null ? "" : ` ORDER BY ${q(key)}`}${tail}`,
    );
  } catch (e) {
    throw new Error(`reading table ${shown} failed: ${(e as Error).message}`);
  }
  return { names, rows: res.rows.map((r) => names.map((n) => r[n])) };
}
