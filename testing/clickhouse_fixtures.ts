/**
 * Fixtures for the ClickHouse tests: a throw-away cluster of two shards on
 * loopback (started by `.ci/clickhouse.sh`, or the one `.ci/run` started
 * and named in TALLMC_CH_URLS), and a data set in the arena split over a
 * local table on each shard (loaded with `FORMAT RowBinary`, so every double
 * arrives exactly) under one Distributed table.
 */
import type { GlmData } from "../data/dataset.ts";
import { clickhouseQuery } from "../engines/clickhouse.ts";
import { quoteIdentifier } from "../engines/control_variate_sql.ts";

/** The cluster name `.ci/clickhouse.sh` declares on both shards. */
export const CLUSTER = "tallmc_two_shards";

/** A running two-shard cluster (the HTTP endpoint of each shard), or why there is none. */
export type ClickHouseCluster =
  | { shards: [string, string]; stop: () => Promise<void>; skip?: undefined }
  | { skip: string; shards?: undefined };

const SCRIPT = new URL("../.ci/clickhouse.sh", import.meta.url).pathname;

/**
 * The cluster of TALLMC_CH_URLS (two HTTP endpoints, comma-separated) when
 * set and answering; otherwise start one with `.ci/clickhouse.sh start port`
 * (installing Debian's clickhouse-server when missing, as root). `stop`
 * stops only a cluster started here.
 */
export async function startClickHouse(port = 19200): Promise<ClickHouseCluster> {
  const given = Deno.env.get("TALLMC_CH_URLS");
  if (given) {
    const urls = given.split(",").map((s) => s.trim());
    if (urls.length !== 2) {
      return { skip: `TALLMC_CH_URLS must name two HTTP endpoints, got ${given}` };
    }
    for (const u of urls) {
      try {
        await clickhouseQuery(u, "SELECT 1");
      } catch (e) {
        return { skip: `TALLMC_CH_URLS is set but ${u} does not answer: ${(e as Error).message}` };
      }
    }
    return { shards: [urls[0], urls[1]], stop: () => Promise.resolve() };
  }
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("bash", { args: [SCRIPT, "start", String(port)] }).output();
  } catch (e) {
    return { skip: `could not run ${SCRIPT}: ${(e as Error).message}` };
  }
  if (!out.success) {
    return { skip: new TextDecoder().decode(out.stderr).trim() || "clickhouse.sh start failed" };
  }
  return {
    shards: [`http://127.0.0.1:${port + 10}`, `http://127.0.0.1:${port + 11}`],
    stop: async () => {
      await new Deno.Command("bash", { args: [SCRIPT, "stop", String(port)] }).output();
    },
  };
}

/**
 * Create `${table}_local` on each shard (X columns `fromCol`… as Float64 for
 * f64 storage, Float32 for f32; y Float64 named `response`), put rows
 * 0 … split−1 on shard 1 and the rest on shard 2, and a Distributed table
 * `table` over them on both shards. With `key`, a first UInt64 column of
 * that name holds the row index (the local tables are ordered by it, with
 * `indexGranularity` rows per index mark, default 8192). With `aux`, a
 * Float64 column of that name after y holds its values. Returns the column
 * names of X.
 */
export async function loadSharded(
  shards: readonly [string, string],
  data: GlmData,
  options: {
    fromCol?: number;
    response?: string;
    table?: string;
    split?: number;
    key?: string;
    indexGranularity?: number;
    aux?: { name: string; values: ArrayLike<number> };
  } = {},
): Promise<string[]> {
  const n = data.numRows, d = data.numCols, from = options.fromCol ?? 0;
  const table = options.table ?? "glm_rows", resp = options.response ?? "y";
  const split = options.split ?? Math.floor(n / 2);
  const names = data.columnNames.slice(from);
  const f64 = data.storage === "f64";
  const q = (s: string) => quoteIdentifier(s, "clickhouse");
  const key = options.key;
  const cols = [
    ...(key === undefined ? [] : [`${q(key)} UInt64`]),
    ...names.map((c) => `${q(c)} ${f64 ? "Float64" : "Float32"}`),
    `${q(resp)} Float64`,
    ...(options.aux === undefined ? [] : [`${q(options.aux.name)} Float64`]),
  ];
  const local = q(`${table}_local`);
  const x = f64 ? data.arena.f64(data.x, n * d) : data.arena.f32(data.x, n * d);
  const y = data.arena.f64(data.y, n);
  const width = (d - from) * (f64 ? 8 : 4) + 8 + (key === undefined ? 0 : 8) +
    (options.aux === undefined ? 0 : 8);
  for (let s = 0; s < 2; s++) {
    const url = shards[s];
    await clickhouseQuery(url, `DROP TABLE IF EXISTS ${q(table)}`, { json: false });
    await clickhouseQuery(url, `DROP TABLE IF EXISTS ${local}`, { json: false });
    await clickhouseQuery(
      url,
      `CREATE TABLE ${local} (${cols.join(", ")}) ENGINE = MergeTree ORDER BY ${
        key === undefined ? "tuple()" : q(key)
      }${
        key === undefined ? "" : ` SETTINGS index_granularity = ${options.indexGranularity ?? 8192}`
      }`,
      { json: false },
    );
    const i0 = s === 0 ? 0 : split, i1 = s === 0 ? split : n;
    const buf = new ArrayBuffer((i1 - i0) * width), view = new DataView(buf);
    let off = 0;
    for (let i = i0; i < i1; i++) {
      if (key !== undefined) {
        view.setBigUint64(off, BigInt(i), true);
        off += 8;
      }
      for (let j = from; j < d; j++) {
        if (f64) {
          view.setFloat64(off, x[i * d + j], true);
          off += 8;
        } else {
          view.setFloat32(off, x[i * d + j], true);
          off += 4;
        }
      }
      view.setFloat64(off, y[i], true);
      off += 8;
      if (options.aux !== undefined) {
        view.setFloat64(off, options.aux.values[i], true);
        off += 8;
      }
    }
    await clickhouseQuery(url, `INSERT INTO ${local} FORMAT RowBinary`, {
      body: new Uint8Array(buf),
    });
    await clickhouseQuery(
      url,
      `CREATE TABLE ${q(table)} AS ${local} ENGINE = Distributed(${CLUSTER}, default, ${local})`,
      { json: false },
    );
  }
  return names;
}
