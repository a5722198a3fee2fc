/**
 * The worker behind {@link import("./sharded_glm.ts").ShardedGlmModel}: one
 * contiguous shard of rows in its own WebAssembly instance, answering
 * requests posted through a {@link PassControl} block.
 *
 * ```
 *  kind "memory"   the shard's rows are loaded into the instance once
 *  kind "stream"   every pass reads the shard's rows from the row store in
 *                  blocks of chunkRows into one staging buffer (memory does
 *                  not grow with the shard)
 *  io (Float64Array over a SharedArrayBuffer), P = length of θ
 *   [0, P)                  θ
 *   [P + k·(1+P+P²), …)     shard k's slot: ℓ, ∇ℓ (P), ∇²ℓ (P²)
 *  gather (memory kind): idx (Int32, capacity) in, x (capacity × d f64),
 *   y and aux (capacity f64 each) out — each shard writes the positions whose
 *   rows it holds
 *  aux   a per-row offset or number of trials, when the rows carry one: in
 *        the kernels' own column (memory kind), or set block by block (stream)
 *  every block's responses are checked against the family's domain first
 * ```
 *
 * Only a worker loads this module (it sets the worker's `onmessage`); the
 * message types and command codes are in ./_shard_protocol.ts.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { GlmKernels } from "../core/glm_kernels.ts";
import { adoptWorkerCore, loadCore } from "../core/load.ts";
import { dataViews } from "../core/row_buffer.ts";
import type { GlmData } from "../data/dataset.ts";
import { openRowStore, type RowStore, StagedRows } from "../data/row_store.ts";
import { servePasses } from "./_pass_control.ts";
import { checkGlmResponse } from "./glm.ts";
import {
  SHARD_ALL,
  SHARD_GATHER,
  SHARD_GRAD,
  SHARD_HESS,
  SHARD_LL,
  type ShardWorkerInit,
} from "./_shard_protocol.ts";

self.onmessage = (event: MessageEvent<ShardWorkerInit>) => {
  const init = event.data;
  let serve: () => void;
  try {
    serve = start(init);
  } catch (e) {
    self.postMessage({ error: e instanceof Error ? e.message : String(e) });
    self.close();
    return;
  }
  serve();
  self.close();
};

function start(init: ShardWorkerInit): () => void {
  const d = init.numCols, P = init.numParams, n = init.count;
  adoptWorkerCore(init.backend, false, init.core);
  const arena = loadCore({ backend: init.backend });
  const layout = {
    numCols: d,
    storage: init.storage,
    columnNames: Array.from({ length: d }, (_, j) => `x${j}`),
  };
  const staged = new StagedRows(arena, layout);
  const hasAux = init.aux !== null;
  /** The responses of rows [first, first + y.length) of the data set, checked. */
  const check = (y: Float64Array, aux: Float64Array | undefined, first: number) =>
    checkGlmResponse(init.family, y, init.aux === "trials" ? aux : undefined, first);
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
  const kernels = new GlmKernels(arena, { ...init.kernel, dim: d, aux });
  const io = new Float64Array(init.io);
  const base = P + init.slot * (1 + P + P * P);
  const theta = new Float64Array(P), grad = new Float64Array(P), hess = new Float64Array(P * P);
  const gradAcc = new Float64Array(P), hessAcc = new Float64Array(P * P);
  const gIdx = new Int32Array(init.gather.idx);
  const gx = new Float64Array(init.gather.x), gy = new Float64Array(init.gather.y);
  const gAux = new Float64Array(init.gather.aux);

  /** ℓ, ∇ℓ and ∇²ℓ over one block of rows, added to the accumulators. */
  const block = (rows: GlmData, wantLl: boolean, wantGrad: boolean, wantHess: boolean) => {
    let ll = 0;
    if (wantLl || wantGrad) {
      ll = kernels.logLikelihood(rows, theta, wantGrad ? { grad } : {});
      if (wantGrad) { for (let j = 0; j < P; j++) gradAcc[j] += grad[j]; }
    }
    if (wantHess) {
      kernels.hessian(rows, theta, { out: hess });
      for (let q = 0; q < P * P; q++) hessAcc[q] += hess[q];
    }
    return ll;
  };

  const pass = (wantLl: boolean, wantGrad: boolean, wantHess: boolean) => {
    theta.set(io.subarray(0, P));
    gradAcc.fill(0);
    hessAcc.fill(0);
    let ll = 0;
    if (data !== null) ll = block(data, wantLl, wantGrad, wantHess);
    else {
      const s = store as RowStore, c0 = init.chunkRows;
      for (let r = 0; r < n; r += c0) {
        const c = Math.min(c0, n - r);
        const v = staged.views(c);
        const a = aux?.subarray(0, c);
        s.readRange(init.start + r, c, v.x, v.y, a);
        check(v.y, a, init.start + r);
        if (a) kernels.setAux(a);
        ll += block(staged.data(c), wantLl, wantGrad, wantHess);
      }
    }
    io[base] = ll;
    if (wantGrad) io.set(gradAcc, base + 1);
    if (wantHess) io.set(hessAcc, base + 1 + P);
  };

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

  return () =>
    servePasses(init.control, init.slot, (command, argument) => {
      if (command === SHARD_LL) pass(true, false, false);
      else if (command === SHARD_GRAD) pass(true, true, false);
      else if (command === SHARD_HESS) pass(false, false, true);
      else if (command === SHARD_ALL) pass(true, true, true);
      else if (command === SHARD_GATHER) gatherRows(argument);
      else throw new Error(`unknown command ${command}`);
    }, () => self.postMessage({ ready: true }));
}
