/**
 * The checks of numeric options, shared by every sampler: each names the
 * option and the value received in the message, throws a `RangeError`, and
 * returns the value. `NaN` fails every check.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { positiveFinite, positiveInteger } from "./validate_options.ts";
 * assert.equal(positiveInteger("numChains", 4), 4);
 * assert.throws(() => positiveFinite("stepSize", 0), /stepSize must be positive and finite, got 0/);
 * ```
 *
 * References: docs/architecture.md, "Conventions" (bad input names the option and the value).
 *
 * @module
 */

function _fail(name: string, what: string, value: unknown): never {
  throw new RangeError(`${name} must be ${what}, got ${value}`);
}

/**
 * x > 0 and finite.
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @returns The value.
 * @throws {RangeError} "`name` must be positive and finite, got `value`".
 */
export function positiveFinite(name: string, value: unknown): number {
  const v = value as number;
  if (!(v > 0) || !Number.isFinite(v)) _fail(name, "positive and finite", value);
  return v;
}

/**
 * x > 0 (∞ allowed: a threshold that never triggers).
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @returns The value.
 * @throws {RangeError} "`name` must be positive, got `value`".
 */
export function positive(name: string, value: unknown): number {
  const v = value as number;
  if (!(v > 0)) _fail(name, "positive", value);
  return v;
}

/**
 * x ≥ 0 and finite.
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @returns The value.
 * @throws {RangeError} "`name` must be non-negative and finite, got `value`".
 */
export function nonNegativeFinite(name: string, value: unknown): number {
  const v = value as number;
  if (!(v >= 0) || !Number.isFinite(v)) _fail(name, "non-negative and finite", value);
  return v;
}

/**
 * An integer ≥ 1.
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @returns The value.
 * @throws {RangeError} "`name` must be a positive integer, got `value`".
 */
export function positiveInteger(name: string, value: unknown): number {
  const v = value as number;
  if (!Number.isInteger(v) || v < 1) _fail(name, "a positive integer", value);
  return v;
}

/**
 * An integer ≥ 0.
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @returns The value.
 * @throws {RangeError} "`name` must be a non-negative integer, got `value`".
 */
export function nonNegativeInteger(name: string, value: unknown): number {
  const v = value as number;
  if (!Number.isInteger(v) || v < 0) _fail(name, "a non-negative integer", value);
  return v;
}

/**
 * An integer ≥ `min`.
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @param min The smallest value allowed.
 * @returns The value.
 * @throws {RangeError} "`name` must be an integer ≥ `min`, got `value`".
 */
export function integerAtLeast(name: string, value: unknown, min: number): number {
  const v = value as number;
  if (!Number.isInteger(v) || v < min) _fail(name, `an integer ≥ ${min}`, value);
  return v;
}

/**
 * An integer in [`min`, `max`].
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @param min The smallest value allowed.
 * @param max The largest value allowed.
 * @returns The value.
 * @throws {RangeError} "`name` must be an integer in [`min`, `max`], got `value`".
 */
export function integerInRange(name: string, value: unknown, min: number, max: number): number {
  const v = value as number;
  if (!Number.isInteger(v) || v < min || v > max) {
    _fail(name, `an integer in [${min}, ${max}]`, value);
  }
  return v;
}

/**
 * A number in an interval, each end open or closed, e.g. `inInterval("delta", x, "(", 0, 1, ")")`.
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @param left `"("` (open) or `"["` (closed).
 * @param lo The lower end.
 * @param hi The upper end.
 * @param right `")"` (open) or `"]"` (closed).
 * @returns The value.
 * @throws {RangeError} "`name` must be in (lo, hi), got `value`" (with the interval's brackets).
 */
export function inInterval(
  name: string,
  value: unknown,
  left: "(" | "[",
  lo: number,
  hi: number,
  right: ")" | "]",
): number {
  const v = value as number;
  const isIn = (left === "(" ? v > lo : v >= lo) && (right === ")" ? v < hi : v <= hi);
  if (!isIn) _fail(name, `in ${left}${lo}, ${hi}${right}`, value);
  return v;
}

/**
 * A probability strictly between 0 and 1 (a target acceptance rate, δ).
 *
 * @param name The option's name, for the message.
 * @param value The value received.
 * @returns The value.
 * @throws {RangeError} "`name` must be in (0, 1), got `value`".
 */
export function probability(name: string, value: unknown): number {
  return inInterval(name, value, "(", 0, 1, ")");
}

/**
 * The metric of an HMC-family sampler from its two options: `metric`, a fixed
 * `Metric` for the whole run, or `metricAdaptation`, the warm-up's scheme
 * (one of `schemes`; `fallback` when neither is given).
 *
 * @param options The sampler's options.
 * @param schemes The schemes the sampler knows.
 * @param fallback The default scheme.
 * @returns The scheme's name, or the fixed metric.
 * @throws {TypeError} For a scheme name given as `metric`, both options given, or an unknown scheme.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { metricOrScheme } from "./validate_options.ts";
 * assert.equal(metricOrScheme({ metricAdaptation: "dense" }, ["diagonal", "dense"], "diagonal"), "dense");
 * assert.throws(() => metricOrScheme({ metric: "dense" }, ["diagonal", "dense"], "diagonal"),
 *   /the warm-up's scheme is metricAdaptation/);
 * ```
 */
export function metricOrScheme<S extends string>(
  options: { metric?: unknown; metricAdaptation?: unknown },
  schemes: readonly S[],
  fallback: S,
): S | { readonly dim: number; readonly kind: string } {
  const { metric, metricAdaptation } = options;
  const list = schemes.map((s) => JSON.stringify(s)).join(", ");
  if (typeof metric === "string") {
    throw new TypeError(
      `metric takes a fixed Metric; the warm-up's scheme is metricAdaptation (${list}), got metric: ${
        JSON.stringify(metric)
      }`,
    );
  }
  if (metric !== undefined && metricAdaptation !== undefined) {
    throw new TypeError(
      `give metric (a fixed Metric) or metricAdaptation (the warm-up's scheme), not both`,
    );
  }
  if (metric !== undefined) {
    if (typeof metric !== "object" || metric === null || !("dim" in metric)) {
      throw new TypeError(`metric must be a Metric, got ${JSON.stringify(metric)}`);
    }
    return metric as { readonly dim: number; readonly kind: string };
  }
  const scheme = metricAdaptation ?? fallback;
  if (!(schemes as readonly unknown[]).includes(scheme)) {
    throw new TypeError(`metricAdaptation must be ${list}, got ${JSON.stringify(scheme)}`);
  }
  return scheme as S;
}
