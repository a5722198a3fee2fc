/**
 * Streaming writer of a tallmc draws file (`chain,iteration,params…[,extra…]`,
 * the format `data/draws_csv.ts` reads): the header is written when the file
 * is opened and each draw as it is made, so the file is complete, valid CSV
 * whenever the run stops, with every draw made before the stop.
 *
 * @module
 */
import { dirname } from "node:path";
import { CliUsageError } from "./args.ts";

function _quote(name: string): string {
  return /[",\n\r]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name;
}

/**
 * Check that `path` can be written as the `--out` file, without creating or
 * changing it: its directory exists and is writable, and the path is not a
 * directory.
 *
 * @param path Absolute path.
 * @param flag The flag it came from (for messages), e.g. `"--out"`.
 * @returns Nothing.
 * @throws {CliUsageError} Naming the flag and the path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkWritable } from "./draws_writer.ts";
 * assert.throws(() => checkWritable("/nonexistent-dir/x.csv", "--out"), /--out/);
 * ```
 */
export function checkWritable(path: string, flag: string): void {
  const dir = dirname(path);
  let info: Deno.FileInfo | null = null;
  try {
    info = Deno.statSync(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new CliUsageError(`${flag} ${path} cannot be checked: ${(e as Error).message}`);
    }
  }
  if (info?.isDirectory) {
    throw new CliUsageError(
      `${flag} ${path} is a directory; give a file name such as ${path}/draws.csv`,
    );
  }
  try {
    if (info !== null) {
      Deno.openSync(path, { append: true }).close();
      return;
    }
    const dinfo = Deno.statSync(dir);
    if (!dinfo.isDirectory) throw new Error(`${dir} is not a directory`);
    // Create and remove a probe file: the only portable writability test.
    const probe = `${dir}/.tallmc-write-test-${Deno.pid}`;
    Deno.writeTextFileSync(probe, "");
    Deno.removeSync(probe);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? `the directory ${dir} does not exist`
      : e instanceof Deno.errors.PermissionDenied || e instanceof Deno.errors.NotCapable
      ? `no permission to write there`
      : (e as Error).message;
    throw new CliUsageError(`${flag} ${path} is not writable: ${why}`);
  }
}

/** Writes draws to a file as they are made. */
export class DrawsFileWriter {
  readonly #file: Deno.FsFile;
  readonly #numColumns: number;
  readonly #encoder = new TextEncoder();
  #buffer: string[] = [];
  #numRows = 0;

  private constructor(file: Deno.FsFile, numColumns: number) {
    this.#file = file;
    this.#numColumns = numColumns;
  }

  /**
   * Create (truncate) the file and write the header.
   *
   * @param path Absolute path.
   * @param columns `parameterNames` and `extraNames` (e.g. `["sign"]`).
   * @returns The writer.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DrawsFileWriter } from "./draws_writer.ts";
   * const path = await Deno.makeTempFile({ suffix: ".csv" });
   * const w = DrawsFileWriter.open(path, { parameterNames: ["a"], extraNames: [] });
   * w.write(0, 0, [1.5], []);
   * w.close();
   * assert.equal(await Deno.readTextFile(path), "chain,iteration,a\n0,0,1.5\n");
   * ```
   */
  static open(
    path: string,
    columns: { parameterNames: readonly string[]; extraNames: readonly string[] },
  ): DrawsFileWriter {
    const file = Deno.openSync(path, { write: true, create: true, truncate: true });
    const names = ["chain", "iteration", ...columns.parameterNames, ...columns.extraNames];
    const w = new DrawsFileWriter(file, names.length);
    w.#buffer.push(names.map(_quote).join(","));
    w.flush();
    return w;
  }

  /** Rows written so far (without the header). */
  get numRows(): number {
    return this.#numRows;
  }

  /**
   * Queue one draw (written whole at the next flush, every 1000 rows and on close).
   *
   * @param chain Chain id.
   * @param iteration 0-based draw index in the chain.
   * @param values θ.
   * @param extra Extra columns' values.
   */
  write(
    chain: number,
    iteration: number,
    values: ArrayLike<number>,
    extra: readonly number[],
  ): void {
    const cells: (number | string)[] = [chain, iteration];
    for (let j = 0; j < values.length; j++) cells.push(values[j]);
    cells.push(...extra);
    if (cells.length !== this.#numColumns) {
      throw new RangeError(`a draws row needs ${this.#numColumns} cells, got ${cells.length}`);
    }
    this.#buffer.push(cells.join(","));
    this.#numRows++;
    if (this.#buffer.length >= 1000) this.flush();
  }

  /** Write the queued rows (each row whole, newline-terminated). */
  flush(): void {
    if (this.#buffer.length === 0) return;
    const bytes = this.#encoder.encode(this.#buffer.join("\n") + "\n");
    this.#buffer = [];
    let off = 0;
    while (off < bytes.length) off += this.#file.writeSync(bytes.subarray(off));
  }

  /** Flush and close the file. */
  close(): void {
    try {
      this.flush();
    } finally {
      this.#file.close();
    }
  }
}
