/**
 * `tallmc sample --sampler hmc-ecs --data postgres://…?table=T&key=K` (or
 * `clickhouse://…`) with the rows left in the engine: the model is an
 * `engines/database_glm.ts` GLM, which fetches each subsample update's rows
 * by key and runs every full-data pass (HMC-ECS's centring at θ*, its Newton
 * steps) as SQL where the rows are. Nothing of size n is read into this
 * process and no temporary file is written.
 *
 * The flags are interpreted exactly as for a file: the first
 * {@link PROBE_ROWS} rows (in key order) are read into a private CSV file and
 * the command line's own model builder runs on it; the database model is
 * then opened with that model's columns, response, family and prior, and its
 * rows by key must equal the builder's rows bit for bit. When they cannot —
 * a flag whose meaning needs every row in this process — the caller reads
 * the whole table instead, and says why:
 *
 * ```
 *  --formula, --prior, --prior-intercept, --prior-file, --standardize
 *                       default priors and transforms from all rows' moments
 *  --f32                the rows would be rounded in this process only
 *  --offset/--trials/--success, a text response, a family with a scale
 *                       not in the SQL (only logistic, poisson, gaussian with --sigma)
 *  no &key=COLUMN       rows are fetched by key
 *  --sampler ≠ hmc-ecs  every other sampler needs every row at every step
 * ```
 *
 * @module
 */
import { dataViews } from "../core/row_buffer.ts";
import type { DatabaseGlmModel } from "../engines/database_glm.ts";
import type { GlmModel } from "../models/glm.ts";
import { hasModelFlags } from "./model_flags.ts";

/** Rows read to interpret the flags and to check the database model against. */
export const PROBE_ROWS = 1000;

/**
 * Why the rows must be read into this process (a reason for a note), or null
 * when the database model may serve them.
 *
 * @param url The `--data` URL.
 * @param values The parsed flags.
 * @param samplerName The sampler.
 * @returns The reason, or null.
 */
export function databaseRefusal(
  url: string,
  values: Record<string, unknown>,
  samplerName: string,
): string | null {
  if (samplerName !== "hmc-ecs") {
    return `--sampler ${samplerName} evaluates every row at every step (only hmc-ecs fetches rows by key)`;
  }
  let key: string | null = null;
  try {
    key = new URL(url).searchParams.get("key");
  } catch {
    return null; // the reader names the bad URL
  }
  if (!key) return "the URL names no &key=COLUMN to fetch rows by";
  if (hasModelFlags(values)) {
    return "--formula, --prior, --prior-intercept, --prior-file and --standardize take defaults or transforms from every row";
  }
  if (values.f32) return "--f32 stores rows rounded in this process";
  for (const f of ["offset", "trials", "success"]) {
    if (values[f] !== undefined) return `--${f} is a per-row column the row source does not carry`;
  }
  return null;
}

/**
 * Open the database model for the flags, or say why not.
 *
 * @param url The `--data` URL.
 * @param response The `--response` column.
 * @param build The command line's model builder, run on a CSV file.
 * @returns The model, or the reason to read the whole table instead.
 */
export async function openDatabaseModel(
  url: string,
  response: string,
  build: (path: string) => Promise<GlmModel>,
): Promise<{ model: DatabaseGlmModel } | { reason: string }> {
  const { databaseTableToCsv } = await import("../engines/database_rows.ts");
  const { openDatabaseGlm } = await import("../engines/database_glm.ts");
  const probe = await databaseTableToCsv(url, { limit: PROBE_ROWS });
  let glm: GlmModel;
  try {
    glm = await build(probe.path);
  } finally {
    await probe.remove();
  }
  const names = glm.data.columnNames;
  const intercept = names[0] === "(Intercept)";
  const { offset: _o, trials: _t, ...options } = glm.options;
  if (_o !== undefined || _t !== undefined) {
    return { reason: "the family's per-row column is not carried by the row source" };
  }
  if (glm.dim !== glm.numCols) {
    return { reason: `family ${glm.family} has a scale parameter the centring SQL does not cover` };
  }
  let model: DatabaseGlmModel;
  try {
    model = await openDatabaseGlm({
      connection: url,
      columns: names.slice(intercept ? 1 : 0),
      response,
      intercept,
      glm: options,
    });
  } catch (e) {
    return { reason: (e as Error).message };
  }
  // The probe's rows, fetched by key, must be the builder's rows.
  const k = glm.numRows, d = glm.numCols;
  const x = new Float64Array(k * d), y = new Float64Array(k);
  try {
    model.readRows(Int32Array.from({ length: k }, (_, i) => i), x, y);
  } catch (e) {
    model.close();
    return { reason: (e as Error).message };
  }
  const v = dataViews(glm.data);
  for (let i = 0; i < k * d; i++) {
    if (x[i] !== v.x[i]) {
      model.close();
      return {
        reason: `column ${names[i % d]} of row ${Math.floor(i / d)} is transformed by the flags`,
      };
    }
  }
  for (let i = 0; i < k; i++) {
    if (y[i] !== v.y[i]) {
      model.close();
      return { reason: `the response of row ${i} is recoded by the flags` };
    }
  }
  model.fetches.numQueries = model.fetches.numRows = 0;
  return { model };
}
