/**
 * The sampler options as flags of `tallmc sample`: the flags every
 * registered sampler adds, their values, the ranges checked before a run,
 * the library's option names turned back into the flags typed, and the
 * memory check of the run's sizes.
 *
 * @module
 */
import { MAX_RUN_BYTES, runBytes } from "../samplers/run_memory.ts";
import { BUILT_IN_SAMPLER_FLAGS } from "../samplers/catalog.ts";
import type { SamplerDescription, SamplerOption } from "../samplers/sampler.ts";
import { CliUsageError, intFlag, numberFlag } from "./args.ts";

/** Internal option names → the flags users type, for messages from the library. */
const _COMMON_NAMES: Record<string, string> = {
  numSamples: "--samples",
  numWarmup: "--warmup",
  numChains: "--chains",
  priorScale: "--prior-scale",
  scalePrior: "--prior-aux",
  sigma: "--sigma",
  thin: "--thin",
  workers: "--workers",
};

export function samplerFlags(): Map<string, { samplers: string[] }> {
  const out = new Map<string, { samplers: string[] }>();
  for (const [name, flags] of BUILT_IN_SAMPLER_FLAGS) {
    for (const flag of flags) {
      const e = out.get(flag);
      if (e === undefined) out.set(flag, { samplers: [name] });
      else e.samplers.push(name);
    }
  }
  return out;
}

export function optionValue(o: SamplerOption, raw: string | boolean): unknown {
  const flag = `--${o.flag}`;
  switch (o.type) {
    case "number":
      return numberFlag(raw, o.flag, o.min);
    case "integer":
      return intFlag(raw, { flag: o.flag, default: 0, min: o.min ?? 1 });
    case "boolean":
      if (raw === "yes" || raw === "true") return true;
      if (raw === "no" || raw === "false") return false;
      throw new CliUsageError(`${flag} must be yes or no, got ${JSON.stringify(raw)}`);
    default: {
      const choices = o.choices ?? [];
      if (typeof raw !== "string" || !choices.includes(raw)) {
        throw new CliUsageError(
          `${flag} must be one of ${choices.join(", ")}, got ${JSON.stringify(raw)}`,
        );
      }
      return /^\d+$/.test(raw) ? Number(raw) : raw;
    }
  }
}

/**
 * Ranges of sampler options narrower than "positive" (the registry's
 * `"number"`), checked with the other flags, before data are read or the
 * output is created (the samplers check them only when a chain starts).
 */
const _OPTION_RANGES: Record<string, { below: number; atLeastZero?: boolean }> = {
  targetAcceptanceRate: { below: 1 },
  stepSizeJitter: { below: 1, atLeastZero: true },
};

export function checkOptionBounds(
  options: Record<string, unknown>,
  description: SamplerDescription,
): void {
  for (const o of description.options ?? []) {
    const range = _OPTION_RANGES[o.name];
    const v = options[o.name];
    if (range === undefined || typeof v !== "number") continue;
    if (!(v < range.below)) {
      throw new CliUsageError(
        `--${o.flag} must be in ${range.atLeastZero ? "[0" : "(0"}, ${range.below}), got ${v}`,
      );
    }
  }
}

/** Replace the library's option names in a message by the flags the user typed. */
export function userMessage(message: string, description: SamplerDescription | null): string {
  const names: Record<string, string> = { ..._COMMON_NAMES };
  for (const o of description?.options ?? []) names[o.name] = `--${o.flag}`;
  let out = message;
  for (const [name, flag] of Object.entries(names)) {
    out = out.replace(new RegExp(`\\b(?:options\\.)?${name}\\b`, "g"), flag);
  }
  return out;
}

function _formatBytes(b: number): string {
  const units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
  let k = 0;
  while (b >= 1000 && k < units.length - 1) (b /= 1000, k++);
  return `${b.toPrecision(3)} ${units[k]}`;
}

export function checkMemory(
  sizes: { numChains: number; numWarmup: number; numSamples: number; thin: number; dim: number },
  raw: Record<string, string | boolean | undefined>,
  isDimKnown: boolean,
): void {
  const bytes = runBytes(sizes);
  if (bytes <= MAX_RUN_BYTES) return;
  const typed = ["samples", "warmup", "chains"]
    .filter((f) => raw[f] !== undefined)
    .map((f) => `--${f} ${raw[f]}`)
    .join(", ");
  throw new CliUsageError(
    `${typed || "these sizes"} would need about ${_formatBytes(bytes)} of memory for the draws ` +
      `and per-iteration diagnostics (${sizes.numChains} chain(s) × ${
        sizes.numWarmup + sizes.numSamples
      } iterations${isDimKnown ? `, d = ${sizes.dim}` : ""}); the limit is ${
        _formatBytes(MAX_RUN_BYTES)
      }: lower --samples, --warmup or --chains, or thin with --thin`,
  );
}
