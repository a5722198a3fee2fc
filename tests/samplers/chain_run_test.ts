/**
 * How one chain of `sampleChains` ends (samplers/chain_run.ts): run to the
 * end, stopped by the sampler, stopped at a non-finite position, or stopped
 * by a step that threw, in warmup and in sampling — the draws kept, the info
 * recorded, the stop reported, the adapt hooks and the disposal.
 */
import assert from "node:assert/strict";
import { newCostCounter } from "../../models/model.ts";
import type { Rng } from "../../random/rng.ts";
import { type ChainSampler, sampleChains, type StepInfo } from "../../samplers/mod.ts";

interface _Info extends StepInfo {
  value: number;
  isDivergent: boolean;
}

/**
 * A one-dimensional walk x ← x + 1 + u (u uniform from the chain's stream),
 * adapted by adding 1000 at each warmup update, ending as `end` says at the
 * step (phase, iteration) it names.
 */
function _walk(
  end: {
    phase: "warmup" | "sampling";
    iteration: number;
    how: "stop" | "nan" | "throw";
  } | null,
) {
  const log: string[] = [];
  const sampler: ChainSampler<{ x: number; out: Float64Array }, _Info> = {
    init: (position) => ({ x: position[0], out: new Float64Array(1) }),
    step(rng: Rng, state, phase, iteration) {
      const here = end !== null && end.phase === phase && end.iteration === iteration;
      if (here && end.how === "throw") throw new Error(`thrown at ${phase} ${iteration}`);
      const x = here && end.how === "nan" ? NaN : state.x + 1 + rng.uniform();
      return {
        state: { x, out: state.out },
        info: { value: x, isDivergent: iteration % 3 === 0 },
        ...(here && end.how === "stop" ? { stop: `asked at ${phase} ${iteration}` } : {}),
      };
    },
    position(state) {
      state.out[0] = state.x;
      return state.out;
    },
    adapt: {
      update: (state, context) => {
        log.push(`update ${context.iteration}`);
        return { x: state.x + 1000, out: state.out };
      },
      finish: (state) => {
        log.push("finish");
        return state;
      },
    },
    tuning: (state) => ({ at: state.x }),
    dispose: (state) => log.push(`dispose ${state.x}`),
  };
  return { sampler, log };
}

function _run(end: Parameters<typeof _walk>[0]) {
  const { sampler, log } = _walk(end);
  const draws: number[] = [];
  const r = sampleChains({
    sampler,
    model: { dim: 1, cost: newCostCounter() },
    seed: 3,
    numWarmup: 4,
    numSamples: 6,
    numChains: 1,
    thin: 2,
    initialPositions: [new Float64Array([0])],
    onDraw: (_c, _d, position) => draws.push(position[0]),
  });
  return { chain: r.chains[0], log, draws };
}

Deno.test("a chain that runs to the end: every draw, info and hook", () => {
  const { chain, log, draws } = _run(null);
  assert.equal(chain.stop, null);
  assert.deepEqual(log.slice(0, 5), ["update 0", "update 1", "update 2", "update 3", "finish"]);
  assert.equal(log.length, 6);
  assert.match(log[5], /^dispose /);
  assert.equal(chain.info.warmup.value.length, 4);
  assert.equal(chain.info.sampling.value.length, 6);
  // Thinned by 2: sampling iterations 0, 2, 4; each draw is the step's value.
  assert.equal(chain.numDraws, 3);
  const s = chain.info.sampling.value;
  assert.deepEqual(Array.from(chain.draws[0]), [s[0], s[2], s[4]]);
  assert.deepEqual(draws, [s[0], s[2], s[4]]);
  // Warmup x is adapted (+1000) after each step: the sampling starts above 4000.
  assert.ok(s[0] > 4000);
  // The tuning is read from the state after the last warmup update.
  assert.deepEqual(chain.tuning, { at: chain.info.warmup.value[3] + 1000 });
  // isDivergent every third iteration, booleans recorded as 0/1.
  assert.deepEqual(chain.numDivergent, { warmup: 2, sampling: 2 });
  assert.deepEqual(Array.from(chain.info.warmup.isDivergent), [1, 0, 0, 1]);
});

Deno.test("a chain stopped by its sampler in sampling keeps the step's info, not its draw", () => {
  const { chain, log } = _run({ phase: "sampling", iteration: 3, how: "stop" });
  assert.deepEqual(chain.stop, {
    kind: "sampler",
    phase: "sampling",
    iteration: 3,
    reason: "asked at sampling 3",
  });
  assert.equal(chain.info.sampling.value.length, 4);
  assert.equal(chain.numDraws, 2); // iterations 0 and 2
  assert.equal(chain.draws[0].length, 2);
  assert.equal(log.filter((l) => l === "finish").length, 1);
  // Disposed with the state before the stopping step.
  assert.equal(log.at(-1), `dispose ${chain.info.sampling.value[2]}`);
});

Deno.test("a chain whose position becomes non-finite in warmup stops there, with no draws", () => {
  const { chain, log } = _run({ phase: "warmup", iteration: 2, how: "nan" });
  assert.equal(chain.stop?.kind, "non-finite");
  assert.equal(chain.stop?.phase, "warmup");
  assert.equal(chain.stop?.iteration, 2);
  assert.match(chain.stop!.reason, /non-finite \(NaN in coordinate 0\)/);
  assert.equal(chain.info.warmup.value.length, 3);
  assert.ok(Number.isNaN(chain.info.warmup.value[2]));
  assert.deepEqual(chain.info.sampling, {});
  assert.equal(chain.numDraws, 0);
  assert.deepEqual(log.slice(0, 2), ["update 0", "update 1"]);
  assert.equal(log.length, 3); // no finish, then dispose
  assert.deepEqual(chain.tuning, {});
});

Deno.test("a step that throws stops the chain with the error, in warmup and in sampling", () => {
  const w = _run({ phase: "warmup", iteration: 1, how: "throw" });
  assert.equal(w.chain.stop?.kind, "error");
  assert.equal(w.chain.stop?.phase, "warmup");
  assert.equal(w.chain.stop?.iteration, 1);
  assert.equal(w.chain.stop?.reason, "thrown at warmup 1");
  assert.equal(w.chain.info.warmup.value.length, 2); // the step that threw has no info: NaN
  assert.ok(Number.isNaN(w.chain.info.warmup.value[1]));
  assert.equal(w.chain.numDraws, 0);
  const s = _run({ phase: "sampling", iteration: 4, how: "throw" });
  assert.equal(s.chain.stop?.kind, "error");
  assert.equal(s.chain.stop?.phase, "sampling");
  assert.equal(s.chain.stop?.iteration, 4);
  assert.equal(s.chain.numDraws, 2);
  assert.equal(s.chain.info.sampling.value.length, 5);
  assert.equal(s.log.at(-1), `dispose ${s.chain.info.sampling.value[3]}`);
});
