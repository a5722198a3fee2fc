/**
 * Command-line argument handling shared by the `tallmc` commands: the usage
 * error (exit code 2), flag parsing with messages that name the flag the user
 * typed, number checks, and path resolution against the caller's directory.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { isAbsolute, resolve } from "node:path";
import { closestName } from "../math/names.ts";
import { CliUsageError, positiveFlag } from "./usage.ts";

export { CliUsageError, cliWording, positiveFlag } from "./usage.ts";

/**
 * @internal Set by cli.ts when it runs as the program: the process then
 * exits as soon as the command returns, and any thread the command leaves
 * running ends with it. (The sample command then leaves its finished chain
 * workers to the exit: terminating them first makes the calling thread wait
 * for their engines' teardown.)
 */
export const processExit: { afterCommand: boolean } = { afterCommand: false };

/** Flag specifications as `node:util` `parseArgs` takes them. */
export type FlagSpec = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parse `args` against `flags`, with clean messages for an unknown flag, a
 * missing value and extra positional arguments.
 *
 * @param command The command name, for messages (`"sample"`).
 * @param args The arguments after the command.
 * @param options `flags` and `maxPositionals` (default 0).
 * @returns Flag values and positionals.
 * @throws {CliUsageError} Naming the flag or argument.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFlags } from "./args.ts";
 * const flags = { seed: { type: "string" as const } };
 * assert.equal(parseFlags("sample", ["--seed", "3"], { flags }).values.seed, "3");
 * assert.throws(() => parseFlags("sample", ["--sed", "3"], { flags }), /unknown flag --sed/);
 * assert.throws(() => parseFlags("sample", ["x.csv"], { flags }), /unexpected argument "x.csv"/);
 * ```
 */
export function parseFlags(
  command: string,
  args: string[],
  options: { flags: FlagSpec; maxPositionals?: number },
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: options.flags, allowPositionals: true, strict: true });
  } catch (e) {
    const msg = (e as Error).message;
    const unknown = /^Unknown option '([^']+)'/.exec(msg);
    if (unknown) {
      const flag = unknown[1];
      const near = closestName(flag.replace(/^-+/, ""), Object.keys(options.flags));
      throw new CliUsageError(
        `unknown flag ${flag} for "${command}"${
          near ? `; did you mean --${near}?` : ""
        } (see tallmc ${command} --help)`,
      );
    }
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(msg);
    if (ambiguous) {
      throw new CliUsageError(
        `${ambiguous[1]} was given a value starting with "-"; write ${ambiguous[1]}=VALUE`,
      );
    }
    const missing = /^Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(msg);
    if (missing) throw new CliUsageError(`${missing[1]} needs a value`);
    const noValue = /^Option '(--[\w-]+)' does not take an argument/.exec(msg);
    if (noValue) throw new CliUsageError(`${noValue[1]} is a switch and takes no value`);
    throw new CliUsageError(msg.split("\n")[0]);
  }
  const max = options.maxPositionals ?? 0;
  if (parsed.positionals.length > max) {
    throw new CliUsageError(
      `unexpected argument ${JSON.stringify(parsed.positionals[max])} for "${command}"${
        max === 0 ? "; every value follows its --flag" : ""
      } (see tallmc ${command} --help)`,
    );
  }
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

/**
 * Refuse sampler flags that contradict each other (each message names both
 * flags): `--trajectory-length` with `--warmup-scheme chees` (ChEES adapts
 * the length, so the value would only be where it starts), and
 * `--cv-order` when the control variates are off (`--control-variates no`,
 * or that default of the sampler), and `--target-acceptance` with
 * `--step-size` for samplers that keep a given step size fixed.
 *
 * @param values Parsed flag values.
 * @param sampler The sampler's name and its options (their flags and defaults).
 * @throws {CliUsageError} Naming both flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkSamplerFlagConflicts } from "./args.ts";
 * const sgld = { name: "sgld", options: [{ flag: "control-variates", default: "yes" }] };
 * assert.throws(() => checkSamplerFlagConflicts({ "cv-order": "1", "control-variates": "no" }, sgld),
 *   /--cv-order 1 cannot be combined with --control-variates no/);
 * ```
 */
export function checkSamplerFlagConflicts(
  values: Record<string, unknown>,
  sampler: { name: string; options?: readonly { flag: string; default: string }[] },
): void {
  const show = (flag: string) => `--${flag} ${values[flag]}`;
  if (values["warmup-scheme"] === "chees" && values["trajectory-length"] !== undefined) {
    throw new CliUsageError(
      `${show("trajectory-length")} cannot be combined with --warmup-scheme chees: ChEES adapts ` +
        "the trajectory length (the value would only be its start); for a fixed length give " +
        "--warmup-scheme fixed, or leave --warmup-scheme out",
    );
  }
  const step = sampler.options?.find((o) => o.flag === "step-size");
  if (
    values["target-acceptance"] !== undefined && values["step-size"] !== undefined &&
    step !== undefined && /\(given: fixed\)/.test(step.default)
  ) {
    throw new CliUsageError(
      `${show("target-acceptance")} cannot be combined with ${
        show("step-size")
      } for --sampler ${sampler.name}: ` +
        "a given step size stays fixed, so no acceptance rate is targeted; leave --step-size out " +
        "to adapt it",
    );
  }
  const cv = sampler.options?.find((o) => o.flag === "control-variates");
  if (values["cv-order"] !== undefined && cv !== undefined) {
    const given = values["control-variates"];
    const off = given === undefined
      ? /^no\b/.test(cv.default)
      : given === "no" || given === "false";
    if (off) {
      throw new CliUsageError(
        `${show("cv-order")} cannot be combined with --control-variates no${
          given === undefined ? ` (the default of --sampler ${sampler.name})` : ""
        }: the order applies to control-variate gradients; give --control-variates yes or drop --cv-order`,
      );
    }
  }
}

/**
 * An integer flag value (or its default).
 *
 * @param value The text typed, or undefined.
 * @param options `flag` (without dashes), `default`, `min`, `max` (default 2^53 − 1).
 * @returns The integer.
 * @throws {CliUsageError} Naming the flag and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { intFlag } from "./args.ts";
 * assert.equal(intFlag("1e3", { flag: "samples", default: 1, min: 1 }), 1000);
 * assert.throws(() => intFlag("-2", { flag: "chains", default: 4, min: 1 }), /--chains must be an integer ≥ 1, got "-2"/);
 * ```
 */
export function intFlag(
  value: string | boolean | undefined,
  options: { flag: string; default: number; min: number; max?: number },
): number {
  if (value === undefined) return options.default;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const v = typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isInteger(v) || v < options.min || v > max) {
    throw new CliUsageError(
      `--${options.flag} must be an integer ≥ ${options.min}${
        options.max !== undefined ? ` and ≤ ${options.max}` : ""
      }, got ${JSON.stringify(value)}`,
    );
  }
  return v;
}

/**
 * A number flag value ≥ 0 when `min` is 0 (a sampler option whose zero
 * means something, as `--approx-mh-epsilon 0`, exact MH), else positive;
 * finite either way (undefined if not given).
 *
 * @param value The text typed, or undefined.
 * @param flag The flag without dashes.
 * @param min 0 to accept zero; anything else (or undefined) requires > 0.
 * @returns The number, or undefined.
 * @throws {CliUsageError} Naming the flag and the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { numberFlag } from "./args.ts";
 * assert.equal(numberFlag("0", "approx-mh-epsilon", 0), 0);
 * assert.throws(() => numberFlag("0", "step-size"), /--step-size must be a positive number, got "0"/);
 * ```
 */
export function numberFlag(
  value: string | boolean | undefined,
  flag: string,
  min?: number,
): number | undefined {
  if (min !== 0) return positiveFlag(value, flag);
  if (value === undefined) return undefined;
  const v = typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  if (!Number.isFinite(v) || v < 0) {
    throw new CliUsageError(
      `--${flag} must be a number ≥ 0, got ${JSON.stringify(value)}`,
    );
  }
  return v;
}

/**
 * The directory relative paths are resolved against: the caller's working
 * directory. `deno task` runs tasks in the directory of `deno.json` and sets
 * `INIT_CWD` to the directory the task was started from; it is used when set
 * (and readable), otherwise the process's working directory.
 *
 * @returns An absolute directory.
 *
 * @example
 * ```ts ignore
 * import { callerDirectory } from "./args.ts";
 * callerDirectory(); // e.g. "/home/me/project"
 * ```
 */
export function callerDirectory(): string {
  try {
    const init = Deno.env.get("INIT_CWD");
    if (init !== undefined && init !== "" && isAbsolute(init)) return init;
  } catch {
    // No --allow-env: fall back to the working directory.
  }
  return Deno.cwd();
}

/**
 * Resolve a path the user typed against {@link callerDirectory}.
 *
 * @param path As typed.
 * @returns An absolute path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveUserPath } from "./args.ts";
 * assert.equal(resolveUserPath("/tmp/x.csv"), "/tmp/x.csv");
 * ```
 */
export function resolveUserPath(path: string): string {
  return isAbsolute(path) ? path : resolve(callerDirectory(), path);
}
