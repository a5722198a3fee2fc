/**
 * Full-data passes over R4's design (the bankruptcy-shaped data of
 * data/synthetic.ts: an intercept and 8 × 10 centred cubic B-splines, f32,
 * d = 81) with the dense kernels (`GlmKernels`: llRangeF32, gradRangeF32)
 * against the windowed layout (core/windowed_rows.ts: column constants plus
 * ≈ 8 windows of 4 deviating columns per row), logistic family.
 *
 * Before the timed benches it prints, per size, the CPU time per row (user +
 * system of this process, so that time slices lost to other processes on a
 * shared machine do not count) of ℓ + ∇ and ∇ alone, dense and windowed, as
 * the minimum over rounds in which the four passes alternate, and the median
 * of the per-round ratios windowed / dense. Deno's table that follows is wall
 * time per pass of n = 20,000 rows. docs/r4_sparse_rows.md has the numbers.
 *
 * Run: deno bench --allow-read --allow-sys=loadavg bench/windowed_rows_bench.ts
 */

import { GlmKernels } from "../core/glm_kernels.ts";
import { loadCore } from "../core/load.ts";
import { WindowedRows } from "../core/windowed_rows.ts";
import { bankruptcyShaped } from "../data/synthetic.ts";
import { Rng } from "../random/rng.ts";
import { cpuMs, loadAverage, median } from "./_measure.ts";

const ROUNDS = 15;

function _setup(n: number) {
  const arena = loadCore();
  const { data } = bankruptcyShaped(arena, { n, seed: "20190101/r4", storage: "f32" });
  const d = data.numCols;
  const rows = WindowedRows.build(data, { family: "logistic" });
  if (rows === null) throw new Error("the windowed layout was refused");
  const k = new GlmKernels(arena, { family: "logistic", dim: d });
  const rng = new Rng("windowed-rows-bench");
  const theta = Float64Array.from({ length: d }, (_, j) => (j === 0 ? -4.6 : 0.3 * rng.normal()));
  const grad = new Float64Array(d);
  return {
    rows,
    passes: {
      "dense ℓ + ∇": () => k.logLikelihood(data, theta, { grad }),
      "windowed ℓ + ∇": () => rows.logLikelihood(theta, grad),
      "dense ∇": () => k.gradient(data, theta, { grad }),
      "windowed ∇": () => rows.gradient(theta, grad),
    } as Record<string, () => unknown>,
  };
}

function _report(n: number, reps: number): void {
  const { rows, passes } = _setup(n);
  const names = Object.keys(passes);
  const best = new Map<string, number>(), ratios = new Map<string, number[]>();
  for (const f of Object.values(passes)) f();
  for (let r = 0; r < ROUNDS; r++) {
    const t = new Map<string, number>();
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) t.set(name, cpuMs(passes[name], reps) / reps / n * 1e6);
    for (const name of names) best.set(name, Math.min(best.get(name) ?? Infinity, t.get(name)!));
    for (const what of ["ℓ + ∇", "∇"]) {
      const list = ratios.get(what) ?? [];
      list.push(t.get(`windowed ${what}`)! / t.get(`dense ${what}`)!);
      ratios.set(what, list);
    }
  }
  console.log(
    `n = ${n}, d = 81, ${
      rows.windowsPerRow.toFixed(2)
    } windows per row, load average ${loadAverage()}: ` +
      names.map((name) => `${name} ${best.get(name)!.toFixed(1)} ns/row`).join(", ") +
      `; median ratio windowed/dense: ℓ + ∇ ${median(ratios.get("ℓ + ∇")!).toFixed(3)}, ∇ ${
        median(ratios.get("∇")!).toFixed(3)
      }`,
  );
}

_report(20_000, 20);
_report(200_000, 3);

const { passes } = _setup(20_000);
for (const [name, fn] of Object.entries(passes)) {
  Deno.bench({
    name,
    group: name.endsWith("∇") && !name.includes("ℓ") ? "gradient" : "value and gradient",
    baseline: name.startsWith("dense"),
    fn: () => {
      fn();
    },
  });
}
