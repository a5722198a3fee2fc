/**
 * The prior the flags state (`--prior-file`, then `--prior` and
 * `--prior-intercept` on top), as a `PriorSpec` for `buildPrior`.
 *
 * @module
 */
import { parsePriorText } from "../models/prior_text.ts";
import type { CoefficientPrior, PriorSpec, ScalePrior } from "../models/priors.ts";
import { SCALE_PRIOR_FAMILIES, SCALE_PRIOR_NAMES } from "./model_flags.ts";
import { CliUsageError } from "./usage.ts";

/**
 * The prior the flags state: the file first, then `--prior` and
 * `--prior-intercept` on top.
 *
 * @param values Parsed flag values.
 * @param resolvePath Turns `--prior-file`'s value into the path to read (the
 *   CLI: against the caller's directory; default: as given).
 * @returns The spec (unset parts take the defaults).
 * @throws {CliUsageError} Naming the flag or the file's key.
 */
export async function priorSpecFromFlags(
  values: Record<string, unknown>,
  resolvePath: (path: string) => string = (path) => path,
): Promise<PriorSpec> {
  const spec: PriorSpec = {};
  const file = values["prior-file"] as string | undefined;
  if (file !== undefined) {
    const path = resolvePath(file);
    let json: unknown;
    try {
      json = JSON.parse(await Deno.readTextFile(path));
    } catch (e) {
      throw new CliUsageError(`--prior-file ${path}: ${(e as Error).message}`);
    }
    Object.assign(spec, _specFromJson(json, `--prior-file ${path}`));
  }
  const wrap = <T>(flag: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw new CliUsageError(`${flag}: ${(e as Error).message}`);
    }
  };
  for (const raw of (values.prior as string[] | undefined) ?? []) {
    const eq = raw.indexOf("=");
    if (eq < 0) {
      spec.coefficients = wrap(
        "--prior",
        () => parsePriorText(raw, "every coefficient"),
      ) as CoefficientPrior;
      continue;
    }
    const name = raw.slice(0, eq).trim(), text = raw.slice(eq + 1);
    if (name === "") {
      throw new CliUsageError(
        `--prior ${JSON.stringify(raw)}: no name before "="; write NAME=P, e.g. x1=normal(0, 1)`,
      );
    }
    const p = wrap("--prior", () => parsePriorText(text, JSON.stringify(name)));
    // sigma= and phi= name the scales (any scale prior, flat included); a
    // scale-only prior on another name is a scale too (buildPrior refuses
    // names the model has no scale for).
    if (
      SCALE_PRIOR_NAMES.includes(name) || name === "nu" || p.family === "gamma" ||
      (p.family !== "flat" && SCALE_PRIOR_FAMILIES.includes(p.family))
    ) {
      spec.scales = { ...spec.scales, [name]: p as ScalePrior };
    } else spec.terms = { ...spec.terms, [name]: p as CoefficientPrior };
  }
  const pi = values["prior-intercept"] as string | undefined;
  if (pi !== undefined) {
    spec.intercept = wrap(
      "--prior-intercept",
      () => parsePriorText(pi, "the intercept"),
    ) as CoefficientPrior;
  }
  return spec;
}

function _specFromJson(json: unknown, where: string): PriorSpec {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new CliUsageError(
      `${where}: expected a JSON object with coefficients, intercept, terms, scales`,
    );
  }
  const out: PriorSpec = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === "coefficients" || key === "intercept") {
      out[key] = value as CoefficientPrior | string;
    } else if (key === "terms" || key === "scales") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        throw new CliUsageError(`${where}: "${key}" must be an object of name → prior`);
      }
      (out as Record<string, unknown>)[key] = value;
    } else {
      throw new CliUsageError(
        `${where}: unknown key ${
          JSON.stringify(key)
        }; expected coefficients, intercept, terms or scales`,
      );
    }
  }
  return out;
}
