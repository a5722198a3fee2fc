/**
 * The subsample u of HMC-ECS, kept gathered in WebAssembly memory and updated
 * in blocks so that successive log-likelihood estimates are highly correlated.
 *
 * Two layouts, one per estimator:
 *
 * ```
 *  BlockSubsample (difference estimator, eqs. 8–10): m rows in G blocks
 *   positions  [0 ────── m) = blocks 0 … G−1 (sizes ⌊m/G⌋ or ⌈m/G⌉)   [m ── m+b) spare
 *   one iteration proposes fresh rows for ONE block, gathered into the spare
 *   area; if accepted they are copied over the block  →  ρ ≈ 1 − 1/G.
 *
 *  PoissonSubsample (block-Poisson estimator, eq. 15): λ products, product l
 *  holds χₗ ~ Pois(1) mini-batches ("slots") of m rows each
 *   positions  [0 ───── S·m) = S = Σχₗ slots, slot s owned by product slotProduct[s]
 *              [S·m ── (S+P)·m) spare slots of a proposal
 *   one iteration redraws χₗ and the rows of κ products; on acceptance the old
 *   slots of those products are removed (the last slots are moved into the
 *   holes) and the new ones appended  →  ρ ≈ 1 − κ/λ.
 * ```
 *
 * Rows are drawn uniformly with replacement (ωₖ = 1/n). The control-variate
 * cache rows are gathered with the data rows; {@link BlockSubsample.sync} and
 * {@link PoissonSubsample.sync} re-gather them after θ* moves.
 *
 * References: Dang et al. (2019) §3.3 and §5.1; Quiroz et al. (2019) and
 * (2018b, block-Poisson); Tran et al. (2017, block pseudo-marginal).
 *
 * @module
 */
import type { Rng } from "../random/rng.ts";
import type { RowBuffer } from "../core/row_buffer.ts";
import type { SubsampleControlVariates } from "./control_variates.ts";

/** Options of {@link BlockSubsample}. */
export interface BlockSubsampleOptions {
  /** Subsample size m (number of rows drawn with replacement). */
  subsampleSize: number;
  /** Number of blocks G (default 100, capped at m). */
  numBlocks?: number;
}

/** A proposed refresh of one block of a {@link BlockSubsample}. */
export interface BlockProposal {
  /** The block g being refreshed. */
  readonly block: number;
  /** First spare position holding the proposed rows. */
  readonly start: number;
  /** One past the last spare position. */
  readonly end: number;
  /** The proposed data-row indices (length end − start). */
  readonly indices: Int32Array;
}

/**
 * The subsample u = (u₁, …, u_m) of the difference estimator, in G blocks.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { ControlVariates } from "./control_variates.ts";
 * import { BlockSubsample } from "./subsample_state.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 1 : Math.sin(i)));
 * const y = Array.from({ length: 100 }, (_, i) => i % 3 === 0 ? 1 : 0);
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const cv = new ControlVariates(model, new Float64Array(2));
 * const u = new BlockSubsample(cv, new Rng(1), { subsampleSize: 20, numBlocks: 4 });
 * const p = u.propose(new Rng(2));
 * u.accept(p); // block p.block now holds p.indices
 * assert.equal(u.blockRange(p.block).end - u.blockRange(p.block).start, 5);
 * ```
 */
export class BlockSubsample {
  /** The control variates whose cache rows are gathered. */
  readonly cv: SubsampleControlVariates;
  /** The gathered rows (positions [0, m) plus the spare area). */
  readonly rows: RowBuffer;
  /** Subsample size m. */
  readonly subsampleSize: number;
  /** Number of blocks G. */
  readonly numBlocks: number;
  /** Block g occupies positions [blockStart[g], blockStart[g + 1]). */
  readonly blockStart: Int32Array;
  /** Number of accepted block refreshes. */
  numRefreshes = 0;
  /** The proposal of the latest {@link accept} (null before the first). */
  lastAccepted: BlockProposal | null = null;
  #maxBlock: number;
  #version: number;

  /**
   * Draw u uniformly with replacement and gather its rows.
   *
   * @param cv Control variates over the model's data.
   * @param rng Generator for the initial draw.
   * @param options Subsample size m and number of blocks G.
   */
  constructor(cv: SubsampleControlVariates, rng: Rng, options: BlockSubsampleOptions) {
    const m = options.subsampleSize;
    if (!Number.isInteger(m) || m < 2) {
      throw new RangeError(`subsampleSize must be an integer ≥ 2, got ${m}`);
    }
    const g0 = options.numBlocks ?? 100;
    if (!Number.isInteger(g0) || g0 < 1) {
      throw new RangeError(`numBlocks must be a positive integer, got ${g0}`);
    }
    const G = Math.min(g0, m);
    this.cv = cv;
    this.subsampleSize = m;
    this.numBlocks = G;
    this.blockStart = new Int32Array(G + 1);
    for (let g = 0; g <= G; g++) this.blockStart[g] = Math.round((g * m) / G);
    let mx = 0;
    for (let g = 0; g < G; g++) mx = Math.max(mx, this.blockStart[g + 1] - this.blockStart[g]);
    this.#maxBlock = mx;
    this.rows = cv.createRows(m + mx);
    cv.gatherRows(this.rows, rng.sampleWithReplacement(cv.numRows, m), 0);
    this.#version = cv.version;
  }

  /**
   * Positions of block g.
   *
   * @param block Block number in [0, G).
   * @returns `{start, end}`.
   */
  blockRange(block: number): { start: number; end: number } {
    return { start: this.blockStart[block], end: this.blockStart[block + 1] };
  }

  /**
   * Draw fresh rows for one block (uniform block choice unless given) and
   * gather them into the spare area. Nothing changes until {@link accept}.
   *
   * @param rng Generator.
   * @param block Optional block to refresh.
   * @returns The proposal.
   */
  propose(rng: Rng, block?: number): BlockProposal {
    this.sync();
    const g = block ?? rng.int(this.numBlocks);
    if (!Number.isInteger(g) || g < 0 || g >= this.numBlocks) {
      throw new RangeError(`block must be an integer in [0, ${this.numBlocks - 1}], got ${g}`);
    }
    const size = this.blockStart[g + 1] - this.blockStart[g];
    const indices = rng.sampleWithReplacement(this.cv.numRows, size);
    const start = this.subsampleSize;
    this.cv.gatherRows(this.rows, indices, start);
    return { block: g, start, end: start + size, indices };
  }

  /**
   * Make a proposal the current subsample (copies the spare rows over the block).
   *
   * @param proposal The value returned by the latest {@link propose}.
   * @returns Nothing.
   */
  accept(proposal: BlockProposal): void {
    const { start, end } = this.blockRange(proposal.block);
    if (end - start !== proposal.end - proposal.start) {
      throw new RangeError(
        `proposal of ${proposal.end - proposal.start} rows does not fit block ${proposal.block}`,
      );
    }
    this.rows.moveRows(proposal.start, start, end - start);
    this.numRefreshes++;
    this.lastAccepted = proposal;
  }

  /** The current data-row indices (a view of positions [0, m)). */
  get indices(): Int32Array {
    return this.rows.indices.subarray(0, this.subsampleSize);
  }

  /**
   * Re-gather the cache rows if the control variates were re-centred.
   *
   * @returns Whether anything was re-gathered.
   */
  sync(): boolean {
    if (this.#version === this.cv.version) return false;
    this.cv.refreshRows(this.rows, { start: 0, end: this.subsampleSize });
    this.#version = this.cv.version;
    return true;
  }

  /** Largest block size (the spare area's size). */
  get maxBlockSize(): number {
    return this.#maxBlock;
  }

  /**
   * Release the gathered rows.
   *
   * @returns Nothing.
   */
  dispose(): void {
    this.rows.dispose();
  }
}

/** Options of {@link PoissonSubsample}. */
export interface PoissonSubsampleOptions {
  /** Mini-batch size m of each d̂ₘ^(h,l) (default 30). */
  batchSize?: number;
  /** Number of products λ. */
  numProducts: number;
  /** Products refreshed per iteration κ (default 1). */
  numRefreshed?: number;
}

/** A proposed refresh of κ products of a {@link PoissonSubsample}. */
export interface ProductProposal {
  /** The refreshed products (distinct, length κ). */
  readonly products: Int32Array;
  /** Their new χₗ. */
  readonly chi: Int32Array;
  /** First spare position (slot-aligned). */
  readonly start: number;
  /** Number of new slots P = Σ new χₗ. */
  readonly numSlots: number;
  /** Owning product of each new slot (length P). */
  readonly slotProduct: Int32Array;
}

/**
 * The subsample of the block-Poisson estimator: λ products with χₗ ~ Pois(1)
 * mini-batches of m rows each, kept compact in one gathered buffer.
 *
 * @example
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "../models/glm.ts";
 * import { Rng } from "../random/rng.ts";
 * import { ControlVariates } from "./control_variates.ts";
 * import { PoissonSubsample } from "./subsample_state.ts";
 * const arena = loadCore({ backend: "reference" });
 * const x = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 1 : Math.cos(i)));
 * const y = Array.from({ length: 100 }, (_, i) => i % 2);
 * const model = new GlmModel(glmDataFromArrays(arena, x, y, { numCols: 2 }), { family: "logistic" });
 * const cv = new ControlVariates(model, new Float64Array(2));
 * const u = new PoissonSubsample(cv, new Rng(1), { batchSize: 5, numProducts: 10 });
 * let total = 0;
 * for (const c of u.chi) total += c;
 * assert.ok(total === u.numSlots);
 * ```
 */
export class PoissonSubsample {
  /** The control variates whose cache rows are gathered. */
  readonly cv: SubsampleControlVariates;
  /** The gathered rows: S·m active positions, then spare slots. */
  readonly rows: RowBuffer;
  /** Mini-batch size m. */
  readonly batchSize: number;
  /** Number of products λ. */
  readonly numProducts: number;
  /** Products refreshed per iteration κ. */
  readonly numRefreshed: number;
  /** χₗ per product (length λ). */
  readonly chi: Int32Array;
  /** Number of active slots S = Σχₗ. */
  numSlots = 0;
  /** Owning product of each active slot (valid in [0, S)). */
  slotProduct: Int32Array;
  /** Number of accepted refreshes. */
  numRefreshes = 0;
  #version: number;

  /**
   * Draw χ and all mini-batches and gather them.
   *
   * @param cv Control variates over the model's data.
   * @param rng Generator.
   * @param options m, λ, κ.
   */
  constructor(cv: SubsampleControlVariates, rng: Rng, options: PoissonSubsampleOptions) {
    const m = options.batchSize ?? 30, lam = options.numProducts, k = options.numRefreshed ?? 1;
    if (!Number.isInteger(m) || m < 1) {
      throw new RangeError(`batchSize must be a positive integer, got ${m}`);
    }
    if (!Number.isInteger(lam) || lam < 1) {
      throw new RangeError(`numProducts must be a positive integer, got ${lam}`);
    }
    if (!Number.isInteger(k) || k < 1 || k > lam) {
      throw new RangeError(`numRefreshed must be an integer in [1, ${lam}], got ${k}`);
    }
    this.cv = cv;
    this.batchSize = m;
    this.numProducts = lam;
    this.numRefreshed = k;
    this.chi = new Int32Array(lam);
    let S = 0;
    for (let l = 0; l < lam; l++) S += this.chi[l] = rng.poisson(1);
    this.slotProduct = new Int32Array(Math.max(16, 2 * S));
    for (let l = 0, s = 0; l < lam; l++) {
      for (let h = 0; h < this.chi[l]; h++) this.slotProduct[s++] = l;
    }
    this.numSlots = S;
    const spare = k + 8 * Math.ceil(Math.sqrt(k)) + 8;
    this.rows = cv.createRows((S + spare) * m);
    if (S > 0) cv.gatherRows(this.rows, rng.sampleWithReplacement(cv.numRows, S * m), 0);
    this.#version = cv.version;
  }

  /**
   * Redraw χₗ and the mini-batches of κ distinct products chosen uniformly,
   * gathered into spare slots after the active ones. Nothing changes until
   * {@link accept}.
   *
   * @param rng Generator.
   * @param products Optional distinct products to refresh instead of κ random ones.
   * @returns The proposal.
   */
  propose(rng: Rng, products?: Int32Array): ProductProposal {
    this.sync();
    const lam = this.numProducts, m = this.batchSize;
    if (products !== undefined) {
      const seen = new Uint8Array(lam);
      for (const l of products) {
        if (!Number.isInteger(l) || l < 0 || l >= lam || seen[l]) {
          throw new RangeError(`products must be distinct integers in [0, ${lam - 1}], got ${l}`);
        }
        seen[l] = 1;
      }
    } else {
      products = this.numRefreshed === lam
        ? Int32Array.from({ length: lam }, (_, i) => i)
        : rng.sampleWithoutReplacement(lam, this.numRefreshed);
    }
    const k = products.length;
    const chi = new Int32Array(k);
    let P = 0;
    for (let i = 0; i < k; i++) P += chi[i] = rng.poisson(1);
    const slotProduct = new Int32Array(P);
    for (let i = 0, s = 0; i < k; i++) {
      for (let h = 0; h < chi[i]; h++) slotProduct[s++] = products[i];
    }
    const start = this.numSlots * m;
    this.rows.ensureCapacity(start + P * m);
    if (P > 0) {
      this.cv.gatherRows(this.rows, rng.sampleWithReplacement(this.cv.numRows, P * m), start);
    }
    return { products, chi, start, numSlots: P, slotProduct };
  }

  /**
   * Which active slots a proposal removes (those owned by its products).
   *
   * @param proposal A proposal.
   * @returns Sorted slot numbers.
   */
  removedSlots(proposal: ProductProposal): Int32Array {
    const mark = new Uint8Array(this.numProducts);
    for (const l of proposal.products) mark[l] = 1;
    const out: number[] = [];
    for (let s = 0; s < this.numSlots; s++) if (mark[this.slotProduct[s]]) out.push(s);
    return Int32Array.from(out);
  }

  /**
   * Make a proposal current: remove the refreshed products' old slots (moving
   * the last kept slots into the holes) and append the new slots.
   *
   * @param proposal The value returned by the latest {@link propose}.
   * @returns A map from each kept slot's new number to its old number
   *   (length S_kept), so that callers can permute per-slot caches.
   */
  accept(proposal: ProductProposal): Int32Array {
    const m = this.batchSize, S = this.numSlots;
    const removed = this.removedSlots(proposal);
    const keep = new Uint8Array(S).fill(1);
    for (const s of removed) keep[s] = 0;
    // order[newSlot] = oldSlot for the kept slots after compaction.
    const order = new Int32Array(S);
    for (let s = 0; s < S; s++) order[s] = s;
    let hi = S - 1;
    let kept = S;
    for (const hole of removed) {
      while (hi > hole && !keep[hi]) hi--;
      if (hi <= hole) break;
      // move slot hi into hole
      this.rows.moveRows(hi * m, hole * m, m);
      this.slotProduct[hole] = this.slotProduct[hi];
      order[hole] = order[hi];
      keep[hole] = 1;
      keep[hi] = 0;
      hi--;
    }
    kept = S - removed.length;
    const P = proposal.numSlots;
    if (P > 0) this.rows.moveRows(proposal.start, kept * m, P * m);
    if (kept + P > this.slotProduct.length) {
      const sp = new Int32Array(2 * (kept + P));
      sp.set(this.slotProduct.subarray(0, kept));
      this.slotProduct = sp;
    }
    this.slotProduct.set(proposal.slotProduct, kept);
    for (let i = 0; i < proposal.products.length; i++) {
      this.chi[proposal.products[i]] = proposal.chi[i];
    }
    this.numSlots = kept + P;
    this.numRefreshes++;
    return order.slice(0, kept);
  }

  /**
   * Re-gather the cache rows if the control variates were re-centred.
   *
   * @returns Whether anything was re-gathered.
   */
  sync(): boolean {
    if (this.#version === this.cv.version) return false;
    if (this.numSlots > 0) {
      this.cv.refreshRows(this.rows, { start: 0, end: this.numSlots * this.batchSize });
    }
    this.#version = this.cv.version;
    return true;
  }

  /**
   * Release the gathered rows.
   *
   * @returns Nothing.
   */
  dispose(): void {
    this.rows.dispose();
  }
}
