/**
 * The posterior of a `tallmc sample` draws file against the full-data MAP and
 * the Laplace sds of the same logistic regression, in Monte Carlo standard
 * errors: how docs/time_to_posterior.md checks that a change to the HMC-ECS
 * centring leaves the posterior as it was.
 *
 * ```sh
 * deno run -A bench/ttp_posterior_check.ts --data /tmp/ttp/higgs_10000000.parquet --draws draws.csv
 * ```
 *
 * The model is read as the CLI reads it (`--family logistic --response y
 * --f32`, intercept added); the MAP by Newton steps with exact full-data
 * Hessians to a decrement below 10⁻⁸, the Laplace sds from the Hessian there
 * (at n ≥ 10⁶ the posterior is Gaussian far below the Monte Carlo error).
 * Per parameter: (mean − MAP)/MCSE(mean) and (sd − Laplace sd)/MCSE(sd), MCSE
 * by batch means (20 batches per chain); printed as rms and max |·| over the
 * parameters, with the rank-normalised R̂ and ESS of the summary.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { loadCore } from "../core/load.ts";
import { familyFromFlags } from "../cli/model_flags.ts";
import { modelFromFlags } from "../cli/model_options.ts";
import { summarize } from "../diagnostics/summary.ts";
import { referenceMap } from "../testing/reference_map.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { data: { type: "string" }, draws: { type: "string" } },
});
if (values.data === undefined || values.draws === undefined) {
  throw new Error("need --data FILE and --draws DRAWS.csv");
}
const flags = { family: "logistic", response: "y", f32: true };
const built = await modelFromFlags(loadCore(), values.data, flags, {
  choice: familyFromFlags(flags),
  storage: "f32",
  resolvePath: (p: string) => p,
});
const model = built.model;
const d = model.dim;
// Newton's decrement gᵀ H⁻¹ g below 10⁻⁸.
const { map: theta, sd: laplaceSd } = referenceMap(
  model,
  (step, grad) => grad.reduce((acc, v, j) => acc + v * step[j], 0) < 1e-8,
);

// Draws: .chain, .iteration, .draw, then the parameters (in the model's order).
const lines = Deno.readTextFileSync(values.draws).trim().split("\n");
const header = lines[0].split(",");
const first = header.indexOf(model.parameterNames[0]);
const names = header.slice(first, first + d);
if (first < 0 || names.join() !== model.parameterNames.join()) {
  throw new Error(
    `--draws ${values.draws}: its columns (${header.slice(3).join(", ")}) are not the model's ` +
      `parameters (${model.parameterNames.join(", ")}): draws of another model or file?`,
  );
}
const byChain = new Map<number, number[][]>();
for (const line of lines.slice(1)) {
  const f = line.split(",");
  const c = Number(f[0]);
  if (!byChain.has(c)) byChain.set(c, Array.from({ length: d }, () => []));
  const chain = byChain.get(c)!;
  for (let j = 0; j < d; j++) chain[j].push(Number(f[first + j]));
}
const chains = [...byChain.keys()].sort((a, b) => a - b).map((c) => byChain.get(c)!);
const len = Math.min(...chains.map((c) => c[0].length));
const batches = 20, size = Math.floor(len / batches);

/** MCSE of a statistic by batch means over every chain's 20 batches. */
function batchMcse(j: number, stat: (x: number[]) => number): number {
  const values: number[] = [];
  for (const c of chains) {
    for (let b = 0; b < batches; b++) values.push(stat(c[j].slice(b * size, (b + 1) * size)));
  }
  const m = values.reduce((a, v) => a + v, 0) / values.length;
  const v = values.reduce((a, x) => a + (x - m) ** 2, 0) / (values.length - 1);
  return Math.sqrt(v / values.length);
}
const mean = (x: number[]) => x.reduce((a, v) => a + v, 0) / x.length;
const sd = (x: number[]) => {
  const m = mean(x);
  return Math.sqrt(x.reduce((a, v) => a + (v - m) ** 2, 0) / (x.length - 1));
};
const zMean: number[] = [], zSd: number[] = [];
for (let j = 0; j < d; j++) {
  const all = chains.flatMap((c) => c[j].slice(0, len));
  zMean.push((mean(all) - theta[j]) / batchMcse(j, mean));
  zSd.push((sd(all) - laplaceSd[j]) / batchMcse(j, sd));
}
const rms = (z: number[]) => Math.sqrt(z.reduce((a, v) => a + v * v, 0) / z.length);
const maxAbs = (z: number[]) => Math.max(...z.map(Math.abs));
const rows = summarize(
  chains.map((c) => c.map((x) => Float64Array.from(x.slice(0, len)))),
  model.parameterNames.slice(),
);
console.log(`n = ${model.numRows}, d = ${d}, ${chains.length} chains × ${len} draws`);
console.log(
  `(mean − MAP)/MCSE: rms ${rms(zMean).toFixed(2)}, max ${maxAbs(zMean).toFixed(2)}; ` +
    `(sd − Laplace sd)/MCSE(sd): rms ${rms(zSd).toFixed(2)}, max ${maxAbs(zSd).toFixed(2)}; ` +
    `min ESS bulk ${Math.round(Math.min(...rows.map((r) => r.essBulk)))} / tail ${
      Math.round(Math.min(...rows.map((r) => r.essTail)))
    }; max R̂ ${Math.max(...rows.map((r) => r.rhat)).toFixed(3)}`,
);
