/**
 * HMC-ECS now lives in the folder `samplers/hmc_ecs/`; this module keeps the
 * old import path working (the replication scripts, the CLI and the bench
 * import it) and re-exports that folder's public API.
 *
 * @module
 */
export * from "./hmc_ecs/mod.ts";
