/**
 * The summary row computed from one argsort (diagnostics/summary.ts
 * `_summaryRowRanked`) is the general row bit for bit: every field of every
 * row compared with Object.is, over draws with and without ties, odd and
 * even chain lengths, one to five chains, heavy tails, discrete draws, a
 * stuck chain, zeros and values within ε of each other.
 */
import { strict as nodeAssert } from "node:assert";
import {
  _prepareSummary,
  _summaryRowGeneral,
  _summaryRowRanked,
  summarize,
  type SummaryRow,
} from "../../diagnostics/summary.ts";

/** Park–Miller uniforms in (0, 1). */
function uniforms(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

const assert = (ok: boolean, message?: string) => nodeAssert.ok(ok, message);
const assertEquals = (a: unknown, b: unknown, message?: string) =>
  nodeAssert.deepStrictEqual(a, b, message);

function sameRow(a: SummaryRow, b: SummaryRow, label: string): void {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    const x = (a as unknown as Record<string, unknown>)[k];
    const y = (b as unknown as Record<string, unknown>)[k];
    if (typeof x === "number" || typeof y === "number") {
      assert(Object.is(x, y), `${label}: ${k} ${x} !== ${y}`);
    } else assertEquals(x, y, `${label}: ${k}`);
  }
}

type Maker = (u: () => number, c: number, i: number) => number;
const MAKERS: [string, Maker][] = [
  ["normal-ish AR", (u) => (u() + u() + u() - 1.5) * 0.01 + 0.3],
  ["heavy tail", (u) => Math.tan(Math.PI * (u() - 0.5))],
  ["discrete 0..4", (u) => Math.floor(u() * 5)],
  ["coarse ties", (u) => Math.round(u() * 40) / 8 - 2],
  ["two values", (u) => (u() < 0.3 ? 1 : 2)],
  ["chain offsets", (u, c) => u() + 3 * c],
  ["within epsilon", (u) => 1 + (u() < 0.5 ? 0 : Number.EPSILON)],
  ["symmetric pair", (_u, _c, i) => (i % 2 === 0 ? -1 : 1)],
  ["zeros and negatives", (u) => (u() < 0.4 ? 0 : -u())],
  ["one stuck chain", (u, c) => (c === 1 ? 0.5 : u())],
  ["stuck at different values", (_u, c) => c],
  ["large magnitude", (u) => 1e12 + Math.floor(u() * 1000)],
];

Deno.test("summary: the ranked row equals the general row bit for bit", () => {
  let cases = 0, ranked = 0;
  for (const [label, make] of MAKERS) {
    for (const numChains of [1, 2, 4, 5]) {
      for (const n of [6, 7, 10, 33, 200, 201]) {
        const u = uniforms(1 + cases);
        let prev = 0;
        const chains = Array.from(
          { length: numChains },
          (_, c) =>
            Float64Array.from({ length: n }, (_, i) => {
              // Some autocorrelation for the continuous makers.
              const v = make(u, c, i);
              prev = label === "normal-ish AR" ? 0.7 * prev + v : v;
              return prev;
            }),
        );
        cases++;
        const general = _summaryRowGeneral(chains, "θ");
        const fast = _summaryRowRanked(chains, "θ");
        if (fast === null) continue;
        ranked++;
        sameRow(fast, general, `${label}, ${numChains} chains × ${n}`);
      }
    }
  }
  // The ranked row applies to most cases (not to constant draws or -0).
  assert(ranked > cases / 2, `${ranked} of ${cases}`);
});

Deno.test("summary: the ranked row declines what only the general row handles", () => {
  const c = (xs: number[]) => Float64Array.from(xs);
  assertEquals(_summaryRowRanked([c([1, 2, 3, 4, 5])], "a"), null); // too short
  assertEquals(_summaryRowRanked([c([1, 2, 3, NaN, 5, 6])], "a"), null);
  assertEquals(_summaryRowRanked([c([1, 2, 3, Infinity, 5, 6])], "a"), null);
  assertEquals(_summaryRowRanked([c([2, 2, 2, 2, 2, 2])], "a"), null); // constant
  assertEquals(_summaryRowRanked([c([1, -0, 3, 0, 5, 6])], "a"), null);
  // …and summarize still gives those rows.
  const [row] = summarize([[[1, -0, 3, 0, 5, 6, 2, 4]]], ["a"]);
  assert(Number.isFinite(row.essBulk));
});

Deno.test("summary: summarize's rows equal the general rows bit for bit, many parameters", () => {
  const u = uniforms(5);
  for (const [numChains, n, numParams] of [[4, 100, 3], [3, 51, 70], [2, 6, 2], [1, 5, 2]]) {
    const draws = Array.from(
      { length: numChains },
      () =>
        Array.from(
          { length: numParams },
          (_, j) =>
            Float64Array.from({ length: n }, () =>
              j % 3 === 0 ? Math.floor(u() * 6) : j % 3 === 1 ? u() - 0.5 : 7),
        ),
    );
    const names = Array.from({ length: numParams }, (_, j) => `p${j}`);
    const rows = summarize(draws, names);
    rows.forEach((row, j) => {
      const chains = draws.map((c) => c[j].slice());
      sameRow(row, _summaryRowGeneral(chains, names[j]), `${numChains} × ${n}, p${j}`);
    });
  }
});

Deno.test("summary: _prepareSummary changes no row, and summarize leaves the draws as they were", () => {
  const u = uniforms(11);
  const draws = Array.from({ length: 4 }, () =>
    Array.from({ length: 3 }, (_, j) => {
      let prev = 0;
      // Repeats (ties), as rejected proposals make.
      return Float64Array.from(
        { length: 200 },
        () => (prev = u() < 0.2 ? prev : 0.5 * prev + u() + j),
      );
    }));
  const copies = draws.map((c) => c.map((x) => x.slice()));
  const before = summarize(draws, ["a", "b", "c"]);
  assertEquals(draws, copies);
  _prepareSummary(4, 200, 0); // the same shape: its scratch and scores are reused
  _prepareSummary(3, 7, 0); // another shape in between
  const after = summarize(draws, ["a", "b", "c"]);
  before.forEach((row, j) => sameRow(after[j], row, `parameter ${j}`));
  _prepareSummary(0, 200); // nothing to prepare: returns
  _prepareSummary(4, 5);
});
