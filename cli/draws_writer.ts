/**
 * Streaming writer of a tallmc draws file (`.chain,.iteration,.draw,params…[,extra…]`,
 * posterior's column names, 1-based; the format `data/draws_csv.ts` reads;
 * see docs/draws_format.md). The file is written under a
 * temporary name beside `--out` ({@link AtomicOutput}) and renamed into
 * place when the run ends — completed, stopped by a chain, interrupted by a
 * signal, or cut short by a full disk — so the target name never holds a
 * file that is being written. Rows are written whole: when a write fails
 * (disk full) the file is cut back to its last complete row, and the writer
 * counts the rows, per chain, that are actually on disk. Chains running side
 * by side write rows in the order they arrive; on commit the rows are put in
 * chain order (each chain's by iteration), so a seed gives one file whatever
 * the threads' timing.
 *
 * @module
 */
import { AtomicOutput } from "./safe_output.ts";
import { csvField } from "../data/column_names.ts";

export { checkWritable } from "./safe_output.ts";

/**
 * Rows queued before a write (a signal or a stop flushes them too). The
 * calling thread, which writes, also hands the chain workers their next
 * chain: a write of 1000 rows of 30 parameters (620 KB) took it 8–16 ms,
 * one of 250 rows into a reused buffer takes 0.5–2 ms.
 */
const _BUFFER_ROWS = 250;

/** Draws files up to this size are put in chain order in memory, larger ones run by run. */
const _IN_MEMORY_BYTES = 256 << 20;

/** Writes draws to a file as they are made. */
export class DrawsFileWriter {
  readonly #out: AtomicOutput;
  readonly #numColumns: number;
  readonly #encoder = new TextEncoder();
  /** The bytes of a write, reused from one write to the next (grown when one needs more). */
  #bytes = new Uint8Array(0);
  #buffer: string[] = [];
  #bufferChains: number[] = [];
  #bytesOnDisk = 0;
  #rowsOnDisk = 0;
  readonly #perChain = new Map<number, number>();
  #failure: Error | null = null;
  #closed = false;
  #extraNames: string[] = [];
  #drawsPerChain = 0;
  /** Byte ranges on disk of consecutive rows of one chain (−1: header/comment lines), in file order. */
  #runs: { chain: number; start: number; end: number }[] = [];

  private constructor(out: AtomicOutput, numColumns: number) {
    this.#out = out;
    this.#numColumns = numColumns;
  }

  /**
   * Create the temporary file beside `path` and write the header.
   *
   * @param path Absolute path of the draws file (written on {@link commit}).
   * @param columns `parameterNames`, `extraNames` (e.g. `["sign"]`) and
   *   `drawsPerChain`, the draws a chain makes when it runs to the end (gives
   *   `.draw` = chain·drawsPerChain + iteration + 1; default 0: `.draw` is
   *   then the row number).
   * @returns The writer.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { DrawsFileWriter } from "./draws_writer.ts";
   * const path = await Deno.makeTempFile({ suffix: ".csv" });
   * const w = DrawsFileWriter.open(path, { parameterNames: ["a"], extraNames: [], drawsPerChain: 10 });
   * w.write(1, 0, [1.5], []);
   * w.commit();
   * assert.equal(await Deno.readTextFile(path), ".chain,.iteration,.draw,a\n2,1,11,1.5\n");
   * ```
   */
  static open(
    path: string,
    columns: {
      parameterNames: readonly string[];
      extraNames: readonly string[];
      drawsPerChain?: number;
    },
  ): DrawsFileWriter {
    const names = [
      ".chain",
      ".iteration",
      ".draw",
      ...columns.parameterNames,
      ...columns.extraNames,
    ];
    const w = DrawsFileWriter.create(path, [names.map(csvField).join(",")], names.length);
    w.#extraNames = [...columns.extraNames];
    w.#drawsPerChain = columns.drawsPerChain ?? 0;
    return w;
  }

  /**
   * Create the temporary file beside `path` and write `headerLines` (not
   * counted as rows); rows are then added with {@link writeLine}.
   *
   * @param path Absolute path of the file (written on {@link commit}).
   * @param headerLines Lines before the rows (comments, the column names).
   * @param numColumns Cells per row ({@link write} checks it), 0 for any.
   * @returns The writer.
   */
  static create(path: string, headerLines: readonly string[], numColumns = 0): DrawsFileWriter {
    const out = AtomicOutput.create(path);
    const w = new DrawsFileWriter(out, numColumns);
    for (const line of headerLines) {
      w.#buffer.push(line);
      w.#bufferChains.push(-1);
    }
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
   * Queue one draw of the sampler (its extra columns read from the step's
   * info by name; booleans as 0/1).
   *
   * @param chain 0-based chain id.
   * @param iteration 0-based draw index in the chain.
   * @param values θ.
   * @param info The step's info.
   */
  writeDraw(chain: number, iteration: number, values: ArrayLike<number>, info: object): void {
    const rec = info as Record<string, unknown>;
    this.write(chain, iteration, values, this.#extraNames.map((n) => Number(rec[n])));
  }

  /**
   * Queue one line of text as a row of `chain` (or, with chain −1, a line
   * that is not a row, e.g. a comment).
   *
   * @param text The line, without its newline.
   * @param chain Chain id the row counts for, or −1.
   */
  writeLine(text: string, chain: number): void {
    if (this.#failure !== null || this.#closed) return;
    this.#buffer.push(text);
    this.#bufferChains.push(chain);
    if (this.#buffer.length >= _BUFFER_ROWS) this.flush();
  }

  /**
   * Queue one draw (written whole at the next flush, every 250 rows, on a
   * stop and on commit). After a failed write or once the file is committed
   * or discarded, rows are dropped.
   *
   * @param chain 0-based chain id (written 1-based as `.chain`).
   * @param iteration 0-based draw index in the chain (written 1-based).
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
    const draw = this.#drawsPerChain > 0
      ? chain * this.#drawsPerChain + iteration + 1
      : this.numRows + 1;
    const cells: (number | string)[] = [chain + 1, iteration + 1, draw];
    for (let j = 0; j < values.length; j++) cells.push(values[j]);
    cells.push(...extra);
    if (this.#numColumns > 0 && cells.length !== this.#numColumns) {
      throw new RangeError(`a draws row needs ${this.#numColumns} cells, got ${cells.length}`);
    }
    this.writeLine(cells.join(","), chain);
  }

  /**
   * Write the queued rows. A failed write (disk full) is not thrown: the file
   * is cut back to its last whole row, {@link failure} is set and later rows
   * are dropped.
   */
  flush(): void {
    if (this.#buffer.length === 0 || this.#failure !== null || this.#closed) return;
    this.#buffer.push("");
    const text = this.#buffer.join("\n"); // the rows, each ended by "\n"
    // Numbers are ASCII, a byte each; a text that does not fit (names with
    // other characters) is encoded on its own.
    if (this.#bytes.length < text.length) {
      this.#bytes = new Uint8Array(text.length + (text.length >> 3));
    }
    const fit = this.#encoder.encodeInto(text, this.#bytes);
    const bytes = fit.read === text.length
      ? this.#bytes.subarray(0, fit.written)
      : this.#encoder.encode(text);
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
    // Count the whole rows that reached the file; cut a partial one (the
    // line breaks by indexOf, not a loop in script over every byte).
    let whole = 0, end = 0;
    for (let i = bytes.indexOf(10); i >= 0 && i < off; i = bytes.indexOf(10, i + 1)) {
      const c = chains[whole++];
      const start = this.#bytesOnDisk + end;
      end = i + 1;
      const last = this.#runs[this.#runs.length - 1];
      if (last !== undefined && last.chain === c && last.end === start) {
        last.end = this.#bytesOnDisk + end;
      } else this.#runs.push({ chain: c, start, end: this.#bytesOnDisk + end });
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
    if (this.#failure === null && this.#outOfOrder()) {
      try {
        this.#commitInChainOrder();
        return;
      } catch {
        // could not write the sorted copy (disk full…): keep the rows as written
      }
    }
    this.#out.commit();
  }

  /**
   * Whether chains' rows interleave on disk (chains running side by side
   * write in the order their draws arrive), with every line after the header
   * a row of some chain.
   */
  #outOfOrder(): boolean {
    let seenRow = false, prev = -1, interleaved = false;
    for (const r of this.#runs) {
      if (r.chain < 0) {
        if (seenRow) return false; // a comment among the rows: keep the order as written
        continue;
      }
      seenRow = true;
      if (r.chain < prev) interleaved = true;
      prev = r.chain;
    }
    return interleaved;
  }

  /**
   * Rename into place a copy with the rows grouped by chain (each chain's rows
   * in the order written, i.e. by iteration), so that one seed gives one file
   * whatever the threads' timing. Throws (the caller then keeps the file as
   * written) if the copy cannot be made; the original is removed only after
   * the copy is complete.
   */
  #commitInChainOrder(): void {
    const src = this.#out.tempPath;
    this.#out.file?.close();
    this.#out.file = null;
    const order = this.#runs.map((r, i) => ({ r, i })).sort((a, b) =>
      (a.r.chain - b.r.chain) || (a.i - b.i)
    ).map((x) => x.r);
    const copy = AtomicOutput.create(this.#out.target);
    try {
      const file = copy.file!;
      const writeAll = (b: Uint8Array) => {
        for (let o = 0; o < b.length;) o += file.writeSync(b.subarray(o));
      };
      if (this.#bytesOnDisk <= _IN_MEMORY_BYTES) {
        // One read into a buffer of the file's size (Deno.readFileSync grows
        // and copies its buffers: 20–60 ms for 2.5 MB against 1 ms), then
        // one write per run in chain order.
        const all = new Uint8Array(this.#bytesOnDisk);
        const input = Deno.openSync(src, { read: true });
        try {
          for (let got = 0; got < all.length;) {
            const k = input.readSync(all.subarray(got));
            if (k === null) throw new Error(`${src}: shorter than its rows`);
            got += k;
          }
        } finally {
          input.close();
        }
        for (const r of order) writeAll(all.subarray(r.start, r.end));
      } else this.#copyRunsInOrder(src, order, writeAll);
      copy.commit();
    } catch (e) {
      copy.discard();
      throw e;
    }
    this.#out.discard();
  }

  /** Copy the runs `order` names from the file `src`, a read buffer at a time. */
  #copyRunsInOrder(
    src: string,
    order: readonly { start: number; end: number }[],
    writeAll: (b: Uint8Array) => void,
  ): void {
    const input = Deno.openSync(src, { read: true });
    try {
      const buf = new Uint8Array(1 << 20);
      for (const r of order) {
        for (let pos = r.start; pos < r.end;) {
          const len = Math.min(r.end - pos, buf.length);
          input.seekSync(pos, Deno.SeekMode.Start);
          let got = 0;
          while (got < len) {
            const k = input.readSync(buf.subarray(got, len));
            if (k === null) throw new Error(`${src}: shorter than its rows`);
            got += k;
          }
          writeAll(buf.subarray(0, len));
          pos += len;
        }
      }
    } finally {
      input.close();
    }
  }

  /** Close and remove the temporary file: the target stays as it was. */
  discard(): void {
    this.#closed = true;
    this.#out.discard();
  }
}
