/**
 * Streaming writer of a tallmc draws file (`chain,iteration,params…[,extra…]`,
 * the format `data/draws_csv.ts` reads). The file is written under a
 * temporary name beside `--out` ({@link AtomicOutput}) and renamed into
 * place when the run ends — completed, stopped by a chain, interrupted by a
 * signal, or cut short by a full disk — so the target name never holds a
 * file that is being written. Rows are written whole: when a write fails
 * (disk full) the file is cut back to its last complete row, and the writer
 * counts the rows, per chain, that are actually on disk.
 *
 * @module
 */
import { AtomicOutput } from "./safe_output.ts";

export { checkWritable } from "./safe_output.ts";

function _quote(name: string): string {
  return /[",\n\r]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name;
}

/** Rows queued before a write (a signal or a stop flushes them too). */
const _BUFFER_ROWS = 1000;

/** Writes draws to a file as they are made. */
export class DrawsFileWriter {
  readonly #out: AtomicOutput;
  readonly #numColumns: number;
  readonly #encoder = new TextEncoder();
  #buffer: string[] = [];
  #bufferChains: number[] = [];
  #bytesOnDisk = 0;
  #rowsOnDisk = 0;
  readonly #perChain = new Map<number, number>();
  #failure: Error | null = null;
  #closed = false;

  private constructor(out: AtomicOutput, numColumns: number) {
    this.#out = out;
    this.#numColumns = numColumns;
  }

  /**
   * Create the temporary file beside `path` and write the header.
   *
   * @param path Absolute path of the draws file (written on {@link commit}).
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
   * w.commit();
   * assert.equal(await Deno.readTextFile(path), "chain,iteration,a\n0,0,1.5\n");
   * ```
   */
  static open(
    path: string,
    columns: { parameterNames: readonly string[]; extraNames: readonly string[] },
  ): DrawsFileWriter {
    const out = AtomicOutput.create(path);
    const names = ["chain", "iteration", ...columns.parameterNames, ...columns.extraNames];
    const w = new DrawsFileWriter(out, names.length);
    w.#buffer.push(names.map(_quote).join(","));
    w.#bufferChains.push(-1);
    w.flush();
    if (w.#failure !== null) {
      out.discard();
      throw w.#failure;
    }
    return w;
  }

  /** The path the file gets on commit. */
  get path(): string {
    return this.#out.target;
  }

  /** Rows queued or written so far (without the header). */
  get numRows(): number {
    return this.#rowsOnDisk + this.#bufferChains.filter((c) => c >= 0).length;
  }

  /** Rows written to disk (without the header); after a failure, those before it. */
  get rowsOnDisk(): number {
    return this.#rowsOnDisk;
  }

  /** Rows on disk per chain id, in chain order. */
  get rowsOnDiskPerChain(): [chain: number, rows: number][] {
    return [...this.#perChain.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** The error of a failed write (disk full, …), or null; later rows are dropped. */
  get failure(): Error | null {
    return this.#failure;
  }

  /**
   * Queue one draw (written whole at the next flush, every 1000 rows, on a
   * stop and on commit). After a failed write or once the file is committed
   * or discarded, rows are dropped.
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
    if (this.#failure !== null || this.#closed) return;
    const cells: (number | string)[] = [chain, iteration];
    for (let j = 0; j < values.length; j++) cells.push(values[j]);
    cells.push(...extra);
    if (cells.length !== this.#numColumns) {
      throw new RangeError(`a draws row needs ${this.#numColumns} cells, got ${cells.length}`);
    }
    this.#buffer.push(cells.join(","));
    this.#bufferChains.push(chain);
    if (this.#buffer.length >= _BUFFER_ROWS) this.flush();
  }

  /**
   * Write the queued rows. A failed write (disk full) is not thrown: the file
   * is cut back to its last whole row, {@link failure} is set and later rows
   * are dropped.
   */
  flush(): void {
    if (this.#buffer.length === 0 || this.#failure !== null || this.#closed) return;
    const bytes = this.#encoder.encode(this.#buffer.join("\n") + "\n");
    const chains = this.#bufferChains;
    this.#buffer = [];
    this.#bufferChains = [];
    const file = this.#out.file!;
    let off = 0;
    try {
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    } catch (e) {
      this.#failure = e instanceof Error ? e : new Error(String(e));
    }
    // Count the whole rows that reached the file; cut a partial one.
    let whole = 0, end = 0;
    for (let i = 0; i < off; i++) {
      if (bytes[i] !== 10) continue;
      const c = chains[whole++];
      end = i + 1;
      if (c < 0) continue;
      this.#rowsOnDisk++;
      this.#perChain.set(c, (this.#perChain.get(c) ?? 0) + 1);
    }
    if (end < off) {
      try {
        file.truncateSync(this.#bytesOnDisk + end);
        file.seekSync(this.#bytesOnDisk + end, Deno.SeekMode.Start);
      } catch {
        // the failure is reported already; the reader drops a cut last row
      }
    }
    this.#bytesOnDisk += end;
  }

  /**
   * Flush, close and rename the file into place (also after a failed write:
   * the whole rows on disk are kept).
   */
  commit(): void {
    this.flush();
    this.#closed = true;
    this.#out.commit();
  }

  /** Close and remove the temporary file: the target stays as it was. */
  discard(): void {
    this.#closed = true;
    this.#out.discard();
  }
}
