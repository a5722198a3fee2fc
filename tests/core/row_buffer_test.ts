import assert from "node:assert/strict";
import { loadCore } from "../../core/load.ts";
import { RowBuffer } from "../../core/row_buffer.ts";
import { glmDataFromArrays } from "../../data/dataset.ts";

Deno.test("a RowBuffer's per-row views are kept across calls and re-derived when the memory grows", () => {
  for (const shared of [false, true]) {
    const arena = loadCore({ shared });
    const data = glmDataFromArrays(arena, [1, 2, 3, 4, 5, 6], [0, 1, 0], { numCols: 2 });
    const rows = new RowBuffer(data, 3);
    const w = rows.weights();
    w.set([1, 2, 3]);
    assert.equal(rows.weights(), w, "the same view while nothing moved");
    assert.notEqual(rows.weights(0, 2), w, "another range: another view");
    assert.deepEqual(Array.from(rows.weights(1, 3)), [2, 3]);
    // Grow the memory: an unshared buffer is detached, a shared one stays valid.
    const before = arena.memory.buffer.byteLength;
    const big = arena.allocF64(before / 8 + 1024);
    assert.ok(arena.memory.buffer.byteLength > before);
    const after = rows.weights();
    assert.ok(after.byteLength > 0, `shared ${shared}: a live view`);
    assert.deepEqual(Array.from(after), [1, 2, 3]);
    if (!shared) assert.notEqual(after, w, "the detached view is not returned");
    arena.free(big);
    rows.dispose();
  }
});
