/**
 * A shared control block through which a calling thread hands synchronous
 * requests (full-data passes, row gathers) to a fixed set of workers and
 * blocks until all have answered — a DataModel's passes must return values,
 * so the caller waits with `Atomics.wait` instead of awaiting messages.
 *
 * ```
 *  ctrl (Int32Array over a SharedArrayBuffer)
 *   [0] generation  the caller bumps it and notifies: "a request is posted"
 *   [1] done        each worker adds 1 (and notifies) when it has answered
 *   [2] command     what is asked (the user's codes; QUIT stops the workers)
 *   [3] argument    one integer that goes with the command
 *   [4] failed      0, or 1 + the slot of the first worker whose answer threw
 *   [5] error bytes length of that worker's message in `error`
 *  error (Uint8Array over a SharedArrayBuffer): UTF-8 message of the failure
 * ```
 *
 * Data (θ in, partial sums out) travel in buffers the user shares beside it.
 *
 * @module
 */

/** The command that stops the workers' loops. */
export const QUIT = -1;
const ERROR_BYTES = 2048;

/** The cloneable part of a control block, posted to each worker. */
export interface PassControlShared {
  /** The control integers. */
  ctrl: SharedArrayBuffer;
  /** The failure message bytes. */
  error: SharedArrayBuffer;
}

/** The calling side of a control block over `numWorkers` workers. */
export class PassControl {
  /** What the workers are given (post it in their start message). */
  readonly shared: PassControlShared;
  /** Number of workers that answer each request. */
  readonly numWorkers: number;
  #ctrl: Int32Array;
  #error: Uint8Array;

  /**
   * Allocate the block.
   *
   * @param numWorkers Workers that answer each request.
   */
  constructor(numWorkers: number) {
    this.numWorkers = numWorkers;
    this.shared = { ctrl: new SharedArrayBuffer(32), error: new SharedArrayBuffer(ERROR_BYTES) };
    this.#ctrl = new Int32Array(this.shared.ctrl);
    this.#error = new Uint8Array(this.shared.error);
  }

  /**
   * Post a request to every worker and wait until all have answered.
   *
   * @param command A code the workers understand.
   * @param argument An integer that goes with it.
   * @throws {Error} With the first failing worker's message.
   */
  run(command: number, argument = 0): void {
    this.post(command, argument);
    this.wait();
  }

  /**
   * Post a request without waiting (the caller may work meanwhile, then
   * {@link wait}).
   *
   * @param command A code the workers understand.
   * @param argument An integer that goes with it.
   */
  post(command: number, argument = 0): void {
    const ctrl = this.#ctrl;
    Atomics.store(ctrl, 1, 0);
    Atomics.store(ctrl, 2, command);
    Atomics.store(ctrl, 3, argument);
    Atomics.add(ctrl, 0, 1);
    Atomics.notify(ctrl, 0);
  }

  /**
   * Wait until every worker has answered the posted request.
   *
   * @throws {Error} With the first failing worker's message.
   */
  wait(): void {
    const ctrl = this.#ctrl, W = this.numWorkers;
    let done: number;
    while ((done = Atomics.load(ctrl, 1)) < W) Atomics.wait(ctrl, 1, done);
    const failed = Atomics.load(ctrl, 4);
    if (failed !== 0) {
      const len = Atomics.load(ctrl, 5);
      const message = new TextDecoder().decode(this.#error.slice(0, len));
      Atomics.store(ctrl, 4, 0);
      throw new Error(`worker ${failed - 1} failed: ${message}`);
    }
  }

  /**
   * Tell the workers to leave their loops.
   *
   * @param next What the workers do then, passed to them as QUIT's argument
   *   (0: close themselves; their entry may give other codes a meaning, e.g.
   *   take another role).
   */
  quit(next = 0): void {
    const ctrl = this.#ctrl;
    Atomics.store(ctrl, 2, QUIT);
    Atomics.store(ctrl, 3, next);
    Atomics.add(ctrl, 0, 1);
    Atomics.notify(ctrl, 0);
  }
}

/**
 * The worker side: say "ready", then answer each request with `handle`
 * until QUIT. An exception thrown by `handle` is reported to the caller
 * (the first one's message) instead of ending the loop.
 *
 * @param shared The block's buffers.
 * @param slot This worker's number (named in failure messages).
 * @param handle Answers one request.
 * @param ready Called once the worker is waiting for requests.
 * @returns QUIT's argument (what the caller asked the worker to do next; 0: close).
 */
export function servePasses(
  shared: PassControlShared,
  slot: number,
  handle: (command: number, argument: number) => void,
  ready: () => void,
): number {
  const ctrl = new Int32Array(shared.ctrl), error = new Uint8Array(shared.error);
  // Read the generation before saying ready: a request posted right after
  // "ready" must find the worker waiting on the old value, not the new one.
  let generation = Atomics.load(ctrl, 0);
  ready();
  for (;;) {
    Atomics.wait(ctrl, 0, generation);
    generation = Atomics.load(ctrl, 0);
    const command = Atomics.load(ctrl, 2);
    if (command === QUIT) return Atomics.load(ctrl, 3);
    try {
      handle(command, Atomics.load(ctrl, 3));
    } catch (e) {
      if (Atomics.compareExchange(ctrl, 4, 0, slot + 1) === 0) {
        const text = new TextEncoder().encode(e instanceof Error ? e.message : String(e));
        const len = Math.min(text.length, error.length);
        error.set(text.subarray(0, len));
        Atomics.store(ctrl, 5, len);
      }
    }
    Atomics.add(ctrl, 1, 1);
    Atomics.notify(ctrl, 1);
  }
}
