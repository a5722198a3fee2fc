/**
 * A model rebuilt in a worker from its {@link ModelSpec}: a GLM through
 * {@link modelFromSpec}, or a user AssemblyScript family — the same compiled
 * module instantiated over the same shared memory, its scratch in the worker's
 * arena ({@link workerModelFromSpec}, thread workers), or over a shard
 * worker's own memory at the static block it was compiled for
 * ({@link workerUserFamily}). Only the workers import this module, so a
 * program that never runs a user family in a worker does not load the
 * family's code.
 *
 * @module
 */
import type { Arena } from "../core/arena.ts";
import { UserFamilyKernels } from "../core/user_family.ts";
import type { GlmModel } from "./glm.ts";
import { modelFromSpec, type ModelSpec, specData, withSpecPrior } from "./model_spec.ts";
import type { UserFamilyBytes } from "./_shard_protocol.ts";
import { UserGlmModel } from "./user_glm.ts";

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
  const data = specData(spec, arena, "workerModelFromSpec");
  const kernels = UserFamilyKernels.attach(arena, spec.bytes, spec.staticBlock);
  return withSpecPrior(UserGlmModel.overKernels(data, kernels, spec.priorScale), spec);
}

/**
 * A user family's kernels in a shard worker's own arena: the module compiled
 * in the calling thread over the first block of a fresh arena, instantiated
 * here over this worker's memory with that block reserved at the same
 * address (`UserFamilyKernels.atBlock`).
 *
 * @param arena The worker's arena, fresh: nothing allocated in it yet.
 * @param family The compiled module's bytes and the address of its static block.
 * @returns The kernels (their `dispose` frees the block and the scratch).
 * @throws {RangeError} When `arena`'s first block is not at the family's static block.
 */
export function workerUserFamily(arena: Arena, family: UserFamilyBytes): UserFamilyKernels {
  return UserFamilyKernels.atBlock(arena, family.bytes, family.staticBlock);
}
