/**
 * A model rebuilt in a worker from its {@link ModelSpec}: a GLM through
 * {@link modelFromSpec}, or a user AssemblyScript family — the same compiled
 * module instantiated over the same shared memory, its scratch in the worker's
 * arena. Only the workers import this module, so a program that never runs a
 * user family in a worker does not load the family's code.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { UserFamilyKernels } from "../core/user_family.ts";
import type { GlmModel } from "./glm.ts";
import { modelFromSpec, type ModelSpec } from "./model_spec.ts";
import { Prior } from "./prior_build.ts";
import { UserGlmModel } from "./user_glm.ts";
import { withPrior } from "./with_prior.ts";

/**
 * Rebuild a model described by {@link ModelSpec} over `arena`.
 *
 * @param spec What `modelSpecOf` returned in the calling thread.
 * @param arena The worker's arena over the spec's shared memory.
 * @returns The model: a GlmModel, or a UserGlmModel over the same kernels' bytes.
 * @throws {RangeError} When `arena` is not over a shared memory.
 */
export function workerModelFromSpec(spec: ModelSpec, arena: Arena): GlmModel | UserGlmModel {
  if (spec.kind !== "user-glm") return modelFromSpec(spec, arena);
  if (arena.memory !== spec.memory && !(arena.memory.buffer instanceof SharedArrayBuffer)) {
    throw new RangeError("workerModelFromSpec needs an arena over the spec's shared memory");
  }
  const d = spec.data;
  const kernels = UserFamilyKernels.attach(arena, spec.bytes, spec.staticBlock);
  const data = { arena, ...d, columnNames: Array.from(d.columnNames) };
  const user = UserGlmModel.overKernels(data, kernels, spec.priorScale);
  return spec.prior === undefined ? user : withPrior(user, new Prior(spec.prior));
}
