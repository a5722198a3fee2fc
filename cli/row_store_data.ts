/**
 * `tallmc sample --data FILE.rows`: a row store (written by
 * `tallmc convert … OUT.rows`, layout in data/row_store_format.ts) sampled
 * out of core. The rows stay in the file: a `ShardedGlmModel` of stream
 * shards (models/sharded_glm.ts), one worker per shard, reads them block by
 * block at every full-data pass, and HMC-ECS's subsample updates read their
 * rows by index. Memory does not grow with n, so the file may hold more rows
 * than one WebAssembly memory (4 GiB) can.
 *
 * The flags are interpreted exactly as for a CSV file: the first
 * {@link PROBE_ROWS} rows are written to a private CSV file (every value as
 * its shortest round-trip decimal, so it reads back bit for bit) and the
 * command line's own model builder runs on it; the sharded model is then
 * opened with that model's family and prior, and the store's columns and
 * rows must equal the builder's. What a store fixes when it is written (its
 * columns, the intercept, the cell type) is refused as a flag that would
 * change it, and so is what needs every row in this process (a formula,
 * standardised columns, priors from the rows' moments, a family written in
 * AssemblyScript, a per-row offset or trials column).
 *
 * @module
 */
import { loadCore } from "../core/load.ts";
import { openRowStore, type RowStoreHeader } from "../data/row_store.ts";
import { CSV_INTERCEPT_NAME } from "../data/csv.ts";
import type { GlmModel } from "../models/glm.ts";
import { ShardedGlmModel } from "../models/sharded_glm.ts";
import { CliUsageError } from "./args.ts";
import { PROBE_ROWS, probeMismatch } from "./database_model.ts";
import { hasModelFlags } from "./model_flags.ts";
import type { FamilyChoice } from "./model_flags.ts";
import { modelFromFlags } from "./model_options.ts";
import { csvField } from "../data/column_names.ts";

/**
 * Why the flags cannot be served by a row store (a message naming the flag),
 * or null.
 *
 * @param values The parsed flags.
 * @param header The store's header.
 * @returns The reason, or null.
 */
export function rowStoreRefusal(
  values: Record<string, unknown>,
  header: RowStoreHeader,
): string | null {
  if (values["family-source"] !== undefined) {
    return "--family-source: a family written in AssemblyScript is not run over a row store from the command line (models/user_glm.ts's shardedUserGlmModel does it)";
  }
  if (hasModelFlags(values)) {
    return "--formula, --prior, --prior-intercept, --prior-file and --standardize take defaults or transforms from every row, which a row store's run never holds in one place; sample the CSV or Parquet file it was made from instead";
  }
  if (values.columns !== undefined) {
    return `--columns: a row store's columns are fixed when it is written (this one holds ${
      header.columnNames.join(", ")
    })`;
  }
  if (values["no-intercept"] === true && _hasIntercept(header)) {
    return "--no-intercept: the row store holds an intercept column; write one without it with tallmc convert … --no-intercept";
  }
  if (values.f32 && header.storage === "f64") {
    return "--f32: this row store holds X as f64; write an f32 one with tallmc convert … --storage f32";
  }
  for (const f of ["offset", "trials", "success"]) {
    if (values[f] !== undefined) {
      return `--${f}: a per-row column is not read from a row store by the command line`;
    }
  }
  if (header.auxName !== undefined) {
    return `the row store carries a per-row column (${header.auxName}), which the command line does not read; write the store without it`;
  }
  if (values.response !== header.responseName) {
    return `--response ${values.response}: the row store's response is ${header.responseName}`;
  }
  return null;
}

/** What {@link openRowStoreModel} returns. */
export interface RowStoreModel {
  /** The model over the store's rows (the caller closes it). */
  model: ShardedGlmModel;
  /** The store's header. */
  header: RowStoreHeader;
  /** Lines to print: the prior the builder chose. */
  priorLines: readonly string[];
}

/**
 * Open the row store `path` as a model for the flags.
 *
 * @param path The store.
 * @param values The parsed flags.
 * @param context The family choice and the number of stream shards (workers, ≥ 1).
 * @returns The model, its header and the prior's lines.
 * @throws {CliUsageError} Naming `--data` (or the flag) and what is wrong.
 */
export async function openRowStoreModel(
  path: string,
  values: Record<string, unknown>,
  context: { choice: FamilyChoice; shards: number },
): Promise<RowStoreModel> {
  let header: RowStoreHeader;
  let probe: string;
  const fail = (msg: string): never => {
    throw new CliUsageError(msg.includes(path) ? `--data: ${msg}` : `--data ${path}: ${msg}`);
  };
  try {
    const store = openRowStore(path);
    try {
      header = store.header;
      const why = rowStoreRefusal(values, header);
      if (why !== null) throw new CliUsageError(`--data ${path} is a row store: ${why}`);
      probe = await _probeCsv(store, header);
    } finally {
      store.close();
    }
  } catch (e) {
    if (e instanceof CliUsageError) throw e;
    return fail((e as Error).message);
  }
  const intercept = _hasIntercept(header);
  let glm: GlmModel;
  let priorLines: readonly string[] = [];
  try {
    const built = await modelFromFlags(loadCore(), probe, {
      ...values,
      "no-intercept": !intercept,
    }, { choice: context.choice, storage: "f64" });
    glm = built.model;
    priorLines = built.priorLines ?? [];
  } catch (e) {
    if (e instanceof CliUsageError) throw e;
    return fail((e as Error).message.replaceAll(probe, path));
  } finally {
    await Deno.remove(probe).catch(() => {});
  }
  const { offset: _o, trials: _t, ...glmOptions } = glm.options;
  let model: ShardedGlmModel;
  try {
    model = await ShardedGlmModel.create(path, glmOptions, {
      workers: Math.max(1, context.shards),
      shardKind: "stream",
      // openRowStore above compared the recorded source file's fingerprint.
      checkSource: false,
    });
  } catch (e) {
    return fail((e as Error).message);
  }
  const names = glm.data.columnNames.join(", "), held = header.columnNames.join(", ");
  const why = names !== held
    ? `the flags give the columns ${names}, the row store holds ${held}`
    : probeMismatch(glm, model);
  if (why !== null) {
    model.close();
    fail(why);
  }
  return { model, header, priorLines };
}

/**
 * The store's first {@link PROBE_ROWS} rows as a private CSV file (response
 * first, then the columns without the intercept), every value written as its
 * shortest round-trip decimal.
 */
async function _probeCsv(
  store: ReturnType<typeof openRowStore>,
  header: RowStoreHeader,
): Promise<string> {
  const k = Math.min(PROBE_ROWS, header.numRows), d = header.numCols;
  if (k === 0) throw new RangeError("the row store holds no rows");
  const x = new Float64Array(k * d), y = new Float64Array(k);
  store.readRows(Int32Array.from({ length: k }, (_, i) => i), x, y);
  const from = _hasIntercept(header) ? 1 : 0;
  const lines = [[header.responseName, ...header.columnNames.slice(from)].map(csvField).join(",")];
  for (let i = 0; i < k; i++) {
    const cells = [String(y[i])];
    for (let j = from; j < d; j++) cells.push(String(x[i * d + j]));
    lines.push(cells.join(","));
  }
  const path = await Deno.makeTempFile({ prefix: "tallmc-probe-", suffix: ".csv" });
  await Deno.writeTextFile(path, lines.join("\n") + "\n", { mode: 0o600 });
  return path;
}

/** Whether the store's X starts with the intercept (a column of ones `convert` adds). */
function _hasIntercept(header: RowStoreHeader): boolean {
  return header.columnNames[0] === CSV_INTERCEPT_NAME;
}
