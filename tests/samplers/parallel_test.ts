import assert from "node:assert/strict";
import { attachCore, loadCore } from "../../core/load.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { GlmModel } from "../../models/glm.ts";
import { gaussianTarget } from "../../examples/models/gaussian_target.ts";
import { holdChainWorkers, prestartChainWorkers, sampleParallel } from "../../samplers/parallel.ts";
import { sample } from "../../samplers/sample.ts";
import { grantExtension, releaseRegion, reserveRegion } from "../../core/shared_region.ts";

function _model(shared: boolean, n = 2000): GlmModel {
  const arena = loadCore({ shared });
  const { data } = higgsShaped(arena, { n, seed: 4 });
  return new GlmModel(data, { family: "logistic", priorScale: 5 });
}

Deno.test("sampleParallel() draws equal the sequential run's, bit for bit", async (t) => {
  const model = _model(true);
  const base = { sampler: "hmc", seed: 11, numWarmup: 150, numSamples: 100, numChains: 3 };
  const sequential = sample(model, base);
  for (const workers of [1, 2, 3]) {
    await t.step(`${workers} worker(s), 3 chains`, async () => {
      const par = await sampleParallel(model, { ...base, workers });
      assert.equal(par.parallel.workers, workers);
      assert.equal(par.parallel.note, null);
      assert.deepEqual(par.draws, sequential.draws);
      for (let c = 0; c < 3; c++) {
        assert.equal(par.chains[c].chainId, c);
        assert.deepEqual(par.chains[c].cost, sequential.chains[c].cost);
        assert.deepEqual(par.chains[c].info.sampling, sequential.chains[c].info.sampling);
      }
    });
  }
  await t.step("chainIds, jitter, thinning and progress pass through", async () => {
    const opts = { ...base, chainIds: [2, 0], jitter: 0.5, thin: 2 };
    const seen = new Set<number>();
    const par = await sampleParallel(model, {
      ...opts,
      workers: 2,
      onProgress: (chain: number) => seen.add(chain),
    });
    assert.deepEqual(par.draws, sample(model, opts).draws);
    assert.deepEqual([...seen].sort(), [0, 2]);
  });
  await t.step(
    "onDraw sees every kept draw of every chain in order, with its info (sent in batches)",
    async () => {
      const opts = { ...base, numSamples: 300 };
      const got = new Map<number, { draws: number[]; rows: number[][]; infos: object[] }>();
      const par = await sampleParallel(model, {
        ...opts,
        workers: 2,
        onDraw: (chain: number, draw: number, position: Float64Array, info: object) => {
          const g = got.get(chain) ?? { draws: [], rows: [], infos: [] };
          got.set(chain, g);
          g.draws.push(draw);
          g.rows.push(Array.from(position));
          g.infos.push(info);
        },
      });
      // The calling thread's infos, cut to their numeric and boolean fields.
      const seqInfos: object[][] = [[], [], []];
      const seq = sample(model, {
        ...opts,
        onDraw: (chain: number, _draw: number, _position: Float64Array, info: object) => {
          seqInfos[chain].push(
            Object.fromEntries(
              Object.entries(info).filter(([, v]) => ["number", "boolean"].includes(typeof v)),
            ),
          );
        },
      });
      assert.deepEqual(par.draws, seq.draws);
      for (let c = 0; c < 3; c++) {
        const g = got.get(c)!;
        assert.deepEqual(g.draws, Array.from({ length: 300 }, (_, k) => k));
        for (let k = 0; k < 300; k++) {
          assert.deepEqual(g.rows[k], seq.draws[c].map((col) => col[k]));
          // The same fields in the same order, booleans as booleans, the same numbers.
          assert.deepEqual(Object.keys(g.infos[k]), Object.keys(seqInfos[c][k]));
          assert.deepEqual(g.infos[k], seqInfos[c][k]);
        }
        assert.equal(typeof (g.infos[0] as { isDivergent: unknown }).isDivergent, "boolean");
      }
    },
  );
  await t.step("hmc-ecs (a data-model sampler) too", async () => {
    const opts = {
      sampler: "hmc-ecs",
      seed: 2,
      numWarmup: 60,
      numSamples: 40,
      numChains: 2,
      subsampleSize: 200,
    };
    const par = await sampleParallel(model, { ...opts, workers: 2 });
    assert.deepEqual(par.draws, sample(model, opts).draws);
  });
});

Deno.test("prestartChainWorkers(): a run on workers started before it gives the same draws; the rest are terminated", async () => {
  const model = _model(true);
  const base = { sampler: "hmc", seed: 5, numWarmup: 50, numSamples: 50, numChains: 2 };
  const release = prestartChainWorkers(3); // one more than the run takes
  try {
    const progress: number[] = [];
    const par = await sampleParallel(model, {
      ...base,
      workers: 2,
      onProgress: (_c: number, it: number) => progress.push(it),
    });
    assert.equal(par.parallel.workers, 2);
    assert.deepEqual(par.draws, sample(model, base).draws);
    // From workers: the first, the last of warm-up, the last, and every 1/200 between.
    for (const it of [1, 50, 100]) assert.ok(progress.includes(it), `iteration ${it} reported`);
  } finally {
    release(); // the third worker: the test's leak check fails if it stays alive
  }
});

Deno.test("sampleParallel() started on one worker adds the second while chains wait (rampSeconds 0) or never (Infinity); the draws are the sequential run's", async (t) => {
  const model = _model(true);
  // Each chain runs well past the first judgement of the rate (100 ms after
  // the first chain starts), so chains still wait for a worker then.
  const base = { sampler: "hmc", seed: 21, numWarmup: 300, numSamples: 300, numChains: 8 };
  const sequential = sample(model, base);
  await t.step("rampSeconds 0: the second worker is added", async () => {
    const progress: number[] = [];
    const par = await sampleParallel(model, {
      ...base,
      workers: 2,
      initialWorkers: 1,
      rampSeconds: 0,
      onProgress: (c: number, it: number) => it === 600 && progress.push(c),
    });
    assert.equal(par.parallel.workers, 2);
    assert.deepEqual(par.draws, sequential.draws);
    assert.deepEqual(
      progress.sort(),
      [0, 1, 2, 3, 4, 5, 6, 7],
      "every chain's last iteration reported once",
    );
  });
  await t.step("rampSeconds Infinity: one worker runs every chain", async () => {
    const par = await sampleParallel(model, {
      ...base,
      workers: 2,
      initialWorkers: 1,
      rampSeconds: Infinity,
    });
    assert.equal(par.parallel.workers, 1);
    assert.deepEqual(par.draws, sequential.draws);
  });
  await t.step("bad values are refused, naming the option", async () => {
    for (const initialWorkers of [0, 1.5, -1]) {
      await assert.rejects(
        sampleParallel(model, { ...base, workers: 2, initialWorkers }),
        new RegExp(`initialWorkers.*${initialWorkers}`),
      );
    }
    for (const rampSeconds of [-1, NaN]) {
      await assert.rejects(
        sampleParallel(model, { ...base, workers: 2, initialWorkers: 1, rampSeconds }),
        new RegExp(`rampSeconds must be ≥ 0 .*got ${rampSeconds}`),
      );
    }
  });
});

Deno.test("holdChainWorkers(): a finished run's workers are left to the caller, the draws unchanged", async () => {
  const model = _model(true);
  const base = { sampler: "hmc", seed: 9, numWarmup: 30, numSamples: 30, numChains: 3 };
  const held: Worker[] = [];
  holdChainWorkers(held);
  try {
    const par = await sampleParallel(model, { ...base, workers: 2 });
    assert.equal(par.parallel.workers, 2);
    assert.deepEqual(par.draws, sample(model, base).draws);
    assert.equal(held.length, 2, "both workers held, none terminated");
    assert.ok(held.every((w) => w instanceof Worker));
  } finally {
    holdChainWorkers(null);
    for (const w of held) w.terminate(); // the test's leak check fails if one stays alive
  }
  // Not holding again: the next run terminates its own workers.
  const par = await sampleParallel(model, { ...base, workers: 2 });
  assert.equal(par.parallel.workers, 2);
  assert.equal(held.length, 2);
});

Deno.test("sampleParallel() reads the data in place: the memory grows by the scratch regions only", async () => {
  const model = _model(true, 20000); // X is 4.8 MB
  const before = model.arena.memory.buffer.byteLength;
  const scratch = 1 << 20;
  await sampleParallel(model, {
    sampler: "hmc",
    seed: 1,
    numWarmup: 20,
    numSamples: 20,
    numChains: 2,
    workers: 2,
    workerScratchBytes: scratch,
  });
  const grown = model.arena.memory.buffer.byteLength - before;
  assert.ok(grown <= 2 * scratch + (1 << 20), `memory grew by ${grown} bytes`);
  assert.equal(model.arena.bytesInUse < before, true);
});

Deno.test("sampleParallel() runs in the calling thread when it must, and says why", async (t) => {
  const base = { sampler: "hmc", seed: 3, numWarmup: 30, numSamples: 30, numChains: 2 };
  await t.step("workers: 0", async () => {
    const r = await sampleParallel(_model(true), { ...base, workers: 0 });
    assert.deepEqual(r.parallel, { workers: 0, note: null });
  });
  await t.step("data not in a shared memory", async () => {
    const model = _model(false);
    const r = await sampleParallel(model, base);
    assert.equal(r.parallel.workers, 0);
    assert.match(r.parallel.note!, /not in a shared memory.*shared: true/);
    assert.deepEqual(r.draws, sample(model, base).draws);
  });
  await t.step("a model that is not a GlmModel", async () => {
    const model = gaussianTarget(new Float64Array([0]), new Float64Array([1]));
    const r = await sampleParallel(model, base);
    assert.match(r.parallel.note!, /only GlmModel and UserGlmModel can be rebuilt in a worker/);
  });
  await t.step(
    "sample() is the calling thread's: workers other than 0 point to sampleParallel()",
    () => {
      assert.throws(() => sample(_model(true), { ...base, workers: 2 }), /call sampleParallel\(\)/);
      assert.equal(sample(_model(true), { ...base, workers: 0 }).numChains, 2);
    },
  );
  await t.step("bad workers", async () => {
    await assert.rejects(
      () => sampleParallel(_model(true), { ...base, workers: -1 }),
      /workers must be a non-negative integer, got -1/,
    );
  });
  await t.step("a bad sampler option is rethrown from the worker", async () => {
    await assert.rejects(
      () => sampleParallel(_model(true), { ...base, workers: 1, stepSize: -1 }),
      /stepSize/,
    );
  });
});

Deno.test("attachCore() arenas stay in their region and never grow the memory", () => {
  const owner = loadCore({ shared: true });
  const start = owner.alloc(1 << 16);
  const arena = attachCore(owner.memory, { region: { start, end: start + (1 << 16) } });
  assert.equal(arena.extendable, false, "a region without extend");
  assert.equal(owner.extendable, false, "an owning arena");
  const p = arena.allocF64(1000);
  assert.ok(p >= start && p + 8000 <= start + (1 << 16));
  assert.throws(() => arena.allocF64(10000), /does not fit in this attached arena's region/);
  assert.throws(() => arena.grow(1), /never grows/);
  assert.throws(
    () => attachCore(owner.memory, { region: { start: 0, end: 100 } }),
    /needs a region inside/,
  );
});

Deno.test("sampleParallel() gives a worker more scratch when it asks: a 64 KiB region runs HMC-ECS at n = 20,000, bit for bit", async () => {
  // At n = 20,000 HMC-ECS's per-row caches alone are 20,000 × d × 8 bytes
  // (4.6 MB), 70 times the region each worker starts with.
  const model = _model(true, 20000);
  const opts = {
    sampler: "hmc-ecs",
    seed: 5,
    numWarmup: 20,
    numSamples: 10,
    numChains: 2,
  };
  const inUse = model.arena.bytesInUse;
  const par = await sampleParallel(model, { ...opts, workers: 2, workerScratchBytes: 65536 });
  assert.equal(par.parallel.workers, 2);
  assert.deepEqual(par.chains.map((c) => c.stop), [null, null]);
  // every block a worker was given is back in the owning arena
  assert.equal(model.arena.bytesInUse, inUse);
  assert.deepEqual(par.draws, sample(model, opts).draws);
});

Deno.test("an attached arena with region.extend continues in the blocks it is given, zeroed", () => {
  const owner = loadCore({ shared: true });
  const start = owner.alloc(1 << 16);
  const blocks: number[] = [];
  const arena = attachCore(owner.memory, {
    region: {
      start,
      end: start + (1 << 16),
      extend: (bytes) => {
        const p = owner.alloc(bytes, 64);
        new Uint8Array(owner.memory.buffer, p, bytes).fill(0);
        blocks.push(p);
        return { start: p, end: p + bytes };
      },
    },
  });
  assert.ok(arena.extendable);
  const a = arena.allocF64(4000); // 32,000 bytes: fits
  arena.f64(a, 4000).fill(7);
  const b = arena.allocF64(10000); // 80,000 bytes: a new block
  assert.equal(blocks.length, 1);
  assert.ok(b >= blocks[0]);
  assert.ok(arena.capacity >= (1 << 16) + 80000);
  arena.f64(b, 10000).fill(3);
  arena.free(a);
  // the first region's bytes are reused, and cleared although the arena moved on
  const c = arena.allocF64(4000);
  assert.equal(c, a);
  assert.ok(arena.f64(c, 4000).every((v) => v === 0));
  arena.free(b);
  const e = arena.allocF64(10000);
  assert.ok(arena.f64(e, 10000).every((v) => v === 0));
  assert.throws(() => arena.grow(1), /never grows/);
  const refusing = attachCore(owner.memory, {
    region: { start, end: start + 1024, extend: () => ({ start, end: start + 8 }) },
  });
  assert.throws(() => refusing.allocF64(1000), /region\.extend returned .*not a block of/);
});

Deno.test("grantExtension() allocates for a live growable region only; releaseRegion() frees the extensions too", () => {
  const owner = loadCore({ shared: true });
  const before = owner.bytesInUse;
  const region = reserveRegion(owner, 1 << 16, { growable: true });
  grantExtension(owner, region, 1 << 17);
  assert.equal(owner.bytesInUse, before + (1 << 16) + (1 << 17));
  releaseRegion(owner, region);
  assert.equal(owner.bytesInUse, before);
  grantExtension(owner, region, 1 << 17); // released: refused, nothing allocated
  assert.equal(owner.bytesInUse, before);
  assert.throws(() => grantExtension(owner, reserveRegion(owner, 1 << 16), 64), /growable/);
});
