/**
 * The `--init` and `--strict` flags of `tallmc sample` and the verdict block
 * printed after every run (see diagnostics/verdict.ts).
 *
 * `--init` takes `laplace` (hmc's default: a draw from the Laplace
 * approximation at the mode), `0` (every chain at θ = 0), `uniform(R)`
 * (θ = 0 plus uniform(−R, R) noise per coordinate, Stan's `init = R`) or
 * the path of a JSON file: `{"name": value, …}` for every chain, or an array
 * of such objects, one per chain, naming every parameter (σ and φ as
 * `log_sigma`, `log_phi`).
 *
 * `--strict` turns a failed verdict into exit code 3.
 *
 * @module
 */
import { formatVerdict, type Verdict, verdict } from "../diagnostics/verdict.ts";
import type { SummaryRow } from "../diagnostics/summary.ts";
import type { SamplingResult } from "../samplers/driver.ts";
import { CliUsageError, type FlagSpec, resolveUserPath } from "./args.ts";

/** The flags of this module, for `parseFlags`. */
export const RUN_CHECK_FLAGS: FlagSpec = {
  init: { type: "string" },
  strict: { type: "boolean" },
};

/** Exit code of a run whose verdict fails under `--strict`. */
export const STRICT_EXIT_CODE = 3;

/**
 * Help lines for `--init` and `--strict`.
 *
 * @returns The lines.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCheckHelp } from "./verdict_print.ts";
 * assert.match(runCheckHelp().join("\n"), /--strict/);
 * ```
 */
export function runCheckHelp(): string[] {
  return [
    "",
    "Starts and verdict:",
    "  --init I            laplace | 0 | uniform(R) | FILE.json: where chains start (default for",
    "                      hmc: laplace, a draw from the Laplace approximation at the mode",
    "                      found by damped Newton from a data-based point; else 0). FILE.json:",
    '                      {"name": value, …} for every chain or [{…}, …] one per chain',
    "  --strict            exit 3 when the verdict fails (R̂ > 1.01, bulk/tail ESS < 100 per",
    "                      chain, divergences after warmup, E-BFMI < 0.3, early stop)",
  ];
}

/** What `--init` sets: sampler options and driver options. */
export interface InitChoice {
  /** Added to the sampler's options (hmc's `init`). */
  samplerOptions: Record<string, unknown>;
  /** Added to the driver's options (`initialPositions`, `jitter`). */
  driver: { initialPositions?: Float64Array[]; jitter?: number };
}

/**
 * Read `--init` for a sampler and a model.
 *
 * @param raw The flag's value (undefined when not given).
 * @param context The sampler's name, the model's parameter names and the number of chains.
 * @returns Sampler and driver options.
 * @throws {CliUsageError} Naming `--init` and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initFromFlag } from "./verdict_print.ts";
 * const c = initFromFlag("uniform(1)", { sampler: "rwmh", parameterNames: ["a"], numChains: 2 });
 * assert.equal(c.driver.jitter, 1);
 * assert.throws(() => initFromFlag("laplce", { sampler: "hmc", parameterNames: ["a"], numChains: 1 }), /--init/);
 * ```
 */
export function initFromFlag(
  raw: string | boolean | undefined,
  context: { sampler: string; parameterNames: readonly string[]; numChains: number },
): InitChoice {
  if (raw === undefined) return { samplerOptions: {}, driver: {} };
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new CliUsageError(`--init needs a value: laplace, 0, uniform(R) or FILE.json`);
  }
  const isHmc = context.sampler === "hmc" || context.sampler === "nuts";
  const value = raw.trim();
  if (value === "laplace") {
    if (!isHmc) {
      throw new CliUsageError(
        `--init laplace applies to --sampler hmc and nuts, not ${context.sampler}; use 0, uniform(R) or FILE.json`,
      );
    }
    return { samplerOptions: { init: "laplace" }, driver: {} };
  }
  if (value === "0") return { samplerOptions: isHmc ? { init: "given" } : {}, driver: {} };
  const u = /^uniform\((.*)\)$/.exec(value);
  if (u !== null) {
    const r = Number(u[1]);
    if (u[1].trim() === "" || !(r > 0) || !Number.isFinite(r)) {
      throw new CliUsageError(
        `--init uniform(R) needs a positive number R, got ${JSON.stringify(value)}`,
      );
    }
    return { samplerOptions: isHmc ? { init: "given" } : {}, driver: { jitter: r } };
  }
  if (!/\.json$/i.test(value)) {
    throw new CliUsageError(
      `--init must be laplace, 0, uniform(R) or a .json file, got ${JSON.stringify(value)}`,
    );
  }
  const path = resolveUserPath(value);
  let json: unknown;
  try {
    json = JSON.parse(Deno.readTextFileSync(path));
  } catch (e) {
    throw new CliUsageError(`--init ${path} cannot be read as JSON: ${(e as Error).message}`);
  }
  const objects = Array.isArray(json) ? json : [json];
  if (Array.isArray(json) && json.length !== context.numChains) {
    throw new CliUsageError(
      `--init ${path} has ${json.length} starts; give one per chain (${context.numChains}) or one object for all`,
    );
  }
  const positions = objects.map((o, k) =>
    _position(o, context.parameterNames, `${path}${Array.isArray(json) ? ` [${k}]` : ""}`)
  );
  const initialPositions = Array.from(
    { length: context.numChains },
    (_, c) => Float64Array.from(positions[positions.length === 1 ? 0 : c]),
  );
  return { samplerOptions: isHmc ? { init: "given" } : {}, driver: { initialPositions } };
}

function _position(o: unknown, names: readonly string[], where: string): Float64Array {
  if (typeof o !== "object" || o === null || Array.isArray(o)) {
    throw new CliUsageError(
      `--init ${where} must be an object of parameter name → number, got ${JSON.stringify(o)}`,
    );
  }
  const rec = o as Record<string, unknown>;
  const unknown = Object.keys(rec).filter((k) => !names.includes(k));
  if (unknown.length > 0) {
    throw new CliUsageError(
      `--init ${where}: unknown parameter ${JSON.stringify(unknown[0])}; the parameters are ${
        names.map((n) => JSON.stringify(n)).join(", ")
      }`,
    );
  }
  return Float64Array.from(names, (n) => {
    const v = rec[n];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new CliUsageError(
        `--init ${where}: parameter ${JSON.stringify(n)} needs a finite number, got ${
          JSON.stringify(v)
        }`,
      );
    }
    return v;
  });
}

/**
 * Print the verdict block on stdout and return the exit code it implies.
 *
 * @param result The run.
 * @param rows Summary rows of the draws (null to compute them).
 * @param options The sampler's name, `strict`, and `log` (default console.log).
 * @returns `{verdict, code}`: code 3 when `strict` and the verdict fails, else 0.
 */
export function printVerdict(
  result: SamplingResult,
  rows: readonly SummaryRow[] | null,
  options: { sampler: string; strict: boolean; log?: (line: string) => void },
): { verdict: Verdict; code: number } {
  const log = options.log ?? ((line: string) => console.log(line));
  const own = rows?.filter((r) => result.parameterNames.includes(r.name));
  const v = verdict(result, { sampler: options.sampler, rows: own });
  for (const line of formatVerdict(v)) log(line);
  return { verdict: v, code: options.strict && !v.converged ? STRICT_EXIT_CODE : 0 };
}
