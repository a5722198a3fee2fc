/**
 * `tallmc sample --family-source FILE.ts`: a family written in
 * AssemblyScript, the same contract as the library's user family
 * (models/user_glm.ts, core/user_family.ts): the file defines
 *
 * ```
 *  function logLik(eta: f64, y: f64): f64     ℓ(η, y) of one row
 *  function dLogLik(eta: f64, y: f64): f64    dℓ/dη
 *  function d2LogLik(eta: f64, y: f64): f64   d²ℓ/dη²
 * ```
 *
 * with η = xᵢᵀθ. The flags are checked before any data are read (the file
 * readable, the three functions present, no `--family` and no flag of a
 * built-in family: `--offset`, `--trials`, `--success`, `--sigma`, `--nu`,
 * `--prior-aux`, nor `--f32`: the family reads f64 rows); the module is
 * compiled when the model is built over the loaded rows
 * ({@link userFamilyModel}), a compile error naming the file and the line
 * in it. The model is `defineModel({ prior, likelihood: { assemblyScript },
 * rows: data })`; over a shared memory its chains run in workers as a
 * built-in family's do.
 *
 * @module
 */
import type { GlmData } from "../data/dataset.ts";
import { buildPrior, type Prior, type PriorSpec } from "../models/priors.ts";
import type { UserGlmModel } from "../models/user_glm.ts";
import type { FlagSpec } from "./args.ts";
import type { FamilyChoice } from "./model_flags.ts";
import { CliUsageError, positiveFlag } from "./usage.ts";

/** The flag, for `parseFlags`. */
export const USER_FAMILY_FLAGS: FlagSpec = { "family-source": { type: "string" } };

/** The functions the source must define, each `(eta: f64, y: f64): f64`. */
const _FUNCTIONS = ["logLik", "dLogLik", "d2LogLik"];

/** Flags of the built-in families that a user family cannot take, and why. */
const _REFUSED: readonly [string, string][] = [
  ["family", "the source is the family; give one of the two"],
  ["offset", "the family's functions take η and y only (logLik(eta, y)): no offset column"],
  ["trials", "the family's functions take η and y only (logLik(eta, y)): no trials column"],
  ["success", "a text response is coded for --family logistic only; give y as numbers"],
  ["sigma", "a family written in AssemblyScript has no σ (every parameter is a coefficient)"],
  ["nu", "a family written in AssemblyScript has no ν (every parameter is a coefficient)"],
  [
    "prior-aux",
    "a family written in AssemblyScript has no σ or φ (every parameter is a coefficient)",
  ],
  ["f32", "a family written in AssemblyScript reads X as f64"],
];

/** A family source read from `--family-source`. */
export interface UserFamilyFlag {
  /** The file as typed (for messages). */
  readonly label: string;
  /** The AssemblyScript source. */
  readonly source: string;
  /**
   * What the loader takes for the family: a response of any real value, no
   * per-row column, `--prior-scale` as the coefficients' prior sd.
   */
  readonly choice: FamilyChoice;
}

/**
 * Read and check `--family-source` (before any data are read), or null when
 * it is not given.
 *
 * @param values Parsed flag values.
 * @param resolvePath How to resolve the path typed (the CLI's `resolveUserPath`).
 * @returns The source and the loader's family choice, or null.
 * @throws {CliUsageError} Naming `--family-source` and the file, or the flag
 *   that cannot be combined with it and its value.
 */
export async function userFamilyFromFlags(
  values: Record<string, unknown>,
  resolvePath: (path: string) => string,
): Promise<UserFamilyFlag | null> {
  const raw = values["family-source"];
  if (raw === undefined) return null;
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new CliUsageError(
      `--family-source needs a file of AssemblyScript, got ${JSON.stringify(raw)}`,
    );
  }
  for (const [flag, why] of _REFUSED) {
    const v = values[flag];
    if (v === undefined || v === false) continue;
    throw new CliUsageError(
      `--family-source ${raw} cannot be combined with --${flag}${
        v === true ? "" : ` ${JSON.stringify(v)}`
      }: ${why}`,
    );
  }
  const path = resolvePath(raw);
  let source: string;
  try {
    if ((await Deno.stat(path)).isDirectory) {
      throw new CliUsageError(
        `--family-source ${raw} is a directory; give the AssemblyScript file of the family`,
      );
    }
    source = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof CliUsageError) throw e;
    throw new CliUsageError(`--family-source ${raw} cannot be read: ${(e as Error).message}`);
  }
  const missing = _FUNCTIONS.filter((fn) => !new RegExp(`function\\s+${fn}\\s*\\(`).test(source));
  if (missing.length > 0) {
    throw new CliUsageError(
      `--family-source ${raw} must define ${
        missing.map((fn) => `function ${fn}(eta: f64, y: f64): f64`).join(", ")
      } (ℓ(η, y) of one row, dℓ/dη and d²ℓ/dη²)`,
    );
  }
  // The compiler asks whether the variable CI is set (to colour its messages).
  if (Deno.permissions.querySync({ name: "env", variable: "CI" }).state !== "granted") {
    throw new CliUsageError(
      `--family-source ${raw}: the AssemblyScript compiler reads the environment variable CI, ` +
        "which needs --allow-env=CI: run deno run --allow-read --allow-write=. --allow-env=CI " +
        "cli.ts sample … (the cli task grants it)",
    );
  }
  const priorScale = positiveFlag(values["prior-scale"] as string | undefined, "prior-scale") ?? 10;
  // "gaussian" with σ known: the loaders' family that takes any real response.
  return { label: raw, source, choice: { family: "gaussian", sigma: 1, priorScale } };
}

/**
 * The model of a user family over rows in memory: the source compiled over
 * the rows' arena, the prior the flags state (a spec resolved against the
 * columns with `defaults`), else N(0, S²) per coefficient with S =
 * `--prior-scale`.
 *
 * @param data The rows (f64 X).
 * @param family The source read by {@link userFamilyFromFlags}.
 * @param p The flags' prior spec, whether they state priors, the defaults,
 *   and the flags' values (which prior flag to name in an error).
 * @returns The model and the prior in words (null: N(0, S²)).
 * @throws {CliUsageError} Naming `--family-source` and the file:line of a
 *   compile error, or the prior flag.
 */
export async function userFamilyModel(
  data: GlmData,
  family: UserFamilyFlag,
  p: {
    spec: PriorSpec;
    withPriors: boolean;
    defaults: PriorSpec | undefined;
    values: Record<string, unknown>;
  },
): Promise<{ model: UserGlmModel; priorLines: readonly string[] | null }> {
  let prior: Prior | null = null;
  if (p.withPriors) {
    const kinds: Record<string, "coefficient"> = {};
    for (const name of data.columnNames) if (name !== "(Intercept)") kinds[name] = "coefficient";
    try {
      prior = buildPrior(data.columnNames, p.spec, { defaults: p.defaults, kinds });
    } catch (e) {
      const msg = (e as Error).message, v = p.values;
      const flag = /prior of the intercept/.test(msg) && v["prior-intercept"] !== undefined
        ? "--prior-intercept"
        : v["prior-file"] !== undefined && v.prior === undefined
        ? "--prior-file"
        : "--prior";
      throw new CliUsageError(`${flag}: ${msg}`);
    }
  }
  // Loaded here: a run with a built-in family never needs the composer's graph.
  const { defineModel } = await import("../models/compose.ts");
  let model;
  try {
    model = await defineModel({
      prior: prior ?? { priorScale: family.choice.priorScale },
      likelihood: { assemblyScript: family.source },
      rows: data,
    });
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof TypeError) {
      const msg = compileMessage(e.message, family.label)
        .replace(/^the user family does not compile: /, "does not compile: ");
      throw new CliUsageError(
        `--family-source ${family.label}${msg.startsWith("does not") ? " " : ": "}${msg}`,
      );
    }
    throw e;
  }
  return { model: model as UserGlmModel, priorLines: prior?.describe() ?? null };
}

/**
 * The compiler's message with every place in the family's source named as
 * `FILE:LINE:COLUMN` of the file the user wrote (the library names them
 * `family source:LINE:COLUMN`).
 *
 * @param message The library's message.
 * @param label The file as typed.
 * @returns The message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileMessage } from "./user_family_flags.ts";
 * assert.equal(compileMessage("in family source:3:7", "fam.ts"), "in fam.ts:3:7");
 * ```
 */
export function compileMessage(message: string, label: string): string {
  return message.replaceAll("family source:", `${label}:`);
}
