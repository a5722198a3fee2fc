/**
 * mulberry32: a tiny seeded 32-bit generator for test and bench fixtures
 * (inputs to generate, not draws of a sampler: samplers use random/rng.ts).
 */

/**
 * A seeded generator of uniforms on [0, 1), multiples of 2⁻³².
 *
 * @param seed Any number; its low 32 bits seed the generator.
 * @returns The next uniform on each call.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
