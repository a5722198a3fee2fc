/**
 * One worker, successive roles: the shared centring's pass worker
 * (models/_pass_worker.ts) handed over to the chains
 * (models/threaded_glm.ts `closeHandingOver`, samplers/parallel.ts
 * `adoptChainWorkers`) runs them with the draws of fresh chain workers, and a
 * worker whose hand-over fails is replaced by a fresh one.
 */
import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { higgsShaped } from "../../data/synthetic.ts";
import { GlmModel } from "../../models/glm.ts";
import { prestartPassWorkers, ThreadedGlmModel } from "../../models/threaded_glm.ts";
import { startEarlyPassWorker } from "../../models/_early_pass_worker.ts";
import { adoptChainWorkers, sampleParallel } from "../../samplers/parallel.ts";
import { sample } from "../../samplers/sample.ts";

function _model(n = 4000): GlmModel {
  const arena = loadCore({ shared: true });
  const { data } = higgsShaped(arena, { n, seed: 6 });
  return new GlmModel(data, { family: "logistic", priorScale: 5 });
}

const _RUN = { sampler: "hmc-ecs", seed: 7, numWarmup: 40, numSamples: 30, numChains: 3 };

/** The chain messages posted to `worker` from now on. */
function _countChains(worker: Worker): { chains: number } {
  const seen = { chains: 0 };
  const post = worker.postMessage.bind(worker);
  worker.postMessage = (message: unknown, ...rest: unknown[]) => {
    if ((message as { type?: string })?.type === "chain") seen.chains++;
    // deno-lint-ignore no-explicit-any
    return (post as any)(message, ...rest);
  };
  return seen;
}

Deno.test("a pass worker handed over to the chains runs them with a fresh chain worker's draws", async (t) => {
  const model = _model();
  const sequential = sample(model, _RUN);
  const fresh = await sampleParallel(model, { ..._RUN, workers: 2 });
  assert.deepEqual(fresh.draws, sequential.draws);
  const ways: [string, () => () => void][] = [
    ["started by the model", () => () => {}],
    ["prestarted, chain modules loaded ahead", () => prestartPassWorkers(1, "hmc-ecs")],
    ["started early, chain modules loaded ahead", () => {
      const dropEarly = startEarlyPassWorker("hmc-ecs");
      const dropPrestarted = prestartPassWorkers(1);
      return () => {
        dropPrestarted();
        dropEarly();
      };
    }],
  ];
  for (const [how, prestart] of ways) {
    await t.step(how, async () => {
      const drop = prestart();
      const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
      // The pass role first: a full-data pass on both threads.
      const theta = new Float64Array(model.dim).fill(0.05);
      assert.ok(Math.abs(threaded.logLikelihood(theta) - model.logLikelihood(theta)) < 1e-6);
      const workers = threaded.closeHandingOver(2);
      assert.equal(workers.length, 1, "the model had one worker to hand over");
      assert.deepEqual(threaded.closeHandingOver(1), [], "closed: nothing more to hand over");
      const seen = _countChains(workers[0]);
      const dropAdopted = adoptChainWorkers(workers, "hmc-ecs");
      try {
        // One worker: the adopted one runs every chain.
        const one = await sampleParallel(model, { ..._RUN, workers: 1 });
        assert.equal(one.parallel.workers, 1);
        assert.equal(seen.chains, 3, "the handed-over worker ran the chains");
        assert.deepEqual(one.draws, sequential.draws);
        assert.deepEqual(one.chains.map((c) => c.cost), sequential.chains.map((c) => c.cost));
      } finally {
        dropAdopted();
        drop();
      }
    });
  }
  await t.step("beside a fresh chain worker", async () => {
    const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
    const workers = threaded.closeHandingOver(1);
    const seen = _countChains(workers[0]);
    const drop = adoptChainWorkers(workers);
    try {
      const two = await sampleParallel(model, { ..._RUN, workers: 2 });
      assert.ok(seen.chains >= 1, "the handed-over worker ran a chain");
      assert.deepEqual(two.draws, sequential.draws);
    } finally {
      drop();
    }
  });
});

Deno.test("closeHandingOver(0) stops the pass workers as close() does; unused adopted workers are terminated", async () => {
  const model = _model(2000);
  const threaded = await ThreadedGlmModel.create(model, { threads: 2 });
  assert.deepEqual(threaded.closeHandingOver(0), []);
  const again = await ThreadedGlmModel.create(model, { threads: 2 });
  const drop = adoptChainWorkers(again.closeHandingOver(1), "hmc-ecs");
  drop(); // the test's leak check fails if the worker stays alive
});

/** A worker that cannot serve the chain protocol: it answers `reply`. */
function _broken(reply: "error" | "throw"): Worker {
  const body = reply === "error"
    ? `self.onmessage = () => self.postMessage({ type: "error", error: new Error("no chain role") });`
    : `self.onmessage = () => { throw new Error("no chain role"); };`;
  return new Worker(`data:application/javascript,${encodeURIComponent(body)}`, { type: "module" });
}

Deno.test("a hand-over that fails falls back to a fresh chain worker, with the same draws", async (t) => {
  const model = _model(2000);
  const sequential = sample(model, _RUN);
  await t.step("the adopted worker fails before a run takes it", async () => {
    const drop = adoptChainWorkers([_broken("throw")], "hmc-ecs"); // throws at the preload
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const par = await sampleParallel(model, { ..._RUN, workers: 1 });
      assert.equal(par.parallel.workers, 1);
      assert.deepEqual(par.draws, sequential.draws);
    } finally {
      drop();
    }
  });
  for (const reply of ["error", "throw"] as const) {
    await t.step(
      `the adopted worker ${reply === "error" ? "answers an error" : "throws"}`,
      async () => {
        const inUse = model.arena.bytesInUse;
        const drop = adoptChainWorkers([_broken(reply)], "hmc-ecs");
        try {
          const par = await sampleParallel(model, { ..._RUN, workers: 2 });
          assert.equal(par.parallel.workers, 2);
          assert.equal(par.parallel.note, null);
          assert.deepEqual(par.draws, sequential.draws);
          assert.equal(model.arena.bytesInUse, inUse, "every region is released");
        } finally {
          drop();
        }
      },
    );
  }
});
