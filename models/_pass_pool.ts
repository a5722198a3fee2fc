/**
 * The pass pool shared by {@link import("./threaded_glm.ts").ThreadedGlmModel}
 * (blocks of one shared memory) and
 * {@link import("./sharded_glm.ts").ShardedGlmModel} (shards in their own
 * instances): one command set, one io layout, one worker start-up, one
 * serving loop. What differs is only how a worker holds its rows, behind
 * {@link RowPasses}.
 *
 * ```
 *  commands   PASS_LL ℓ · PASS_GRAD ℓ, ∇ℓ · PASS_HESS ∇²ℓ · PASS_ALL ℓ, ∇ℓ, ∇²ℓ
 *             PASS_CV control-variate centring (cache rows, S, A; S, A alone
 *             with 0 cache rows)
 *             PASS_GATHER rows by index into buffers shared beside the pool
 *             PASS_ROWS sums over listed rows (ℓ, ∇ℓ or ∇²ℓ; the list in shared memory)
 *             PASS_SAMPLE the first worker draws an increasing subset of rows from a
 *             generator state in shared memory (the others do nothing)
 *             PASS_ALL_SAMPLED ℓ, ∇ℓ over every row, ∇²ℓ over one row of each
 *             group of `stride` (see {@link sampledRowOf})
 *  io (Float64Array over a SharedArrayBuffer), P = length of θ
 *   [0, P)                         θ (θ* for PASS_CV)
 *   [P, P + 3)                     PASS_CV's arguments: cache rows, cache offset, chunkRows;
 *                                  PASS_ROWS's: the list's byte offset, its length, what to sum;
 *                                  PASS_SAMPLE's: the state's byte offset, n, m;
 *                                  PASS_ALL_SAMPLED's: the stride, the seed
 *   [P + 3 + k·(1+P+P²), …)        worker k's slot: ℓ or S, ∇ℓ or A (P), ∇²ℓ (P²)
 *  start-up   each worker gets { pool, …its own fields } and answers { ready } or
 *             { error } (a message naming what failed); one failure stops them all
 * ```
 *
 * The caller adds the slots in slot order ({@link PassPool.addLlGrad}), so a
 * pass's result depends only on the layout, never on timing.
 *
 * A posted command is always waited for before the next is posted and before
 * the workers are stopped ({@link PassPool.post}, {@link PassPool.close}),
 * even when the caller's own work between post and wait threw
 * ({@link PassPool.settle}): a worker never writes into the shared memory
 * (its slot, a cache's rows) after the caller has moved on and may have
 * freed or reused that memory.
 *
 * @module
 */
import { PassControl, type PassControlShared, servePasses } from "./_pass_control.ts";

/** @internal Commands every pass worker answers. */
export const PASS_LL = 1,
  PASS_GRAD = 2,
  PASS_HESS = 3,
  PASS_ALL = 4,
  PASS_GATHER = 5,
  PASS_CV = 6,
  PASS_ROWS = 7,
  PASS_SAMPLE = 8,
  PASS_ALL_SAMPLED = 9;

/**
 * The row PASS_ALL_SAMPLED takes the Hessian of in group `group` (rows
 * group·stride … group·stride + stride − 1 of the whole data set): a hash of
 * the group and the seed, so that every row has probability 1/stride and
 * the choice depends on neither shards nor blocks. Σ over the chosen rows
 * times `stride` is then an unbiased estimate of Σ over all (a systematic
 * sample with a random start in each group; a last, partial group's rows
 * keep probability 1/stride, its chosen row falling beyond n as often as it
 * must).
 *
 * @internal
 * @param group The group's index (< 2³¹).
 * @param stride Rows per group (≥ 1).
 * @param seed An integer in [0, 2³²).
 * @returns The chosen row's index in the data set.
 */
export function sampledRowOf(group: number, stride: number, seed: number): number {
  let h = (group ^ seed) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h = (h ^ (h >>> 16)) >>> 0;
  return group * stride + (h % stride);
}

/** io entries between θ and the slots (PASS_CV's arguments). */
const ARGS = 3;

/** @internal What a worker is given of the pool (in its start message, as `pool`). */
export interface PassPoolShared {
  /** The control block. */
  control: PassControlShared;
  /** The io buffer (layout in the module notes). */
  io: SharedArrayBuffer;
  /** Length P of θ. */
  dim: number;
  /** This worker's slot. */
  slot: number;
}

/** The start message of a pool worker: the pool, then the worker's own fields. */
export type PassWorkerStart<T> = T & { pool: PassPoolShared };

/** @internal The calling side of a pool of workers. */
export class PassPool {
  /** Workers answering each request. */
  readonly numWorkers: number;
  /** Length P of θ. */
  readonly dim: number;
  #control: PassControl;
  #io: Float64Array;
  #workers: Worker[];
  /** A command is posted and not yet waited for. */
  #pending = false;

  private constructor(control: PassControl, io: Float64Array, workers: Worker[], dim: number) {
    this.#control = control;
    this.#io = io;
    this.#workers = workers;
    this.numWorkers = workers.length;
    this.dim = dim;
  }

  /**
   * Start `count` workers of the module at `url`, each with the start message
   * `init(k, pool)` returns, and wait until all are ready.
   *
   * @param options `url` of the worker module, `dim` (P), `count`, `init`
   *   (the message and transferables of worker k), `describe` (worker k in
   *   a failure message, e.g. "shard 1 (rows 10 … 19 of data.rows)") and
   *   `prestarted` (workers of `url` started earlier, taken first).
   * @returns The pool.
   * @throws {Error} "`describe(k)` failed to start: …" when a worker fails;
   *   every worker started is stopped.
   */
  static async start<T>(options: {
    url: URL;
    dim: number;
    count: number;
    init: (k: number, pool: PassPoolShared) => { message: T; transfer?: Transferable[] };
    describe: (k: number) => string;
    /** A worker of `url` started before (module loaded ahead), if any; else one is started. */
    prestarted?: () => Worker | undefined;
  }): Promise<PassPool> {
    const { dim: P, count } = options;
    const control = new PassControl(count);
    const io = new Float64Array(new SharedArrayBuffer(8 * (P + ARGS + count * (1 + P + P * P))));
    const workers: Worker[] = [];
    try {
      await Promise.all(
        Array.from({ length: count }, (_, k) => {
          const w = options.prestarted?.() ?? new Worker(options.url, { type: "module" });
          workers.push(w);
          return new Promise<void>((resolve, reject) => {
            w.onmessage = (e: MessageEvent<{ ready?: true; error?: string }>) => {
              if (e.data?.error !== undefined) {
                reject(new Error(`${options.describe(k)} failed to start: ${e.data.error}`));
              } else resolve();
            };
            w.onerror = (e) => {
              e.preventDefault();
              reject(new Error(`${options.describe(k)} failed to start: ${e.message}`));
            };
            const pool: PassPoolShared = {
              control: control.shared,
              io: io.buffer as SharedArrayBuffer,
              dim: P,
              slot: k,
            };
            const { message, transfer } = options.init(k, pool);
            w.postMessage({ ...message, pool }, transfer ?? []);
          });
        }),
      );
    } catch (e) {
      for (const w of workers) w.terminate();
      throw e;
    }
    return new PassPool(control, io, workers, P);
  }

  /**
   * Post a command with θ (and PASS_CV's arguments) without waiting.
   *
   * @param command A PASS_* code.
   * @param theta θ (length P).
   * @param options `argument` (an integer: PASS_GATHER's count) and `args` (PASS_CV's three numbers).
   */
  post(
    command: number,
    theta: Float64Array | null,
    options: { argument?: number; args?: readonly number[] } = {},
  ): void {
    // The workers may still be answering an earlier command its caller never
    // waited for (it threw between post and wait): let them finish first, or
    // θ would change under them and their answers count for this command.
    this.settle();
    if (theta !== null) this.#io.set(theta, 0);
    if (options.args !== undefined) this.#io.set(options.args, this.dim);
    this.#control.post(command, options.argument ?? 0);
    this.#pending = true;
  }

  /**
   * Wait until every worker has answered.
   *
   * @throws {Error} With the first failing worker's message.
   */
  wait(): void {
    this.#pending = false;
    this.#control.wait();
  }

  /**
   * Wait for a command posted and not waited for, dropping its result and
   * any worker's failure: for a caller whose own work between post and wait
   * threw, before it rethrows (the workers are then idle and write nothing
   * more). Nothing to do when no command is pending.
   */
  settle(): void {
    if (!this.#pending) return;
    try {
      this.wait();
    } catch {
      // the caller's own error is the one reported
    }
  }

  /**
   * Post and wait.
   *
   * @param command A PASS_* code.
   * @param theta θ, or null (PASS_GATHER).
   * @param options As for {@link post}.
   */
  run(
    command: number,
    theta: Float64Array | null,
    options: { argument?: number; args?: readonly number[] } = {},
  ): void {
    this.post(command, theta, options);
    this.wait();
  }

  /**
   * `ll` plus the slots' ℓ, and the slots' ∇ℓ added to `grad` (when given),
   * in slot order.
   *
   * @param ll What the sum starts from (the caller's own block, or 0).
   * @param grad Added to in place (length P).
   * @returns The sum.
   */
  addLlGrad(ll: number, grad?: Float64Array): number {
    const P = this.dim, io = this.#io, slot = 1 + P + P * P;
    for (let k = 0; k < this.numWorkers; k++) {
      const base = P + ARGS + k * slot;
      ll += io[base];
      if (grad) { for (let j = 0; j < P; j++) grad[j] += io[base + 1 + j]; }
    }
    return ll;
  }

  /**
   * The slots' ∇²ℓ added to `out` (P × P) in slot order.
   *
   * @param out Added to in place.
   */
  addHess(out: Float64Array): void {
    const P = this.dim, io = this.#io, slot = 1 + P + P * P;
    for (let k = 0; k < this.numWorkers; k++) {
      const base = P + ARGS + k * slot + 1 + P;
      for (let q = 0; q < P * P; q++) out[q] += io[base + q];
    }
  }

  /**
   * Stop the workers (they finish a pending command, leave their loops, then
   * are terminated): after it returns no worker writes into shared memory.
   */
  close(): void {
    this.settle();
    this.#control.quit();
    for (const w of this.#workers) w.terminate();
  }

  /**
   * Stop serving passes and keep the first `count` workers for their next
   * role: they leave their loops with `next` as QUIT's argument (which their
   * entry reads, see {@link poolWorker}); the others are terminated as by
   * {@link close}. After it returns no worker writes into the pool's memory.
   * The kept workers are the caller's: it sets their handlers and
   * terminates them.
   *
   * @param count Workers to keep (at most {@link numWorkers}).
   * @param next The kept workers' next role (a code their entry knows, not 0).
   * @returns The kept workers, in slot order.
   */
  handOver(count: number, next: number): Worker[] {
    this.settle();
    this.#control.quit(next);
    const kept = this.#workers.slice(0, Math.max(0, count));
    for (const w of this.#workers.slice(kept.length)) w.terminate();
    return kept;
  }
}

/** @internal How a worker answers the pool's commands over the rows it holds. */
export interface RowPasses {
  /**
   * ℓ, ∇ℓ and ∇²ℓ over the worker's rows at θ, as asked; gradients into
   * `grad` (P), Hessians into `hess` (P × P).
   *
   * @returns Σℓ (0 when not asked).
   */
  pass(
    theta: Float64Array,
    want: { ll: boolean; grad: boolean; hess: boolean },
    grad: Float64Array,
    hess: Float64Array,
  ): number;
  /**
   * PASS_ALL_SAMPLED: Σℓ over the worker's rows, Σ∇ℓ into `grad`, and Σ∇²ℓ
   * over those of its rows {@link sampledRowOf} chooses into `hess` (not
   * scaled).
   */
  passSampledHessian?(
    theta: Float64Array,
    args: { stride: number; seed: number },
    grad: Float64Array,
    hess: Float64Array,
  ): number;
  /** PASS_CV: fill the worker's cache rows at θ* (none when `cacheRows` is 0); returns S, A into `grad`. */
  centre?(
    theta: Float64Array,
    args: { cacheRows: number; cacheOffset: number; chunkRows: number },
    grad: Float64Array,
  ): number;
  /** PASS_GATHER: copy the listed rows it holds into the shared gather buffers. */
  gather?(count: number): void;
  /**
   * PASS_ROWS: Σℓ with Σ∇ℓ into `grad` (`what` 1) or Σ∇²ℓ into `hess`
   * (`what` 2) over the rows it holds of the increasing list of data rows at
   * byte `offset` of the shared memory (`count` indices).
   */
  rows?(
    theta: Float64Array,
    args: { offset: number; count: number; what: number },
    grad: Float64Array,
    hess: Float64Array,
  ): number;
  /**
   * PASS_SAMPLE (the first worker only): continue the generator whose state
   * is at byte `offset` of the shared memory with `Rng.sortedSample(n, m)`,
   * the m indices written right after the state, then the generator's new
   * state over the old one.
   */
  sample?(args: { offset: number; n: number; m: number }): void;
}

/**
 * The worker side: answer the pool's commands with `passes` until the pool
 * closes (say ready first). A request that throws is reported to the caller.
 *
 * @param pool The pool's part of the start message.
 * @param passes This worker's rows.
 * @param ready Called once the worker waits for requests.
 * @returns What the pool asked the worker to do next (0: close; see {@link PassPool.handOver}).
 */
export function servePool(pool: PassPoolShared, passes: RowPasses, ready: () => void): number {
  const P = pool.dim, io = new Float64Array(pool.io);
  const base = P + ARGS + pool.slot * (1 + P + P * P);
  const theta = new Float64Array(P), grad = new Float64Array(P), hess = new Float64Array(P * P);
  return servePasses(pool.control, pool.slot, (command, argument) => {
    if (command === PASS_GATHER) {
      if (passes.gather === undefined) throw new Error("this worker gathers no rows");
      passes.gather(argument);
      return;
    }
    if (command === PASS_SAMPLE) {
      if (pool.slot !== 0) return;
      if (passes.sample === undefined) throw new Error("this worker draws no subsets");
      passes.sample({ offset: io[P], n: io[P + 1], m: io[P + 2] });
      return;
    }
    theta.set(io.subarray(0, P));
    if (command === PASS_CV) {
      if (passes.centre === undefined) {
        throw new Error("this worker keeps no control-variate cache");
      }
      io[base] = passes.centre(theta, {
        cacheRows: io[P],
        cacheOffset: io[P + 1],
        chunkRows: io[P + 2],
      }, grad);
      io.set(grad, base + 1);
      return;
    }
    if (command === PASS_ROWS) {
      if (passes.rows === undefined) throw new Error("this worker sums no listed rows");
      const what = io[P + 2];
      io[base] = passes.rows(theta, { offset: io[P], count: io[P + 1], what }, grad, hess);
      if (what === 1) io.set(grad, base + 1);
      else io.set(hess, base + 1 + P);
      return;
    }
    if (command === PASS_ALL_SAMPLED) {
      if (passes.passSampledHessian === undefined) {
        throw new Error("this worker samples no Hessian rows");
      }
      io[base] = passes.passSampledHessian(theta, { stride: io[P], seed: io[P + 1] }, grad, hess);
      io.set(grad, base + 1);
      io.set(hess, base + 1 + P);
      return;
    }
    if (command < PASS_LL || command > PASS_ALL) throw new Error(`unknown command ${command}`);
    const want = {
      ll: command !== PASS_HESS,
      grad: command === PASS_GRAD || command === PASS_ALL,
      hess: command === PASS_HESS || command === PASS_ALL,
    };
    io[base] = passes.pass(theta, want, grad, hess);
    if (want.grad) io.set(grad, base + 1);
    if (want.hess) io.set(hess, base + 1 + P);
  }, ready);
}

/**
 * A worker's entry: build its rows from the start message, say ready (or
 * report the error and close), serve, close.
 *
 * @param build Builds the worker's {@link RowPasses} from its start message.
 * @param then Called instead of closing when the pool hands the worker
 *   over ({@link PassPool.handOver}) with its `next` code; without it the
 *   worker closes.
 * @returns The `onmessage` handler to install.
 */
export function poolWorker<T>(
  build: (start: PassWorkerStart<T>) => RowPasses,
  then?: (next: number) => void,
): (event: MessageEvent<PassWorkerStart<T>>) => void {
  // This module is in the library's static graph, type-checked without the
  // worker lib: the worker's scope is named by the two members it needs.
  const scope = globalThis as unknown as { postMessage(message: unknown): void; close(): void };
  return (event) => {
    const start = event.data;
    let passes: RowPasses;
    try {
      passes = build(start);
    } catch (e) {
      scope.postMessage({ error: e instanceof Error ? e.message : String(e) });
      scope.close();
      return;
    }
    const next = servePool(start.pool, passes, () => scope.postMessage({ ready: true }));
    if (next !== 0 && then !== undefined) then(next);
    else scope.close();
  };
}
