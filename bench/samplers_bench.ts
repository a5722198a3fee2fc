/**
 * Benchmarks of samplers/: one HMC iteration (L = 10) on a 30-d Gaussian
 * target, against the 10 gradient evaluations it cannot avoid (baseline), so
 * the difference is the kernel's own overhead (momentum draw, leapfrog
 * updates, kinetic energies, Metropolis test).
 *
 * Run: `deno bench bench/samplers_bench.ts`.
 */
import { gaussianTarget } from "../examples/models/gaussian_target.ts";
import { Rng } from "../random/rng.ts";
import { denseMetric, diagonalMetric, hmc } from "../samplers/mod.ts";

const d = 30;
const cov = new Float64Array(d * d);
for (let i = 0; i < d; i++) {
  for (let j = 0; j < d; j++) cov[i * d + j] = Math.pow(0.5, Math.abs(i - j)) * (1 + 0.05 * i);
}
for (let i = 0; i < d; i++) {
  for (let j = 0; j < i; j++) cov[i * d + j] = cov[j * d + i];
}
const target = gaussianTarget(new Float64Array(d), cov);
const fn = target.logDensityAndGradient;
const variances = new Float64Array(d).map((_, i) => cov[i * d + i]);
const metrics = { diagonal: diagonalMetric(variances), dense: denseMetric(cov) };
const theta = new Float64Array(d).fill(0.1);
const grad = new Float64Array(d);

Deno.bench("10 gradient evaluations, d = 30", { group: "hmc-d30", baseline: true }, () => {
  for (let k = 0; k < 10; k++) fn(theta, grad);
});

for (const [name, metric] of Object.entries(metrics)) {
  const rng = new Rng(`bench-${name}`);
  let state = hmc.init(theta, fn);
  const params = { logDensityAndGradientFn: fn, stepSize: 0.2, numIntegrationSteps: 10, metric };
  Deno.bench(`hmc.step L = 10, d = 30, ${name} metric`, { group: "hmc-d30" }, () => {
    state = hmc.step(rng, state, params).state;
  });
}
