/**
 * Fixtures for the PostgreSQL tests and bench: a throw-away server on
 * loopback (started by `.ci/postgres.sh`, or the one `.ci/run` started and
 * named in TALLMC_PG_URL), and a data set in the arena loaded into a table
 * by COPY from a CSV file.
 */
import pg from "npm:pg@8.16.3";
import type { GlmData } from "../data/dataset.ts";
import { quoteIdentifier } from "../engines/control_variate_sql.ts";

/** A running server, or why there is none. */
export type PostgresServer =
  | { url: string; stop: () => Promise<void>; skip?: undefined }
  | { skip: string; url?: undefined };

const SCRIPT = new URL("../.ci/postgres.sh", import.meta.url).pathname;

/**
 * The server of TALLMC_PG_URL when set and reachable; otherwise start one
 * with `.ci/postgres.sh start port` (installing Debian's postgresql when
 * missing and run as root). `stop` stops only a server started here.
 */
export async function startPostgres(port = 54339): Promise<PostgresServer> {
  const given = Deno.env.get("TALLMC_PG_URL");
  if (given) {
    const why = await _reachable(given);
    if (why === "") return { url: given, stop: () => Promise.resolve() };
    return { skip: `TALLMC_PG_URL is set but the server does not answer: ${why}` };
  }
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("bash", { args: [SCRIPT, "start", String(port)] }).output();
  } catch (e) {
    return { skip: `could not run ${SCRIPT}: ${(e as Error).message}` };
  }
  if (!out.success) {
    return { skip: new TextDecoder().decode(out.stderr).trim() || "postgres.sh start failed" };
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    stop: async () => {
      await new Deno.Command("bash", { args: [SCRIPT, "stop", String(port)] }).output();
    },
  };
}

async function _reachable(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return "";
  } catch (e) {
    return (e as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * Create `table` with columns `fromCol`… of X (DOUBLE PRECISION for f64
 * storage, REAL for f32: the arena's values unchanged) and y (named
 * `response`, DOUBLE PRECISION), plus `extra` columns computed from y and,
 * with `key`, a first BIGINT PRIMARY KEY column holding the row index
 * (`extra`'s functions get the row index as their second argument), and
 * fill it by a server-side COPY of a CSV file written to `dir` (which the
 * server must be able to read). Returns the column names of X.
 */
export async function loadTable(
  client: { query(sql: string): Promise<unknown> },
  data: GlmData,
  dir: string,
  options: {
    fromCol?: number;
    response?: string;
    table?: string;
    extra?: Record<string, (y: number, row: number) => number>;
    key?: string;
  } = {},
): Promise<string[]> {
  const n = data.numRows, d = data.numCols, from = options.fromCol ?? 0;
  const table = options.table ?? "glm_rows", resp = options.response ?? "y";
  const extra = Object.entries(options.extra ?? {});
  const names = data.columnNames.slice(from);
  const type = data.storage === "f64" ? "DOUBLE PRECISION" : "REAL";
  const q = (s: string) => quoteIdentifier(s, "postgres");
  const key = options.key;
  const cols = [
    ...(key === undefined ? [] : [`${q(key)} BIGINT PRIMARY KEY`]),
    ...names.map((c) => `${q(c)} ${type}`),
    `${q(resp)} DOUBLE PRECISION`,
    ...extra.map(([c]) => `${q(c)} DOUBLE PRECISION`),
  ];
  await client.query(`DROP TABLE IF EXISTS ${q(table)}`);
  await client.query(`CREATE TABLE ${q(table)} (${cols.join(", ")})`);
  const x = data.storage === "f64" ? data.arena.f64(data.x, n * d) : data.arena.f32(data.x, n * d);
  const y = data.arena.f64(data.y, n);
  // Shortest round-trip decimal: PostgreSQL reads every value back exactly.
  // Written in chunks: 10⁶ rows of 31 numbers exceed V8's longest string.
  await Deno.chmod(dir, 0o755);
  const path = `${dir}/${table}.csv`;
  const file = await Deno.open(path, { write: true, create: true, truncate: true, mode: 0o644 });
  try {
    const enc = new TextEncoder();
    for (let i0 = 0; i0 < n; i0 += 20_000) {
      const lines: string[] = [];
      for (let i = i0; i < Math.min(n, i0 + 20_000); i++) {
        const row: number[] = key === undefined ? [] : [i];
        for (let j = from; j < d; j++) row.push(x[i * d + j]);
        row.push(y[i]);
        for (const [, f] of extra) row.push(f(y[i], i));
        lines.push(row.join(","));
      }
      const bytes = enc.encode(lines.join("\n") + "\n");
      for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
    }
  } finally {
    file.close();
  }
  await client.query(
    `COPY ${q(table)} FROM '${path.replaceAll("'", "''")}' WITH (FORMAT csv)`,
  );
  await Deno.remove(path);
  return names;
}
