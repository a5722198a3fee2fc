/**
 * The pass worker that `tallmc sample` starts before its modules load
 * (models/_early_pass_worker.ts, cli.ts `_sharesCentring`): which flags start
 * it, that the shared centring's prestart takes it, and that one nothing took
 * is stopped.
 */
import assert from "node:assert/strict";
import { _sharesCentring } from "../../cli.ts";
import { startEarlyPassWorker, takeEarlyPassWorker } from "../../models/_early_pass_worker.ts";
import { prestartPassWorkers } from "../../models/threaded_glm.ts";

const base = ["--family", "logistic", "--data", "d.csv", "--response", "y"];

Deno.test("early pass worker: started for HMC-ECS chains that share a centring on 2+ threads", () => {
  const cores = navigator.hardwareConcurrency ?? 1;
  assert.equal(_sharesCentring([...base, "--sampler", "hmc-ecs"]), cores >= 2);
  assert.equal(_sharesCentring([...base, "--sampler=hmc-ecs", "--workers", "2"]), cores >= 2);
  for (
    const flags of [
      [], // the default sampler
      ["--sampler", "hmc"],
      ["--sampler", "hmc-ecs", "--workers", "1"],
      ["--sampler", "hmc-ecs", "--workers=0"],
      ["--sampler", "hmc-ecs", "--chains", "1"],
      ["--sampler", "hmc-ecs", "--init", "0"],
      ["--sampler", "hmc-ecs", "--family-source", "f.ts"],
    ]
  ) {
    assert.equal(_sharesCentring([...base, ...flags]), false, flags.join(" "));
  }
  const db = ["--data", "postgres://me@127.0.0.1/db?table=t", "--sampler", "hmc-ecs"];
  assert.equal(_sharesCentring(db), false);
  assert.equal(
    _sharesCentring(["--data", "duckdb:s.duckdb?table=t", "--sampler", "hmc-ecs"]),
    false,
  );
});

Deno.test("early pass worker: the centring's prestart takes it; one not taken is stopped", () => {
  const drop = startEarlyPassWorker();
  const dropPrestarted = prestartPassWorkers(1); // takes the early worker
  assert.equal(takeEarlyPassWorker(), undefined, "the prestart took it");
  dropPrestarted();
  drop();

  const dropUnused = startEarlyPassWorker();
  dropUnused(); // terminates it: nothing is left to take
  assert.equal(takeEarlyPassWorker(), undefined);
});
