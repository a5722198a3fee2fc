/**
 * The worker behind {@link import("./sharded_glm.ts").ShardedGlmModel}: one
 * contiguous shard of rows in its own WebAssembly instance, answering the
 * pass pool's commands (./_pass_pool.ts: ℓ, ∇ℓ, ∇²ℓ, row gathers).
 *
 * ```
 *  kind "memory"   the shard's rows are loaded into the instance once
 *  kind "stream"   every pass reads the shard's rows from the row store in
 *                  blocks of chunkRows into one staging buffer (memory does
 *                  not grow with the shard)
 *  gather (memory kind): idx (Int32, capacity) in, x (capacity × d f64),
 *   y and aux (capacity f64 each) out — each shard writes the positions whose
 *   rows it holds
 *  aux   a per-row offset or number of trials, when the rows carry one: in
 *        the kernels' own column (memory kind), or set block by block (stream)
 *  every block's responses are checked against the family's domain first
 *  user  a family written in AssemblyScript: the calling thread's compiled
 *        module, instantiated over this instance's memory with its static
 *        block reserved first (models/worker_model.ts); X staged as f64
 * ```
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * start message's type is in ./_shard_protocol.ts.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { GlmKernels } from "../core/glm_kernels.ts";
import { adoptWorkerCore, loadCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
import { openRowStore, type RowStore, StagedRows } from "../data/row_store.ts";
import { checkGlmResponse } from "./glm.ts";
import { workerUserFamily } from "./worker_model.ts";
import { type PassWorkerStart, poolWorker, type RowPasses, sampledRowOf } from "./_pass_pool.ts";
import type { ShardWorkerInit } from "./_shard_protocol.ts";

self.onmessage = poolWorker<ShardWorkerInit>(start);

/** What a pass calls on a block of rows: a built-in family's kernels or a user family's. */
interface _BlockKernels {
  logLikelihood(data: GlmData, theta: Float64Array, options: { grad?: Float64Array }): number;
  hessian(data: GlmData, theta: Float64Array, options: { out: Float64Array }): unknown;
}

function start(init: PassWorkerStart<ShardWorkerInit>): RowPasses {
  const d = init.numCols, P = init.pool.dim, n = init.count;
  adoptWorkerCore(init.backend, false, init.core);
  const arena = loadCore({ backend: init.backend });
  // A user family's static block is this fresh arena's first block, as in the
  // arena it was compiled over; so it comes before any other allocation.
  const user = init.user === undefined ? null : workerUserFamily(arena, init.user);
  const layout = {
    numCols: d,
    storage: user === null ? init.storage : "f64" as const,
    columnNames: Array.from({ length: d }, (_, j) => `x${j}`),
  };
  const staged = new StagedRows(arena, layout);
  const hasAux = init.aux !== null;
  const family = init.family;
  /** The responses of rows [first, first + y.length) of the data set, checked. */
  const check = (y: Float64Array, aux: Float64Array | undefined, first: number) => {
    if (family !== null) {
      checkGlmResponse(family, y, init.aux === "trials" ? aux : undefined, first);
    }
  };
  let store: RowStore | null = null;
  let data: GlmData | null = null;
  let aux: Float64Array | undefined;
  if (init.kind === "memory") {
    const v = staged.views(n);
    aux = hasAux ? new Float64Array(n) : undefined;
    if (init.rows) {
      v.x.set(init.rows.x);
      v.y.set(init.rows.y);
      if (aux) aux.set(init.rows.aux as Float64Array);
    } else {
      const s = openRowStore(init.storePath as string, { checkSource: false });
      try {
        s.readRange(init.start, n, v.x, v.y, aux);
      } finally {
        s.close();
      }
    }
    check(v.y, aux, init.start);
    data = staged.data(n);
  } else {
    store = openRowStore(init.storePath as string, { checkSource: false });
    staged.views(Math.min(init.chunkRows, n));
    aux = hasAux ? new Float64Array(Math.min(init.chunkRows, n)) : undefined;
  }
  const glmKernels = init.kernel === null
    ? null
    : new GlmKernels(arena, { ...init.kernel, dim: d, aux });
  const kernels: _BlockKernels = user ?? (glmKernels as GlmKernels);
  const grad = new Float64Array(P), hess = new Float64Array(P * P);
  const gIdx = new Int32Array(init.gather.idx);
  const gx = new Float64Array(init.gather.x), gy = new Float64Array(init.gather.y);
  const gAux = new Float64Array(init.gather.aux);

  /** ℓ, ∇ℓ and ∇²ℓ over one block of rows, added to the accumulators. */
  const block = (
    rows: GlmData,
    theta: Float64Array,
    want: { ll: boolean; grad: boolean; hess: boolean },
    gradAcc: Float64Array,
    hessAcc: Float64Array,
  ) => {
    let ll = 0;
    if (want.ll || want.grad) {
      ll = kernels.logLikelihood(rows, theta, want.grad ? { grad } : {});
      if (want.grad) { for (let j = 0; j < P; j++) gradAcc[j] += grad[j]; }
    }
    if (want.hess) {
      kernels.hessian(rows, theta, { out: hess });
      for (let q = 0; q < P * P; q++) hessAcc[q] += hess[q];
    }
    return ll;
  };

  // The rows PASS_ALL_SAMPLED takes the Hessian of, gathered from a block
  // (and their aux values); allocated at its first pass.
  const sampledRows = new StagedRows(arena, layout);
  let sampledAux: Float64Array | undefined;

  /**
   * ∇²ℓ of the rows of `rows` (the data set's rows first … first +
   * rows.numRows − 1) that {@link sampledRowOf} chooses, added to `hessAcc`.
   */
  const sampledHessian = (
    rows: GlmData,
    blockAux: Float64Array | undefined,
    first: number,
    theta: Float64Array,
    sub: { stride: number; seed: number },
    hessAcc: Float64Array,
  ) => {
    const c = rows.numRows, S = sub.stride, last = first + c - 1;
    const src = dataViews(rows), dst = sampledRows.views(Math.ceil(c / S) + 1);
    let k = 0;
    for (let g = Math.floor(first / S); g <= Math.floor(last / S); g++) {
      const r = sampledRowOf(g, S, sub.seed);
      if (r < first || r > last) continue;
      const i = r - first;
      dst.x.set(src.x.subarray(i * d, (i + 1) * d), k * d);
      dst.y[k] = src.y[i];
      if (blockAux && sampledAux) sampledAux[k] = blockAux[i];
      k++;
    }
    if (k === 0) return;
    if (sampledAux) glmKernels?.setAux(sampledAux.subarray(0, k));
    kernels.hessian(sampledRows.data(k), theta, { out: hess });
    for (let q = 0; q < P * P; q++) hessAcc[q] += hess[q];
  };

  /** ℓ and ∇ℓ over every row, ∇²ℓ over all or (`sub`) the sampled ones. */
  const sweep = (
    theta: Float64Array,
    want: { ll: boolean; grad: boolean; hess: boolean },
    gradAcc: Float64Array,
    hessAcc: Float64Array,
    sub: { stride: number; seed: number } | null,
  ) => {
    gradAcc.fill(0);
    hessAcc.fill(0);
    const each = sub === null ? want : { ...want, hess: false };
    if (sub !== null) {
      // Reserved before any block's views are taken (it may grow the memory).
      const c0 = data !== null ? n : Math.min(init.chunkRows, n);
      const cap = Math.ceil(c0 / sub.stride) + 1;
      sampledRows.views(cap);
      if (hasAux && (sampledAux?.length ?? 0) < cap) sampledAux = new Float64Array(cap);
    }
    let ll = 0;
    if (data !== null) {
      ll = block(data, theta, each, gradAcc, hessAcc);
      if (sub !== null) sampledHessian(data, aux, init.start, theta, sub, hessAcc);
      if (sub !== null && aux) glmKernels?.setAux(aux);
    } else {
      const s = store as RowStore, c0 = init.chunkRows;
      for (let r = 0; r < n; r += c0) {
        const c = Math.min(c0, n - r);
        const v = staged.views(c);
        const a = aux?.subarray(0, c);
        s.readRange(init.start + r, c, v.x, v.y, a);
        check(v.y, a, init.start + r);
        if (a) glmKernels?.setAux(a);
        const rows = staged.data(c);
        ll += block(rows, theta, each, gradAcc, hessAcc);
        if (sub !== null) sampledHessian(rows, a, init.start + r, theta, sub, hessAcc);
      }
    }
    return ll;
  };

  const pass: RowPasses["pass"] = (theta, want, gradAcc, hessAcc) =>
    sweep(theta, want, gradAcc, hessAcc, null);
  const passSampledHessian: RowPasses["passSampledHessian"] = (theta, sub, gradAcc, hessAcc) =>
    sweep(theta, { ll: true, grad: true, hess: true }, gradAcc, hessAcc, sub);

  const gatherRows = (count: number) => {
    const v = dataViews(data as GlmData), lo = init.start, hi = init.start + n;
    for (let k = 0; k < count; k++) {
      const r = gIdx[k];
      if (r < lo || r >= hi) continue;
      const src = (r - lo) * d, dst = k * d;
      for (let j = 0; j < d; j++) gx[dst + j] = v.x[src + j];
      gy[k] = v.y[r - lo];
      if (aux) gAux[k] = aux[r - lo];
    }
  };

  return { pass, passSampledHessian, gather: gatherRows };
}
