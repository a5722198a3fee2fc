/**
 * Draws in CmdStan's output CSV format (`tallmc sample --format cmdstan`):
 * one file per chain, `--out draws.csv` → `draws_1.csv`, `draws_2.csv`, …,
 * each starting with `# key = value` comment lines (the run's configuration),
 * then the columns `lp__`, `accept_stat__`, `stepsize__`, `treedepth__`,
 * `n_leapfrog__`, `divergent__`, `energy__` that the sampler's step info
 * provides, in that order, then the parameters. After the rows, when the run
 * ends, the adaptation (step size, diagonal of the inverse metric) is added
 * as CmdStan's `# Adaptation terminated` comment block. Each file is written
 * atomically like the default draws file (see `draws_writer.ts`). See
 * docs/draws_format.md.
 *
 * @module
 */
import { DrawsFileWriter } from "./draws_writer.ts";
import { csvField } from "../data/column_names.ts";

/** CmdStan's sampler columns and the step-info field each is read from. */
const _SAMPLER_COLUMNS: readonly [column: string, field: string][] = [
  ["lp__", "logDensity"],
  ["accept_stat__", "acceptanceRate"],
  ["stepsize__", "stepSize"],
  ["treedepth__", "treeDepth"],
  ["n_leapfrog__", "numIntegrationSteps"],
  ["divergent__", "isDivergent"],
  ["energy__", "energy"],
];

/**
 * CmdStan's name of chain `chain`'s file: `draws.csv` → `draws_1.csv` (1-based).
 *
 * @param path The `--out` path.
 * @param chain 0-based chain id.
 * @returns The per-chain path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cmdstanChainPath } from "./cmdstan_writer.ts";
 * assert.equal(cmdstanChainPath("/t/draws.csv", 0), "/t/draws_1.csv");
 * assert.equal(cmdstanChainPath("/t/out", 2), "/t/out_3");
 * ```
 */
export function cmdstanChainPath(path: string, chain: number): string {
  const m = /^(.*?)(\.[^./\\]*)?$/.exec(path)!;
  return `${m[1]}_${chain + 1}${m[2] ?? ""}`;
}

/**
 * The sampler columns a step's info provides, in CmdStan's order.
 *
 * @param info One step's info.
 * @returns Column names (`accept_stat__`, …).
 */
export function cmdstanSamplerColumns(info: object): string[] {
  const rec = info as Record<string, unknown>;
  return _SAMPLER_COLUMNS
    .filter(([, field]) => typeof rec[field] === "number" || typeof rec[field] === "boolean")
    .map(([column]) => column);
}

/** Writes one CmdStan CSV per chain as the draws are made. */
export class CmdStanDrawsWriter {
  readonly #files: DrawsFileWriter[];
  readonly #parameterNames: readonly string[];
  readonly #path: string;
  #fields: string[] | null = null;

  private constructor(files: DrawsFileWriter[], parameterNames: readonly string[], path: string) {
    this.#files = files;
    this.#parameterNames = parameterNames;
    this.#path = path;
  }

  /**
   * Create every chain's temporary file and write its comment header. The
   * column names follow with the first draw (they depend on the step info).
   *
   * @param path The `--out` path (the files are {@link cmdstanChainPath}).
   * @param options Chains, parameter names and the `# key = value` lines.
   * @returns The writer.
   */
  static open(
    path: string,
    options: {
      numChains: number;
      parameterNames: readonly string[];
      config: readonly [key: string, value: string | number][];
    },
  ): CmdStanDrawsWriter {
    const files: DrawsFileWriter[] = [];
    try {
      for (let c = 0; c < options.numChains; c++) {
        const lines = [
          "# tallmc draws in CmdStan's output CSV format",
          ...options.config.map(([k, v]) => `# ${k} = ${v}`),
          `# id = ${c + 1}`,
          `# file = ${cmdstanChainPath(path, c)}`,
        ];
        files.push(DrawsFileWriter.create(cmdstanChainPath(path, c), lines));
      }
    } catch (e) {
      for (const f of files) f.discard();
      throw e;
    }
    return new CmdStanDrawsWriter(files, options.parameterNames, path);
  }

  /** The files' paths, for messages (`…_1.csv … _K.csv`). */
  get path(): string {
    const k = this.#files.length;
    return k === 1
      ? this.#files[0].path
      : `${this.#files[0].path} … ${cmdstanChainPath(this.#path, k - 1)}`;
  }

  /** Rows on disk, all files. */
  get rowsOnDisk(): number {
    return this.#files.reduce((s, f) => s + f.rowsOnDisk, 0);
  }

  /** Rows on disk per chain id. */
  get rowsOnDiskPerChain(): [chain: number, rows: number][] {
    return this.#files.map((f, c) => [c, f.rowsOnDisk]);
  }

  /** The first failed write (disk full, …), or null. */
  get failure(): Error | null {
    for (const f of this.#files) if (f.failure !== null) return f.failure;
    return null;
  }

  #writeHeader(info: object | null): void {
    const columns = info === null ? [] : cmdstanSamplerColumns(info);
    this.#fields = columns.map((c) => _SAMPLER_COLUMNS.find(([n]) => n === c)![1]);
    const names = [...columns, ...this.#parameterNames].map(csvField).join(",");
    for (const f of this.#files) f.writeLine(names, -1);
  }

  /**
   * Queue one draw in its chain's file.
   *
   * @param chain 0-based chain id.
   * @param _iteration 0-based draw index (CmdStan files have no such column).
   * @param values θ.
   * @param info The step's info (the sampler columns).
   */
  writeDraw(chain: number, _iteration: number, values: ArrayLike<number>, info: object): void {
    if (this.#fields === null) this.#writeHeader(info);
    const rec = info as Record<string, unknown>;
    const cells: (number | string)[] = this.#fields!.map((f) => Number(rec[f]));
    for (let j = 0; j < values.length; j++) cells.push(values[j]);
    this.#files[chain].writeLine(cells.join(","), chain);
  }

  /**
   * Comment lines added after the rows of chain `chain` (the adaptation),
   * queued before {@link commit}.
   *
   * @param chain 0-based chain id.
   * @param tuning The chain's reported tuning after warmup.
   */
  writeAdaptation(chain: number, tuning: Record<string, unknown>): void {
    const lines: string[] = [];
    if (typeof tuning.stepSize === "number") lines.push(`# Step size = ${tuning.stepSize}`);
    const m = tuning.inverseMassMatrix;
    if (m instanceof Float64Array && m.length === this.#parameterNames.length) {
      lines.push("# Diagonal elements of inverse mass matrix:", `# ${[...m].join(", ")}`);
    }
    if (lines.length === 0) return;
    for (const line of ["# Adaptation terminated", ...lines]) {
      this.#files[chain].writeLine(line, -1);
    }
  }

  /** Write the queued rows of every file. */
  flush(): void {
    if (this.#fields === null) return; // nothing but the comments yet
    for (const f of this.#files) f.flush();
  }

  /** Flush, close and rename every file into place (the whole rows on disk are kept). */
  commit(): void {
    if (this.#fields === null) this.#writeHeader(null);
    let error: unknown = null;
    for (const f of this.#files) {
      try {
        f.commit();
      } catch (e) {
        error ??= e;
      }
    }
    if (error !== null) throw error;
  }

  /** Remove every temporary file. */
  discard(): void {
    for (const f of this.#files) f.discard();
  }
}
