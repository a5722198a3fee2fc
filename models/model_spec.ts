/**
 * Serialisable descriptions of models, so that a worker can rebuild the
 * model a run was started with over the same shared memory: the data are
 * never copied, only their offsets, sizes and the model's options are sent.
 *
 * ```
 *  main thread                                  worker
 *  GlmModel ──modelSpecOf──► { kind: "glm",     ──postMessage──► modelFromSpec(spec, attached arena)
 *    data in a shared        memory (shared),                     = GlmModel over the same rows,
 *    WebAssembly.Memory      backend, offsets,                      scratch in the worker's region
 *                            options }
 * ```
 *
 * Models that cannot be described this way (user closures, models over a
 * non-shared memory, TypeScript-only models) get a sentence saying why, and
 * callers run them in the calling thread.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { type CoreBackend, workerCore } from "../core/load.ts";
import type { GlmData, Storage } from "../data/dataset.ts";
import { GlmModel, type GlmOptions } from "./glm.ts";
import { withCheckedResponses } from "./glm_options.ts";
import type { Model } from "./model.ts";
import { Prior } from "./prior_build.ts";
import type { ResolvedPrior } from "./priors.ts";
import type { UserGlmModel } from "./user_glm.ts";
import { withPrior } from "./with_prior.ts";

/** A {@link GlmModel} as data: where its rows are in a shared memory, and its options. */
export interface GlmModelSpec {
  /** Discriminant. */
  readonly kind: "glm";
  /** The shared memory holding X and y. */
  readonly memory: WebAssembly.Memory;
  /** The kernels the model's arena uses (a worker binds the same for identical results). */
  readonly backend: CoreBackend;
  /**
   * The compiled core for `backend` over a shared memory (the calling
   * thread's; a build that embeds none needs it): a worker registers it with
   * `adoptWorkerCore` before attaching, and then neither decodes nor
   * compiles its own (see `workerCore`).
   */
  readonly core?: WebAssembly.Module;
  /** Offsets and sizes of the data in `memory`. */
  readonly data: {
    readonly x: number;
    readonly y: number;
    readonly numRows: number;
    readonly numCols: number;
    readonly storage: Storage;
    readonly columnNames: readonly string[];
  };
  /** The model's options (family, σ, prior). */
  readonly options: GlmOptions;
  /** The prior put on the model by `withPrior`, per parameter (absent: the options' own prior). */
  readonly prior?: readonly ResolvedPrior[];
}

/**
 * A {@link UserGlmModel} as data: its rows as a {@link GlmModelSpec}'s, the
 * compiled family's bytes and the address of its static block, so a worker
 * instantiates the same family over the same shared memory
 * (`UserFamilyKernels.attach`).
 */
export interface UserGlmModelSpec {
  /** Discriminant. */
  readonly kind: "user-glm";
  /** The shared memory holding X, y and the family's static block. */
  readonly memory: WebAssembly.Memory;
  /** The core's kernels of the arena (a worker attaches its region with them). */
  readonly backend: CoreBackend;
  /** The compiled core for `backend`, when the build embeds none (as {@link GlmModelSpec.core}). */
  readonly core?: WebAssembly.Module;
  /** Offsets and sizes of the data in `memory` (f64 X). */
  readonly data: GlmModelSpec["data"];
  /** The compiled family (its memory import declared shared). */
  readonly bytes: Uint8Array;
  /** Address of the family's static block in `memory`. */
  readonly staticBlock: number;
  /** Prior sd of every coefficient. */
  readonly priorScale: number;
  /** The prior put on the model by `withPrior`, per parameter (absent: the model's own). */
  readonly prior?: readonly ResolvedPrior[];
}

/** Every model kind a worker can rebuild. */
export type ModelSpec = GlmModelSpec | UserGlmModelSpec;

/**
 * The spec of `model`, or a sentence saying why it has none.
 *
 * @param model Any model.
 * @returns `{ spec }` for a GlmModel whose data live in a shared memory, else `{ reason }`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * import { modelSpecOf } from "./model_spec.ts";
 * const arena = loadCore({ backend: "reference", shared: true });
 * const data = glmDataFromArrays(arena, [1, 0.3, 1, -1.2], [1, 0], { numCols: 2 });
 * const r = modelSpecOf(new GlmModel(data, { family: "logistic" }));
 * assert.equal("spec" in r && r.spec.data.numRows, 2);
 * ```
 *
 * References: docs/architecture.md, "Threads" and "Samplers" (chains in workers over one shared copy).
 */
export function modelSpecOf(model: Model): { spec: ModelSpec } | { reason: string } {
  // Told by its mark: importing user_glm.ts would load the family compiler's module here.
  if ((model as { isUserGlm?: unknown }).isUserGlm === true) {
    return _userSpecOf(model as UserGlmModel);
  }
  if (!(model instanceof GlmModel)) {
    return {
      reason: `only GlmModel and UserGlmModel can be rebuilt in a worker; this model (${
        model.constructor?.name ?? typeof model
      }) runs in the calling thread`,
    };
  }
  const arena = model.arena;
  if (!arena.shared) {
    return {
      reason:
        "the model's data are not in a shared memory (load them with loadCore({ shared: true })), so chains run in the calling thread",
    };
  }
  return { spec: { kind: "glm", ..._commonSpec(model), options: model.options } };
}

function _userSpecOf(model: UserGlmModel): { spec: UserGlmModelSpec } | { reason: string } {
  const arena = model.arena;
  if (!arena.shared) {
    return {
      reason:
        "the model's data are not in a shared memory (load them with loadCore({ shared: true })), so its passes run in the calling thread",
    };
  }
  return {
    spec: {
      kind: "user-glm",
      ..._commonSpec(model),
      bytes: model.kernels.bytes,
      staticBlock: model.kernels.staticBlock,
      priorScale: model.priorScale,
    },
  };
}

/**
 * What every spec holds: the shared memory, the core a worker adopts, the
 * rows, and a prior put on by `withPrior` (which replaces the model's own;
 * the worker puts it back).
 */
function _commonSpec(model: GlmModel | UserGlmModel) {
  const arena = model.arena, core = workerCore(arena.backend, true);
  const prior = _priorOf(model);
  return {
    memory: arena.memory,
    backend: arena.backend,
    ...(core === undefined ? {} : { core }),
    data: plainGlmData(model.data),
    ...(prior === null ? {} : { prior: prior.parameters }),
  };
}

/**
 * The cloneable part of a GlmData (without its arena), as a spec holds it.
 *
 * @param d The rows.
 * @returns Their offsets, sizes, storage and column names.
 */
export function plainGlmData(d: GlmData): ModelSpec["data"] {
  return {
    x: d.x,
    y: d.y,
    numRows: d.numRows,
    numCols: d.numCols,
    storage: d.storage,
    columnNames: Array.from(d.columnNames),
  };
}

function _priorOf(model: Model): Prior | null {
  const p = (model as Model & { prior?: unknown }).prior;
  return p instanceof Prior ? p : null;
}

/**
 * Rebuild a model from its spec over `arena` (an arena attached to the
 * spec's memory; the model's scratch buffers are allocated in it).
 *
 * @param spec A spec from {@link modelSpecOf}.
 * @param arena An arena over `spec.memory` (see `attachRegion`).
 * @returns The model, reading the same rows.
 * @throws {RangeError} If `arena` is neither the spec's memory's owner nor over a shared memory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCore } from "../core/load.ts";
 * import { attachRegion, reserveRegion } from "../core/shared_region.ts";
 * import { glmDataFromArrays } from "../data/dataset.ts";
 * import { GlmModel } from "./glm.ts";
 * import { modelFromSpec, modelSpecOf } from "./model_spec.ts";
 * const arena = loadCore({ backend: "reference", shared: true });
 * const data = glmDataFromArrays(arena, [1, 0.3, 1, -1.2], [1, 0], { numCols: 2 });
 * const model = new GlmModel(data, { family: "logistic" });
 * const r = modelSpecOf(model);
 * if (!("spec" in r)) throw new Error(r.reason);
 * const copy = modelFromSpec(r.spec, attachRegion(reserveRegion(arena, 1 << 16)));
 * const theta = new Float64Array([0.1, 0.2]);
 * assert.equal(copy.logDensity(theta), model.logDensity(theta));
 * ```
 *
 * References: docs/architecture.md, "Threads".
 */
export function modelFromSpec(spec: ModelSpec, arena: Arena): GlmModel {
  if (spec.kind !== "glm") {
    throw new TypeError(
      spec.kind === "user-glm"
        ? "a user family's spec is rebuilt by workerModelFromSpec (models/worker_model.ts)"
        : `unknown model spec kind ${String((spec as { kind: unknown }).kind)}`,
    );
  }
  // The spec's rows are those of a model that checked its responses.
  const data = specData(spec, arena, "modelFromSpec");
  return withSpecPrior(withCheckedResponses(() => new GlmModel(data, spec.options)), spec);
}

/**
 * A spec's rows over `arena`, which must be the spec's memory's owner or an
 * arena over a shared memory.
 *
 * @internal For the rebuilders of specs (here and models/worker_model.ts).
 */
export function specData(spec: ModelSpec, arena: Arena, caller: string): GlmData {
  if (arena.memory !== spec.memory && !(arena.memory.buffer instanceof SharedArrayBuffer)) {
    throw new RangeError(`${caller} needs an arena over the spec's shared memory`);
  }
  return { arena, ...spec.data, columnNames: Array.from(spec.data.columnNames) };
}

/**
 * `model` with the spec's `withPrior` prior put back, if it had one.
 *
 * @internal For the rebuilders of specs (here and models/worker_model.ts).
 */
export function withSpecPrior<M extends GlmModel | UserGlmModel>(model: M, spec: ModelSpec): M {
  return spec.prior === undefined ? model : withPrior(model, new Prior(spec.prior)) as M;
}
