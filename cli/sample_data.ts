/**
 * Where the rows of `tallmc sample --data` come from: a CSV or Parquet file
 * (refused when missing, a directory or binary other than Parquet), standard
 * input, or a database table (`postgres://…`, `clickhouse://…`, a DuckDB
 * file's `duckdb:FILE?table=T`: ./duckdb_data.ts). A keyed table under
 * `--sampler hmc-ecs` keeps its rows in the engine (fetched by key,
 * full-data passes in SQL: cli/database_model.ts); any other table is read
 * whole into a private CSV file, removed once the model is built. A row
 * store (`tallmc convert … OUT.rows`) keeps its rows in the file, streamed
 * by shard workers (./row_store_data.ts).
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import type { DatabaseGlmModel } from "../engines/database_glm.ts";
import { CliUsageError, resolveUserPath } from "./args.ts";
import {
  checkDuckDbAccess,
  duckDbDataOf,
  duckDbTableToCsv,
  isDuckDbData,
  openDuckDbModel,
} from "./duckdb_data.ts";
import { binaryKind, headBytes } from "./file_kind.ts";
import type { FamilyChoice } from "./model_flags.ts";
import { modelFromFlags } from "./model_options.ts";
import { openRowStoreModel, type RowStoreModel } from "./row_store_data.ts";
import { userMessage as _userMessage } from "./sample_flags.ts";

/** What {@link openSampleData} found. */
export interface SampleData {
  /** The file to load: `--data` itself, `-` (stdin), a private CSV of a table, or "" when the rows stay in the database. */
  dataPath: string;
  /** How messages name the data (a database URL without its password). */
  dataLabel: string;
  /** Removes the private CSV of a table read whole (else does nothing). */
  remove: () => Promise<void>;
  /** The model over a keyed table whose rows stay in the engine, or null. */
  dbModel: DatabaseGlmModel | null;
  /** The model over a row store whose rows stay in the file, or null. */
  rowStore: RowStoreModel | null;
}

/**
 * Open `--data`: a database URL is either kept in the engine (HMC-ECS over a
 * keyed table, the caller's `cleanups` closing it) or read into a private
 * CSV file; a file path is checked.
 *
 * @param values The flags' values.
 * @param context The database URL (or null), the resolved path, the sampler,
 *   the family choice, the workers asked for (for a note, and a row store's
 *   shards), the cleanups to run when the command ends, and whether the path
 *   is a row store (`isRowStoreFile`).
 * @returns The data's path and label, how to remove a private copy, and the
 *   database or row store model.
 * @throws {CliUsageError} Naming `--data`.
 */
export async function openSampleData(
  values: Record<string, unknown>,
  context: {
    dbUrl: string | null;
    dataPath: string;
    samplerName: string;
    choice: FamilyChoice;
    numWorkers: number;
    cleanups: (() => void)[];
    rowStoreData: boolean;
  },
): Promise<SampleData> {
  const { dbUrl, samplerName, choice, numWorkers, cleanups } = context;
  let dataPath = context.dataPath;
  let dataLabel = dataPath, dbRemove = () => Promise.resolve();
  // HMC-ECS over a keyed table: the rows stay in the engine (cli/database_model.ts).
  let dbModel: DatabaseGlmModel | null = null;
  // A DuckDB file: refused here, before the addon loads, without --allow-ffi.
  const duck = dbUrl !== null && isDuckDbData(dbUrl) ? duckDbDataOf(dbUrl, resolveUserPath) : null;
  if (duck !== null) checkDuckDbAccess(duck);
  if (dbUrl !== null) {
    // Imported only for a database URL: a file's run does not load the database clients.
    const { databaseRefusal, openDatabaseModel } = await import("./database_model.ts");
    const label = duck?.label ??
      (await import("../engines/database_rows.ts")).redactDatabaseUrl(dbUrl);
    let why = databaseRefusal(duck ?? dbUrl, values, samplerName);
    if (why === null) {
      let opened;
      const response = values.response as string;
      try {
        opened = await openDatabaseModel(
          dbUrl,
          response,
          async (path) =>
            (await modelFromFlags(loadCore(), path, values, { choice, storage: "f64" })).model,
          duck === null ? undefined : {
            probe: (limit) => duckDbTableToCsv(duck, { limit }),
            open: (glm) => openDuckDbModel(duck, glm, response),
          },
        );
      } catch (e) {
        const msg = _userMessage((e as Error).message, null);
        throw new CliUsageError(msg.includes(label) ? `--data: ${msg}` : `--data ${label}: ${msg}`);
      }
      if ("model" in opened) {
        dbModel = opened.model;
        cleanups.push(() => opened.model.close());
      } else why = opened.reason;
    }
    if (dbModel !== null) {
      dataLabel = label;
      if (numWorkers > 0 && values.workers !== undefined && !values.quiet) {
        console.error(
          `tallmc: note: --workers ${numWorkers}: chains run in this thread (the rows are fetched by key over one connection)`,
        );
      }
      if (!values.quiet) {
        console.log(
          `rows stay in the database: ${dbModel.numRows} rows fetched by key per subsample update, full-data passes run as SQL`,
        );
      }
    } else if (!values.quiet) {
      console.error(
        `tallmc: note: --data ${label}: the whole table is read into this process: ${why}`,
      );
    }
  }
  if (duck !== null && dbModel === null) {
    try {
      const t = await duckDbTableToCsv(duck);
      dataPath = t.path;
      dataLabel = duck.label;
      dbRemove = t.remove;
    } catch (e) {
      throw new CliUsageError(`--data ${duck.label}: ${(e as Error).message}`);
    }
  } else if (dbUrl !== null && dbModel === null) {
    const db = await import("../engines/database_rows.ts");
    try {
      const t = await db.databaseTableToCsv(dbUrl);
      dataPath = t.path;
      dataLabel = t.label;
      dbRemove = t.remove;
    } catch (e) {
      throw new CliUsageError(`--data ${db.redactDatabaseUrl(dbUrl)}: ${(e as Error).message}`);
    }
  }
  if (context.rowStoreData) {
    const rowStore = await openRowStoreModel(dataPath, values, { choice, shards: numWorkers });
    cleanups.push(() => rowStore.model.close());
    if (!values.quiet) {
      const m = rowStore.model, shards = m.shardBounds.length - 1;
      console.log(
        `rows stay in the row store: ${m.numRows} rows (X as ${m.storage}) streamed by ${shards} worker${
          shards === 1 ? "" : "s"
        } at each full-data pass${
          samplerName === "hmc-ecs" ? ", read by index per subsample update" : ""
        }`,
      );
      if (samplerName !== "hmc-ecs") {
        console.error(
          `tallmc: note: --data ${dataPath}: every step of --sampler ${samplerName} reads all ${m.numRows} rows from the file; --sampler hmc-ecs reads a subsample`,
        );
      }
    }
    return { dataPath, dataLabel, remove: dbRemove, dbModel, rowStore };
  }
  if (dbModel === null) await _checkDataFile(dataPath);
  return { dataPath, dataLabel, remove: dbRemove, dbModel, rowStore: null };
}

/** Refuse a `--data` path that is missing, a directory or a binary file other than Parquet. */
async function _checkDataFile(dataPath: string): Promise<void> {
  let dataInfo: Deno.FileInfo;
  try {
    dataInfo = dataPath === "-"
      ? { isDirectory: false } as Deno.FileInfo
      : await Deno.stat(dataPath);
  } catch (e) {
    throw new CliUsageError(`--data ${dataPath} cannot be read: ${(e as Error).message}`);
  }
  if (dataInfo.isDirectory) {
    throw new CliUsageError(
      `--data ${dataPath} is a directory; give the path of a CSV or Parquet file`,
    );
  }
  if (!/\.parquet$/i.test(dataPath)) {
    const head = headBytes(dataPath);
    const kind = head === null ? null : binaryKind(head);
    if (kind !== null) {
      throw new CliUsageError(
        `--data ${dataPath} is ${kind}, not CSV text${
          /Parquet/.test(kind)
            ? "; name it with the extension .parquet to read it as Parquet"
            : /DuckDB/.test(kind)
            ? `; read one of its tables with --data duckdb:${dataPath}?table=T`
            : ""
        }`,
      );
    }
  }
}
