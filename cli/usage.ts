/**
 * The usage error of the `tallmc` commands (exit code 2), the CLI's wording
 * of library messages, and the positive-number check of flag values: the
 * part of ./args.ts without Node or Deno imports, so that code building a
 * model from flag values (./model_options.ts) also runs in a browser.
 *
 * @module
 */

/** An error in what the user gave (flags, files, data): exit code 2. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

/** Library words in messages → what a command-line user types instead. */
const _CLI_WORDING: readonly [RegExp, string][] = [
  [
    /--standardize with --formula in the CLI; standardize: true with a formula in the API/g,
    "--formula with --standardize",
  ],
  [/\(e\.g\. with standardize\(\)\)/g, "(--formula with --standardize)"],
  [/\bstandardize\(\)/g, "--standardize"],
  [/\blisted twice in columns\b/g, "listed twice in --columns"],
  [/\binterceptPriorScale\b/g, "--prior-intercept"],
  [/\bpriorScale\b/g, "--prior-scale"],
  [/\bscalePrior\b/g, "--prior-aux"],
  [/ \(scales: \{ (\w+): … \}\)/g, " (--prior $1=…)"],
  [/\s*\(load them with loadCore\(\{ shared: true \}\)\)/g, ""],
  [/^GlmModel: family "([\w-]+)" needs/, "--family $1 needs"],
];

/**
 * A library message as the command line should print it: hints naming API
 * options or functions a command-line user cannot use (`standardize()`,
 * `columns`, `priorScale`, `scales: { sigma }`) name the flag instead.
 *
 * @param message The library's message.
 * @returns The message with flags in place of API names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cliWording } from "./usage.ts";
 * assert.equal(cliWording("standardise the columns (e.g. with standardize())"),
 *   "standardise the columns (--formula with --standardize)");
 * ```
 */
export function cliWording(message: string): string {
  let out = message;
  for (const [pattern, replacement] of _CLI_WORDING) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A positive finite number flag value (undefined if not given).
 *
 * @param value The text typed, or undefined.
 * @param flag The flag without dashes.
 * @returns The number, or undefined.
 * @throws {CliUsageError} Naming the flag and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { positiveFlag } from "./usage.ts";
 * assert.equal(positiveFlag("0.5", "sigma"), 0.5);
 * assert.throws(() => positiveFlag("abc", "sigma"), /--sigma must be a positive number, got "abc"/);
 * ```
 */
export function positiveFlag(
  value: string | boolean | undefined,
  flag: string,
): number | undefined {
  if (value === undefined) return undefined;
  const v = typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isFinite(v) || v <= 0) {
    throw new CliUsageError(`--${flag} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return v;
}
