import assert from "node:assert/strict";
import { loadCore } from "../../../core/load.ts";
import { glmDataFromArrays } from "../../../data/dataset.ts";
import { mcseMean, mcseSd } from "../../../diagnostics/mcse.ts";
import { rhat } from "../../../diagnostics/rhat.ts";
import { GlmModel } from "../../../models/glm.ts";
import { ThreadedGlmModel } from "../../../models/threaded_glm.ts";
import { Rng } from "../../../random/rng.ts";
import { parameterDraws } from "../../../samplers/driver.ts";
import { sample } from "../../../samplers/sample.ts";
import {
  sharedCentringPasses,
  sharedHmcEcsCentring,
} from "../../../samplers/hmc_ecs/shared_centring.ts";
import { hmcEcsChainSampler } from "../../../samplers/hmc_ecs/chain_sampler.ts";
import { initialCentring } from "../../../samplers/hmc_ecs/centring.ts";
import {
  checkCentring,
  type HmcEcsOptions,
  resolveHmcEcsOptions,
} from "../../../samplers/hmc_ecs/options.ts";
import { hmcEcsSupport } from "../../../samplers/hmc_ecs/proxy.ts";
import { ControlVariates } from "../../../subsampling/control_variates.ts";
import { referenceMap } from "../../../testing/reference_map.ts";

/** Logistic regression, intercept + two covariates, its full-data MAP and Laplace sds. */
function problem(n: number, seed: number, shared = false) {
  const rng = new Rng(seed), beta = [0.3, -0.8, 0.5], d = 3;
  const x = new Float64Array(d * n), y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[d * i] = 1;
    let eta = beta[0];
    for (let j = 1; j < d; j++) {
      const v = rng.normal();
      x[d * i + j] = v;
      eta += beta[j] * v;
    }
    y[i] = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
  }
  const model = new GlmModel(glmDataFromArrays(loadCore({ shared }), x, y, { numCols: d }), {
    family: "logistic",
    priorScale: 10,
  });
  const { map, sd } = referenceMap(model);
  model.cost.numLogLikRows = model.cost.numGradRows = model.cost.numHessianRows = 0;
  return { model, map, sd };
}

Deno.test("ControlVariates({ sums }): no pass, the same sums and estimates as the pass at θ*", () => {
  const { model, map } = problem(5000, 1);
  const thetaStar = map.map((v) => v + 0.01);
  const own = new ControlVariates(model, thetaStar, { rowCache: false });
  const rows = model.cost.numGradRows;
  const given = new ControlVariates(model, thetaStar, {
    rowCache: false,
    sums: { llStarSum: own.llStarSum, gradSum: own.gradSum },
  });
  assert.equal(model.cost.numGradRows, rows, "no full-data pass");
  assert.equal(given.llStarSum, own.llStarSum);
  assert.deepEqual(given.gradSum, own.gradSum);
  assert.deepEqual(given.hessSum, own.hessSum);
  const theta = map.map((v) => v - 0.02);
  assert.equal(given.sum(theta), own.sum(theta));
  assert.throws(
    () => new ControlVariates(model, thetaStar, { sums: { llStarSum: 0, gradSum: own.gradSum } }),
    /rowCache: false/,
  );
  assert.throws(
    () =>
      new ControlVariates(model, thetaStar, {
        rowCache: false,
        sums: { llStarSum: NaN, gradSum: own.gradSum },
      }),
    RangeError,
  );
  own.dispose();
  given.dispose();
});

Deno.test("sharedHmcEcsCentring(): θ* at the MAP, the sums there, one start per chain; null where chains centre themselves", () => {
  const { model, map, sd } = problem(20000, 2);
  const shared = sharedHmcEcsCentring(model, {}, { seed: 3, numChains: 4 })!;
  assert.ok(shared !== null);
  const c = shared.centring;
  for (let j = 0; j < 3; j++) {
    // Newton stops within its tolerance (decrement < 1 per dimension) of the MAP.
    assert.ok(Math.abs(c.thetaStar[j] - map[j]) < 1.5 * sd[j], `θ*[${j}]`);
  }
  const cv = new ControlVariates(model, c.thetaStar, { rowCache: false });
  assert.equal(c.llStarSum, cv.llStarSum);
  assert.deepEqual(c.gradSum, cv.gradSum);
  cv.dispose();
  assert.equal(shared.starts.length, 4);
  assert.equal(new Set(shared.starts.map((s) => s.join())).size, 4, "distinct starts");
  assert.equal(shared.options.centring, c);
  assert.equal(shared.options.startAtThetaStar, false);
  assert.equal(shared.options.recenterTolerance, 1);
  assert.equal(shared.options.hessianFraction, 0.05);
  // The same seed, the same centring.
  const again = sharedHmcEcsCentring(model, {}, { seed: 3, numChains: 4 })!;
  assert.deepEqual(again.centring, c);
  assert.deepEqual(again.starts, shared.starts);
  // Where a chain would not centre at the MAP by Newton steps on this thread.
  assert.equal(sharedHmcEcsCentring(model, { thetaStar: map }, { seed: 3, numChains: 4 }), null);
  assert.equal(sharedHmcEcsCentring(model, { maxNewtonSteps: 0 }, { seed: 3, numChains: 4 }), null);
  assert.equal(
    sharedHmcEcsCentring(model, { hessianFraction: 1 }, { seed: 3, numChains: 4 }),
    null,
  );
  assert.equal(
    sharedHmcEcsCentring(model, { recenterTolerance: 0 }, { seed: 3, numChains: 4 }),
    null,
  );
});

Deno.test("HMC-ECS chains on a shared centring: no full-data pass in their init, the MAP-centred posterior", () => {
  // n = 2·10⁴, d = 3: the posterior is ≈ Gaussian at the MAP with the Laplace
  // sds; tolerance 4 MCSE + 0.05 sd for the means (B̂'s tilt and the
  // perturbed estimator's bias are a few hundredths of a sd here), 10 % for the sds.
  const { model, map, sd } = problem(20000, 4);
  const shared = sharedHmcEcsCentring(model, {}, { seed: 5, numChains: 2 })!;
  // A chain's init: its pilot and step-size probe only, where its own centring makes ≥ 2 passes.
  const initRows = (options: HmcEcsOptions) => {
    const sampler = hmcEcsChainSampler(model, { ...options, numWarmup: 500 });
    const before = model.cost.numGradRows;
    sampler.dispose(sampler.init(shared.starts[0], new Rng(1)));
    return model.cost.numGradRows - before;
  };
  assert.ok(initRows(shared.options) < model.numRows, "no full-data pass");
  assert.ok(initRows({}) >= 2 * model.numRows, "a chain's own centring");
  const run = sample(model, {
    sampler: "hmc-ecs",
    ...shared.options,
    seed: 5,
    numChains: 2,
    numWarmup: 500,
    numSamples: 1000,
    initialPositions: shared.starts,
  });
  for (let j = 0; j < 3; j++) {
    const chains = parameterDraws(run, j);
    const all = chains.flatMap((c) => Array.from(c));
    const mean = all.reduce((a, v) => a + v, 0) / all.length;
    const s = Math.sqrt(all.reduce((a, v) => a + (v - mean) ** 2, 0) / (all.length - 1));
    const mcse = mcseMean(chains);
    assert.ok(
      Math.abs(mean - map[j]) < 4 * mcse + 0.05 * sd[j],
      `mean[${j}] ${mean} vs MAP ${map[j]} (MCSE ${mcse}, sd ${sd[j]})`,
    );
    assert.ok(Math.abs(s / sd[j] - 1) < 0.1, `sd[${j}] ${s} vs Laplace ${sd[j]}`);
  }
});

Deno.test("a shared centring where a chain keeps θ* off the MAP (large n): Newton passes to the MAP instead, no pass in the chains' init, the posterior of self-centred chains", () => {
  // n = 1.2·10⁵, d = 3: the large-n rule applies (the quasi-Newton step on a
  // subset of √(2000·d/n) ≈ 22 % of the rows; B̂ sized for θ*'s distance), so
  // a chain centring itself keeps θ* off the MAP and re-centres in warm-up
  // only beyond the tolerated distance.
  const { model, map, sd } = problem(120_000, 6);
  const support = hmcEcsSupport(model);
  const own = initialCentring(support, new Rng("hmc-ecs-shared-centring:7"), {
    o: resolveHmcEcsOptions(model, {}, support),
    position: new Float64Array(3),
  });
  assert.ok(own.toleratedDistance > 1, `tolerated distance ${own.toleratedDistance}`);
  assert.equal(own.numNewtonSteps, 0, "the centring pass only, no Newton pass");
  own.proxy.dispose();
  // The shared centring: the subset fit, the pass at its θ*, then Newton
  // passes with a fresh B̂ to within the re-centring tolerance (1 sd² per
  // dimension) — no refinement on 22 % of the rows.
  const rows = model.cost.numGradRows;
  const shared = sharedHmcEcsCentring(model, {}, { seed: 7, numChains: 4 })!;
  assert.ok(shared !== null);
  assert.equal(shared.numPasses, 2, "the centring pass and one Newton pass");
  assert.ok(
    model.cost.numGradRows - rows < 2.1 * model.numRows,
    `${model.cost.numGradRows - rows} ℓ, ∇ℓ rows: two passes and the subset fit only`,
  );
  assert.equal(shared.centring.toleratedDistance, undefined, "θ* at the MAP");
  const z = (t: Float64Array) => t.reduce((a, v, k) => a + ((v - map[k]) / sd[k]) ** 2, 0);
  assert.ok(
    z(shared.centring.thetaStar) / 3 < 1,
    `${z(shared.centring.thetaStar) / 3} sd² a dimension`,
  );
  assert.ok(z(shared.centring.thetaStar) < z(own.thetaStar), "closer to the MAP");
  const cv = new ControlVariates(model, shared.centring.thetaStar, { rowCache: false });
  assert.equal(shared.centring.llStarSum, cv.llStarSum, "the sums of a pass at θ*");
  cv.dispose();
  // checkCentring keeps a tolerated distance and refuses a bad one.
  assert.equal(checkCentring({ ...shared.centring, toleratedDistance: 2 }, 3).toleratedDistance, 2);
  assert.equal(
    checkCentring({ ...shared.centring, toleratedDistance: 0 }, 3).toleratedDistance,
    undefined,
  );
  assert.throws(
    () => checkCentring({ ...shared.centring, toleratedDistance: -1 }, 3),
    /toleratedDistance must be a finite number ≥ 0, got -1/,
  );
  // A chain's init: no full-data pass; a given tolerated distance reaches its warm-up.
  for (const tol of [0, 2]) {
    const centring = { ...shared.centring, toleratedDistance: tol };
    const sampler = hmcEcsChainSampler(model, { ...shared.options, centring, numWarmup: 500 });
    const before = model.cost.numGradRows;
    const state = sampler.init(shared.starts[0], new Rng(1));
    assert.ok(model.cost.numGradRows - before < model.numRows, "no full-data pass");
    assert.equal(sampler.tuning(state).toleratedDistance, tol);
    sampler.dispose(state);
  }
  // The posterior: shared and self-centred chains, each against the MAP and
  // the Laplace sds (4 MCSE + 0.05 sd; 4 MCSE(sd) + 5 %) and against each other.
  const run = (options: HmcEcsOptions, starts?: Float64Array[]) =>
    sample(model, {
      sampler: "hmc-ecs",
      ...options,
      seed: 8,
      numChains: 4,
      numWarmup: 400,
      numSamples: 600,
      initialPositions: starts,
    });
  const runs = [run(shared.options, shared.starts), run({})];
  const stats = runs.map((r) =>
    Array.from({ length: 3 }, (_, j) => {
      const chains = parameterDraws(r, j);
      const all = chains.flatMap((c) => Array.from(c));
      const mean = all.reduce((a, v) => a + v, 0) / all.length;
      const s = Math.sqrt(all.reduce((a, v) => a + (v - mean) ** 2, 0) / (all.length - 1));
      return { mean, sd: s, mcse: mcseMean(chains), mcseSd: mcseSd(chains), rhat: rhat(chains) };
    })
  );
  for (const [k, st] of stats.entries()) {
    for (let j = 0; j < 3; j++) {
      const { mean, sd: s, mcse, mcseSd: ms, rhat: r } = st[j];
      const label = `${k === 0 ? "shared" : "own"} [${j}]`;
      assert.ok(
        Math.abs(mean - map[j]) < 4 * mcse + 0.05 * sd[j],
        `${label}: mean ${mean} vs MAP ${map[j]} (MCSE ${mcse}, sd ${sd[j]})`,
      );
      assert.ok(
        Math.abs(s - sd[j]) < 4 * ms + 0.05 * sd[j],
        `${label}: sd ${s} vs Laplace ${sd[j]} (MCSE ${ms})`,
      );
      assert.ok(r < 1.02, `${label}: R̂ ${r}`);
    }
  }
  for (let j = 0; j < 3; j++) {
    const a = stats[0][j], b = stats[1][j];
    assert.ok(
      Math.abs(a.mean - b.mean) < 4 * Math.hypot(a.mcse, b.mcse) + 0.05 * sd[j],
      `[${j}]: shared mean ${a.mean} vs own ${b.mean}`,
    );
  }
});

Deno.test("sharedHmcEcsCentring({ passes }): the full-data sums on two threads, within the block-order bound of one thread's", async () => {
  const { model } = problem(20001, 9, true);
  const threaded = (await sharedCentringPasses(model, 2))!;
  assert.ok(threaded instanceof ThreadedGlmModel);
  assert.equal(threaded.threads, 2);
  assert.equal(await sharedCentringPasses(model, 1), null);
  try {
    // ThreadedGlmModel.controlVariateSums against one thread's kernel pass.
    const theta = new Float64Array([0.2, -0.7, 0.4]), one = new Float64Array(3);
    const two = new Float64Array(3);
    const s1 = model.kernels.controlVariateSums(model.data, theta, { gradSum: one });
    const s2 = threaded.controlVariateSums(theta, { gradSum: two });
    // |S₂ − S₁| ≤ (n + T)·u·Σ|ℓₖ| ≤ (n + T)·u·n·max|ℓₖ|: far below 1e-9 relative here.
    assert.ok(Math.abs(s2 - s1) <= 1e-9 * Math.abs(s1), `${s2} vs ${s1}`);
    for (let j = 0; j < 3; j++) {
      assert.ok(Math.abs(two[j] - one[j]) <= 1e-9 * (Math.abs(one[j]) + model.numRows), `A[${j}]`);
    }
    // ControlVariates with these passes and no cache: the same sums, counted once.
    const rows = model.cost.numGradRows;
    const cv = new ControlVariates(model, theta, { rowCache: false, passes: threaded });
    assert.equal(model.cost.numGradRows - rows, model.numRows);
    assert.equal(cv.llStarSum, s2);
    assert.deepEqual(cv.gradSum, two);
    cv.dispose();
    // The shared centring on two threads: the same subsets (one generator), the
    // same passes; θ* within rounding of the one-thread centring's.
    const a = sharedHmcEcsCentring(model, {}, { seed: 3, numChains: 4 })!;
    const b = sharedHmcEcsCentring(model, {}, { seed: 3, numChains: 4, passes: threaded })!;
    assert.equal(b.numPasses, a.numPasses);
    for (let j = 0; j < 3; j++) {
      assert.ok(Math.abs(b.centring.thetaStar[j] - a.centring.thetaStar[j]) < 1e-9, `θ*[${j}]`);
    }
    assert.ok(
      Math.abs(b.centring.llStarSum - a.centring.llStarSum) <=
        1e-9 * Math.abs(a.centring.llStarSum),
    );
    // Passes over another model are refused.
    const other = problem(100, 1).model;
    assert.throws(
      () => sharedHmcEcsCentring(other, {}, { seed: 3, numChains: 2, passes: threaded }),
      /passes must be a ThreadedGlmModel over the run's model/,
    );
  } finally {
    threaded.close();
  }
});

Deno.test("initialCentring({ threads }) at large n: the refinement's subset drawn on a pass thread during the subset fit (and B̂'s there too), the same centring bit for bit as drawn on the calling thread; the shared centring's B̂ drawn there too", async () => {
  // n = 1.2·10⁵, d = 3: the quasi-Newton refinement on a subset applies to a
  // chain centring itself (not to the shared centring, which goes to the MAP).
  const { model } = problem(120_000, 6, true);
  const threaded = (await sharedCentringPasses(model, 2))!;
  try {
    let begun = 0;
    const begin = threaded.beginSortedSample.bind(threaded);
    const counting = (rng: Rng, m: number) => {
      const started = begin(rng, m);
      if (started) begun++;
      return started;
    };
    const support = hmcEcsSupport(model);
    const threadedSupport = {
      ...support,
      rows: { kind: "compact-glm" as const, glm: model, passes: threaded, rowCache: false },
    };
    const centre = () => {
      const c = initialCentring(threadedSupport, new Rng("hmc-ecs-shared-centring:7"), {
        o: resolveHmcEcsOptions(model, {}, support),
        position: new Float64Array(3),
        threads: threaded,
      });
      const out = { thetaStar: c.thetaStar, tolerated: c.toleratedDistance, hess: c.proxy.hessSum };
      c.proxy.dispose();
      return out;
    };
    Object.defineProperty(threaded, "beginSortedSample", { value: counting, configurable: true });
    const ahead = centre();
    assert.equal(begun, 2, "the refinement's and B̂'s rows were drawn on the pass thread");
    assert.ok(ahead.tolerated > 1, "θ* kept off the MAP");
    // The shared centring: its Newton step's B̂ rows begun during the subset
    // fit, before the centring pass.
    const events: string[] = [];
    const sums = threaded.controlVariateSums.bind(threaded);
    Object.defineProperty(threaded, "controlVariateSums", {
      value: (...a: Parameters<typeof sums>) => {
        events.push("pass");
        return sums(...a);
      },
      configurable: true,
    });
    Object.defineProperty(threaded, "beginSortedSample", {
      value: (rng: Rng, m: number) => {
        events.push(`begin ${m}`);
        return counting(rng, m);
      },
      configurable: true,
    });
    const sharedAhead = sharedHmcEcsCentring(model, {}, {
      seed: 7,
      numChains: 4,
      passes: threaded,
    })!;
    assert.equal(begun, 3, "the shared centring's B̂ rows were drawn on the pass thread");
    assert.deepEqual(
      events,
      ["begin 6000", "pass", "pass"],
      "B̂'s rows begun before the first pass",
    );
    Object.defineProperty(threaded, "beginSortedSample", { value: () => false });
    const here = centre();
    const sharedHere = sharedHmcEcsCentring(model, {}, {
      seed: 7,
      numChains: 4,
      passes: threaded,
    })!;
    assert.equal(begun, 3);
    assert.deepEqual(ahead, here);
    assert.deepEqual(sharedAhead.centring, sharedHere.centring);
    assert.deepEqual(sharedAhead.starts, sharedHere.starts);
    assert.equal(sharedAhead.numPasses, sharedHere.numPasses);
  } finally {
    threaded.close();
  }
});
