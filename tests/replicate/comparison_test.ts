import { strict as assert } from "node:assert";
import { loadCore } from "../../core/load.ts";
import { freeGlmData } from "../../data/dataset.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { GlmModel, type GlmOptions } from "../../models/glm.ts";
import {
  COMPARISON_UNITS,
  type ComparisonConfig,
  type ComparisonOutcome,
  runComparison,
} from "../../replicate/comparison.ts";

const _OPTIONS: GlmOptions = { family: "logistic", priorScale: 10 };

const _CONFIG: ComparisonConfig = {
  seed: "comparison-test",
  numWarmup: 60,
  numSamples: 60,
  updateEvery: 30,
  reference: { numWarmup: 30, numSamples: 60 },
  subset: { fraction: 0.01, minRows: 500, numWarmup: 40, numSamples: 40 },
  sgBurnIn: 10,
  sghmcGrid: [0.1, 0.3],
  sgldGrid: [0.3, 1],
  numSeeds: 2,
  seedVariants: ["sghmc_fixed"],
  sgVariants: [
    { key: "sghmc_cv", label: "SG-HMC", kind: "sghmc", controlVariates: true, steps: "trajectory" },
    {
      key: "sghmc_matched",
      label: "SG-HMC (L matched)",
      kind: "sghmc",
      controlVariates: true,
      steps: "matched",
      stepSizeFrom: "sghmc_cv",
    },
    {
      key: "sghmc_fixed",
      label: "SG-HMC at ε = 0.1",
      kind: "sghmc",
      controlVariates: true,
      steps: 3,
      stepSize: 0.1,
    },
    { key: "sgld_cv", label: "SGLD", kind: "sgld", controlVariates: true },
  ],
};

async function _compare(sgUnits: boolean): Promise<ComparisonOutcome> {
  const arena = loadCore();
  const { data } = higgsShaped(arena, { n: 4000, seed: 7, storage: "f32" });
  const model = new GlmModel(data, _OPTIONS);
  try {
    return await runComparison(model, {
      config: { ..._CONFIG, sgUnits },
      context: { quick: true, seed: 1, outDir: "out", log: () => {} },
      modelOptions: _OPTIONS,
      units: COMPARISON_UNITS,
    });
  } finally {
    model.dispose();
    freeGlmData(data);
  }
}

Deno.test("runComparison() with sgUnits runs the SG grids and runs as units, with the in-thread loop's structure", async (t) => {
  const inThread = await _compare(false);
  const units = await _compare(true);

  await t.step("the runs before the SG stage are the same", () => {
    assert.deepEqual(units.reference.moments, inThread.reference.moments);
    assert.deepEqual(units.perturbed.moments, inThread.perturbed.moments);
    assert.equal(units.lambdaMax, inThread.lambdaMax);
    assert.equal(units.paperSteps, inThread.paperSteps);
  });

  await t.step("every variant, grid point and seed is there, in the same order", () => {
    assert.deepEqual(units.sg.map((o) => o.key), _CONFIG.sgVariants.map((v) => v.key));
    assert.deepEqual(
      units.grid.map((r) => [r.variant, r.stepSize, r.iterations, r.numSteps]),
      inThread.grid.map((r) => [r.variant, r.stepSize, r.iterations, r.numSteps]),
    );
    assert.equal(units.grid.filter((r) => r.chosen).length, 2);
    for (const key of ["sghmc_cv", "sghmc_matched", "sgld_cv"]) {
      assert.equal(units.seedRct[key].length, 1, key);
    }
    assert.equal(units.seedRct.sghmc_fixed.length, 2);
    assert.equal(units.seedRctPaper.sghmc_fixed.length, 2);
    assert.deepEqual(units.timings.map((s) => s.stage), inThread.timings.map((s) => s.stage));
    // Matched L and ε come from the grid's choice.
    assert.equal(units.chosenStepSize.sghmc_cv, units.grid.find((r) => r.chosen)!.stepSize);
  });

  await t.step("the first run on fresh estimators draws the same in both", () => {
    // The first SG-HMC grid point is the first run on its estimator either way
    // (later runs start from the subsample permutation the runs before left).
    assert.deepEqual(units.grid[0].errors, inThread.grid[0].errors);
    assert.equal(units.grid[0].evaluations, inThread.grid[0].evaluations);
  });

  await t.step("a run at a fixed ε starts on fresh estimators in its unit", () => {
    // In its unit the fixed-ε run is the first run on fresh estimators, so it
    // differs from the in-thread run, which follows the grids.
    const fixed = (o: ComparisonOutcome) => o.sg.find((x) => x.key === "sghmc_fixed")!;
    assert.equal(fixed(units).settings, fixed(inThread).settings);
    assert.equal(fixed(units).numDraws, _CONFIG.numSamples);
    assert.notDeepEqual(fixed(units).moments, fixed(inThread).moments);
  });
});
