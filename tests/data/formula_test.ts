import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";
import { buildDesign } from "../../data/design_matrix.ts";
import { loadCsvWithFormula, parseColumnTable } from "../../data/formula_csv.ts";
import { parseFormula } from "../../data/formula.ts";
import { GlmModel } from "../../models/glm.ts";
import { buildPrior, defaultPriorSpec } from "../../models/prior_build.ts";
import { withPrior } from "../../models/with_prior.ts";
import { Rng } from "../../random/rng.ts";
import { sample } from "../../samplers/sample.ts";

Deno.test("parseFormula() grammar", async (t) => {
  await t.step("intercept by default; - 1, + 0 and 0 + remove it; + 1 restores it", () => {
    assert.equal(parseFormula("y ~ x").intercept, true);
    assert.equal(parseFormula("y ~ x - 1").intercept, false);
    assert.equal(parseFormula("y ~ x + 0").intercept, false);
    assert.equal(parseFormula("y ~ 0 + x").intercept, false);
    assert.equal(parseFormula("y ~ 0 + x + 1").intercept, true);
    assert.deepEqual(parseFormula("y ~ 1").terms, []);
  });
  await t.step("interactions, *, ordering by degree, duplicates and - term", () => {
    const f = parseFormula("y ~ x1 + x2 + x1:x2 + region");
    assert.deepEqual(f.terms, [["x1"], ["x2"], ["region"], ["x1", "x2"]]);
    assert.deepEqual(parseFormula("y ~ a*b*c").terms, [
      ["a"],
      ["b"],
      ["c"],
      ["a", "b"],
      ["a", "c"],
      ["b", "c"],
      ["a", "b", "c"],
    ]);
    assert.deepEqual(parseFormula("y ~ a:b + b:a + a").terms, [["a"], ["a", "b"]]);
    assert.deepEqual(parseFormula("y ~ a*b - a:b").terms, [["a"], ["b"]]);
    assert.deepEqual(parseFormula("y ~ `my col` + x.2").terms, [["my col"], ["x.2"]]);
  });
  await t.step("bad formulas say what is wrong and quote the formula", () => {
    const bad: [string, RegExp][] = [
      ["y x1", /formula "y x1": no "~"/],
      ["y ~", /nothing after "~"/],
      ["y ~ x +", /ends after "\+"; a term is missing/],
      ["y ~ x1 x2", /expected "\+" or "-" at position 8, got "x2"/],
      ["y ~ log(x)", /a function call log\(…\)/],
      ["y ~ (a + b)^2", /"\(" at position 5 \(parentheses/],
      ["y ~ y + x", /the response "y" also appears on the right/],
      ["y ~ a ~ b", /more than one "~"/],
      ["y ~ 2", /a number 2 at position 5/],
      ["y + z ~ x", /the left of "~" must be one response column/],
      ["y ~ 0", /no terms and no intercept/],
      ["y ~ a:", /a column name is missing/],
    ];
    for (const [text, re] of bad) assert.throws(() => parseFormula(text), re, text);
  });
});

const _CSV = [
  "y,x1,x2,region",
  "1,0.5,2,north",
  "0,-1.0,1,south",
  "1,0.3,0,west",
  "0,1.2,-1,south",
  "1,-0.7,3,north",
].join("\n");

Deno.test("buildDesign() codes columns as R's model.matrix", async (t) => {
  const table = parseColumnTable(_CSV);
  await t.step("treatment contrasts against the first sorted level, names say what each is", () => {
    const d = buildDesign(table, "y ~ x1*region");
    assert.deepEqual(d.columnNames, [
      "(Intercept)",
      "x1",
      "region[south]",
      "region[west]",
      "x1:region[south]",
      "x1:region[west]",
    ]);
    assert.deepEqual(d.levels, { region: ["north", "south", "west"] });
    // row 2: x1 = -1, south
    assert.deepEqual(Array.from(d.x.subarray(6, 12)), [1, -1, 1, 0, -1, 0]);
  });
  await t.step("full indicator coding when the marginal term is absent", () => {
    assert.deepEqual(buildDesign(table, "y ~ 0 + region").columnNames, [
      "region[north]",
      "region[south]",
      "region[west]",
    ]);
    assert.deepEqual(buildDesign(table, "y ~ x1 + x1:region").columnNames, [
      "(Intercept)",
      "x1",
      "x1:region[south]",
      "x1:region[west]",
    ]);
    assert.deepEqual(buildDesign(table, "y ~ x1:x2 - 1").columnNames, ["x1:x2"]);
  });
  await t.step("standardize centres and scales every column but the intercept", () => {
    const d = buildDesign(table, "y ~ x1 + x2", { standardize: true });
    for (const j of [1, 2]) {
      let s = 0, ss = 0;
      for (let i = 0; i < 5; i++) s += d.x[i * 3 + j];
      for (let i = 0; i < 5; i++) ss += d.x[i * 3 + j] ** 2;
      assert.ok(Math.abs(s) < 1e-12);
      assert.ok(Math.abs(ss / 4 - 1) < 1e-12);
      assert.ok(Math.abs(d.x[j] * d.scale[j] + d.center[j] - [0, 0.5, 2][j]) < 1e-12);
    }
    const noInt = buildDesign(table, "y ~ x2 - 1", { standardize: true });
    assert.equal(noInt.center[0], 0);
  });
  await t.step("clear messages naming the column", () => {
    const one = parseColumnTable("y,g,x\n1,a,1\n0,a,2\n");
    assert.throws(
      () => buildDesign(one, "y ~ x + g"),
      /column "g" is categorical with one level \("a"\): a categorical column needs at least two levels/,
    );
    assert.throws(
      () => buildDesign(table, "y ~ x1 + colour"),
      /names column "colour", which is not in the data \(columns: y, x1, x2, region\)/,
    );
    const mixed = parseColumnTable("y,g\n1,a\n0,2\n");
    assert.throws(
      () => buildDesign(mixed, "y ~ g"),
      /column "g" mixes numbers \("2" at data row 2\)/,
    );
    const empty = parseColumnTable("y,x\n1,\n0,2\n");
    assert.throws(() => buildDesign(empty, "y ~ x"), /column "x" has an empty cell at data row 1/);
    assert.throws(() => buildDesign(table, "region ~ x1"), /the response "region" must be numeric/);
    assert.throws(
      () => buildDesign(table, "x2 ~ x1", { family: "logistic" }),
      /must be 0 or 1 for the logistic family, got 2 at data row 1/,
    );
    assert.throws(() => parseColumnTable("a,a\n1,2\n"), /names column "a" twice/);
    assert.throws(() => parseColumnTable("a,b\n1,2\n3\n"), /data row 2 has 1 fields, expected 2/);
  });
});

Deno.test("loadCsvWithFormula() gives the posterior of the same model with hand-written dummies", async () => {
  const rng = new Rng(11);
  const n = 600, regions = ["south", "north", "west"];
  const lines = ["y,x1,x2,region"];
  const hand: number[] = [], ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const x1 = rng.normal(), x2 = rng.normal();
    const r = regions[Math.floor(rng.uniform() * 3)];
    const s = r === "south" ? 1 : 0, w = r === "west" ? 1 : 0; // reference: north
    const eta = -0.2 + 0.8 * x1 - 0.5 * x2 + 0.6 * x1 * x2 + 0.7 * s - 0.4 * w;
    const y = rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    lines.push(`${y},${x1},${x2},${r}`);
    hand.push(1, x1, x2, s, w, x1 * x2);
    ys.push(y);
  }
  const path = Deno.makeTempFileSync({ suffix: ".csv" });
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
  const arena = loadCore();
  try {
    const data = await loadCsvWithFormula(arena, path, {
      formula: "y ~ x1 + x2 + x1:x2 + region",
      family: "logistic",
    });
    assert.deepEqual(data.columnNames, [
      "(Intercept)",
      "x1",
      "x2",
      "region[south]",
      "region[west]",
      "x1:x2",
    ]);
    const byHand = glmDataFromArrays(arena, hand, ys, {
      numCols: 6,
      columnNames: ["(Intercept)", "x1", "x2", "s", "w", "x1x2"],
    });
    const spec = defaultPriorSpec(data.columnNames, { family: "logistic" });
    const m1 = withPrior(
      new GlmModel(data, { family: "logistic" }),
      buildPrior(data.columnNames, spec),
    );
    const m2 = withPrior(
      new GlmModel(byHand, { family: "logistic" }),
      buildPrior(data.columnNames, spec),
    );
    const opts = { sampler: "hmc", seed: 3, numWarmup: 300, numSamples: 300, numChains: 1 };
    const r1 = sample(m1, opts), r2 = sample(m2, opts);
    assert.equal(r1.chains[0].stop, null);
    const d1 = r1.chains[0].draws, d2 = r2.chains[0].draws;
    let maxDiff = 0;
    assert.equal(d1.length, 6);
    for (let j = 0; j < 6; j++) { // draws[param][k]
      for (let k = 0; k < 300; k++) maxDiff = Math.max(maxDiff, Math.abs(d1[j][k] - d2[j][k]));
    }
    // Same X (the dummies are exact 0/1; x1·x2 is the same product), same
    // arithmetic, same seed: the same draws.
    assert.equal(maxDiff, 0);
    assert.deepEqual(r1.parameterNames, data.columnNames);
  } finally {
    Deno.removeSync(path);
  }
});

Deno.test("buildDesign() codes a two-level text response and reads offset and trials columns", async (t) => {
  const table = parseColumnTable(
    "y,bought,x,expo,n\n1,yes,0.5,0.1,2\n0,no,1.5,-0.2,1\n2,yes,2,0.3,3\n1,no,0.1,0,4\n",
  );
  await t.step("the level that sorts second is 1, or success", () => {
    const d = buildDesign(table, "bought ~ x", { family: "logistic" });
    assert.deepEqual(Array.from(d.y), [1, 0, 1, 0]);
    assert.deepEqual(d.responseCoding?.levels, ["no", "yes"]);
    assert.equal(d.responseCoding?.success, "yes");
    const s = buildDesign(table, "bought ~ x", { family: "logistic", success: "no" });
    assert.deepEqual(Array.from(s.y), [0, 1, 0, 1]);
    assert.equal(buildDesign(table, "y ~ x", { family: "poisson" }).responseCoding, null);
  });
  await t.step("text responses the rule does not cover are refused, naming the levels", () => {
    const three = parseColumnTable("y,x\na,1\nb,2\nc,3\n");
    assert.throws(
      () => buildDesign(three, "y ~ x", { family: "logistic" }),
      /the response "y" is text with 3 levels \("a", "b", "c"\); a logistic response needs exactly two levels/,
    );
    assert.throws(
      () => buildDesign(table, "bought ~ x", { family: "logistic", success: "Yes" }),
      /success "Yes" is not a level of the response "bought" \(levels: "no", "yes"\)/,
    );
    assert.throws(
      () => buildDesign(table, "bought ~ x", { family: "gaussian" }),
      /must be numeric, got text/,
    );
    assert.throws(
      () => buildDesign(table, "y ~ x", { family: "logistic", success: "1" }),
      /applies to a two-level text response; the response "y" is numeric/,
    );
  });
  await t.step("offset and trials stay out of X and are checked", () => {
    const d = buildDesign(table, "y ~ x", { family: "binomial", trials: "n" });
    assert.deepEqual(d.columnNames, ["(Intercept)", "x"]);
    assert.deepEqual(Array.from(d.trials!), [2, 1, 3, 4]);
    const o = buildDesign(table, "y ~ x", { family: "negative-binomial", offset: "expo" });
    assert.deepEqual(Array.from(o.offset!), [0.1, -0.2, 0.3, 0]);
    assert.throws(
      () => buildDesign(table, "y ~ 1", { family: "binomial", trials: "x" }),
      /the trials column "x" must hold integers in every row, got "0.5" at data row 1/,
    );
    assert.throws(
      () => buildDesign(table, "n ~ x", { family: "binomial", trials: "y" }),
      /must be ≥ 1 and ≥ the response "n" in every row, got trials 1 and response 2 at data row 1/,
    );
    assert.throws(
      () => buildDesign(table, "y ~ x + expo", { family: "poisson", offset: "expo" }),
      /the offset column "expo" is also in the formula/,
    );
    assert.throws(
      () => buildDesign(table, "y ~ x", { family: "poisson", offset: "exposure" }),
      /the offset column "exposure" is not in the data/,
    );
  });
});
