/**
 * ColumnStats (data/column_stats.ts): rows for X'X picked elsewhere by
 * `gramPlan`, their sums of products formed by `gramBlock` and added with
 * `addGatheredGram`, block by block, give the numbers `addColumns` gives on
 * the same blocks.
 */
import assert from "node:assert/strict";
import { ColumnStats, gramBlock } from "../../data/column_stats.ts";
import { Rng } from "../../random/rng.ts";

Deno.test("ColumnStats.gramPlan + gramBlock + addGatheredGram: X'X of addColumns, bit for bit", () => {
  const rng = new Rng(3);
  const cases: [number, number, number[]][] = [
    [3, 100_000, [7, 30_000, 1, 50_000, 19_992]],
    [40, 30_000, [10_001, 9_999, 10_000]],
  ];
  for (const [d, n, blocks] of cases) {
    const cols = Array.from(
      { length: d },
      () => Float64Array.from({ length: n }, () => rng.normal()),
    );
    const a = new ColumnStats(d, n), c = new ColumnStats(d, n);
    let start = 0;
    for (const m of blocks) {
      const block = cols.map((c) => c.subarray(start, start + m));
      a.addColumns(block, m);
      const { first, stride, take } = c.gramPlan(start, m);
      const rows = new Float64Array(d * take);
      for (let k = 0; k < d; k++) {
        for (let t = 0; t < take; t++) rows[k * take + t] = block[k][first + t * stride];
      }
      c.addGatheredGram(m, () => {}, gramBlock(d, rows, take));
      start += m;
    }
    assert.equal(c.numRows, a.numRows);
    assert.equal(c.gramRows, a.gramRows);
    assert.deepEqual(c.gram, a.gram);
    assert.ok(a.gramRows > 0);
  }
});
