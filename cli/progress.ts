/**
 * The progress bar of `tallmc sample` on stderr: one count per chain,
 * summed, so the bar is monotone whether the chains run one after another or
 * at once in workers (whose reports interleave), and it ends at 100 % (or
 * where the run stopped).
 *
 * ```
 *  onProgress(chain, iteration, total) ─► done[chain] = max(done[chain], iteration)
 *  percent = ⌊100 · Σ done / (numChains · total)⌋   (never decreases)
 *  terminal:      "\r<bar> p%" whenever p changes, a newline at the end
 *  not terminal:  "<bar> p%\n" when p enters a new tenth (0, 10, …, 100), and
 *                 the final percent at the end if it was not printed
 * ```
 *
 * @module
 */

/** Options of {@link ChainProgress}. */
export interface ChainProgressOptions {
  /** Prefix of every line (the sampler's name). */
  label: string;
  /** Chains in the run. */
  numChains: number;
  /** Whether stderr is a terminal (redraw one line) or not (a line per tenth). */
  tty: boolean;
  /** Where text goes (default: stderr). */
  write?: (text: string) => void;
  /** Milliseconds since some origin (default: `performance.now`). */
  now?: () => number;
}

/**
 * Aggregate per-chain progress into one monotone bar.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ChainProgress } from "./progress.ts";
 * const lines: string[] = [];
 * const bar = new ChainProgress({ label: "hmc", numChains: 2, tty: false, write: (t) => lines.push(t) });
 * for (let i = 1; i <= 100; i++) { bar.update(1, i, 100); bar.update(0, i, 100); }
 * bar.done();
 * const percents = lines.map((l) => Number(/ (\d+)% /.exec(l)![1]));
 * assert.deepEqual(percents, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
 * ```
 */
export class ChainProgress {
  readonly #label: string;
  readonly #numChains: number;
  readonly #tty: boolean;
  readonly #write: (text: string) => void;
  readonly #now: () => number;
  readonly #t0: number;
  readonly #done = new Map<number, number>();
  #sum = 0;
  #total = 0;
  #shown = -1;
  #tenth = -1;

  /**
   * @param options Label, number of chains, terminal or not, output.
   */
  constructor(options: ChainProgressOptions) {
    this.#label = options.label;
    this.#numChains = Math.max(1, options.numChains);
    this.#tty = options.tty;
    const enc = new TextEncoder();
    this.#write = options.write ?? ((text) => Deno.stderr.writeSync(enc.encode(text)));
    this.#now = options.now ?? (() => performance.now());
    this.#t0 = this.#now();
  }

  /** Percent done so far, 0–100 (monotone). */
  get percent(): number {
    return this.#shown < 0 ? this.#percent() : this.#shown;
  }

  /**
   * A chain reports `iteration` of `total` iterations done.
   *
   * @param chain The chain id.
   * @param iteration Iterations this chain has completed (warmup + sampling).
   * @param total Iterations of one chain.
   * @returns Nothing.
   */
  update(chain: number, iteration: number, total: number): void {
    if (!(total > 0)) return;
    this.#total = total;
    const before = this.#done.get(chain) ?? 0;
    const now = Math.min(Math.max(before, iteration), total);
    this.#done.set(chain, now);
    this.#sum += now - before;
    const pct = this.#percent();
    if (this.#tty) {
      if (pct > this.#shown) this.#show(pct);
    } else if (Math.floor(pct / 10) > this.#tenth) {
      this.#show(pct);
    }
  }

  /**
   * The run ended (or stopped): print the final percent if it was not, and
   * end a terminal's line.
   *
   * @returns Nothing.
   */
  done(): void {
    if (this.#total === 0) return;
    const pct = this.#percent();
    if (pct !== this.#shown) this.#show(pct);
    if (this.#tty) this.#write("\n");
  }

  #percent(): number {
    if (this.#total === 0) return 0;
    const all = this.#numChains * this.#total;
    return this.#sum >= all ? 100 : Math.floor((100 * this.#sum) / all);
  }

  #show(pct: number): void {
    this.#shown = pct;
    this.#tenth = Math.floor(pct / 10);
    const width = 30, filled = Math.floor((width * pct) / 100);
    const secs = ((this.#now() - this.#t0) / 1000).toFixed(1);
    const bar = `${this.#label} [${"#".repeat(filled)}${
      ".".repeat(width - filled)
    }] ${pct}% ${secs}s`;
    this.#write(this.#tty ? `\r${bar}` : `${bar}\n`);
  }
}
