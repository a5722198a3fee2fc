import assert from "node:assert/strict";
import { DrawsFileWriter } from "../../cli/draws_writer.ts";

function _rows(text: string): string[] {
  return text.trimEnd().split("\n");
}

Deno.test("DrawsFileWriter: chains written side by side are committed grouped by chain, each in iteration order", () => {
  const dir = Deno.makeTempDirSync();
  try {
    // Two interleavings of the same draws (as two runs whose threads differ in timing).
    const orders = [
      [[1, 0], [0, 0], [0, 1], [2, 0], [1, 1], [2, 1], [0, 2], [1, 2], [2, 2]],
      [[0, 0], [2, 0], [2, 1], [1, 0], [0, 1], [2, 2], [1, 1], [1, 2], [0, 2]],
    ];
    const texts: string[] = [];
    for (const [k, order] of orders.entries()) {
      const path = `${dir}/d${k}.csv`;
      const w = DrawsFileWriter.open(path, {
        parameterNames: ["a", "b"],
        extraNames: [],
        drawsPerChain: 3,
      });
      for (const [c, i] of order) w.write(c, i, [c + i / 10, -c], []);
      w.commit();
      texts.push(Deno.readTextFileSync(path));
    }
    assert.equal(texts[0], texts[1]);
    const rows = _rows(texts[0]);
    assert.equal(rows[0], ".chain,.iteration,.draw,a,b");
    assert.deepEqual(rows.slice(1).map((r) => r.split(",").slice(0, 3).join(",")), [
      "1,1,1",
      "1,2,2",
      "1,3,3",
      "2,1,4",
      "2,2,5",
      "2,3,6",
      "3,1,7",
      "3,2,8",
      "3,3,9",
    ]);
    // No temporary file is left beside the output.
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["d0.csv", "d1.csv"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("DrawsFileWriter: rows flushed in several blocks are regrouped across the blocks", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/d.csv`;
    const n = 2500; // more than one flush of queued rows
    const w = DrawsFileWriter.open(path, {
      parameterNames: ["x"],
      extraNames: [],
      drawsPerChain: n,
    });
    for (let i = 0; i < n; i++) {
      w.write(1, i, [i], []);
      w.write(0, i, [-i], []);
      if (i % 700 === 0) w.flush();
    }
    w.commit();
    const rows = _rows(Deno.readTextFileSync(path)).slice(1).map((r) => r.split(","));
    assert.equal(rows.length, 2 * n);
    for (let k = 0; k < 2 * n; k++) {
      const chain = k < n ? 1 : 2, it = (k % n) + 1;
      assert.equal(Number(rows[k][0]), chain);
      assert.equal(Number(rows[k][1]), it);
      assert.ok(Number(rows[k][3]) === (chain === 1 ? -(it - 1) : it - 1));
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("DrawsFileWriter: names beyond ASCII and rows of every length over several writes are the file's bytes", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/d.csv`;
    const w = DrawsFileWriter.open(path, {
      // The header holds more bytes than a byte per character and an eighth.
      parameterNames: ["σ_α", "b,c", "θθθθθθθθθθθθθθθθθθθθ"],
      extraNames: ["sign"],
      drawsPerChain: 700,
    });
    const expected = ['.chain,.iteration,.draw,σ_α,"b,c",θθθθθθθθθθθθθθθθθθθθ,sign'];
    // Rows that grow and shrink, so a later write needs more bytes than an
    // earlier one and less than another (700 rows: several writes).
    for (let i = 0; i < 700; i++) {
      const v = [i % 7 === 0 ? 1e-300 * (i + 1) : i / 3, -i, (i % 13) * 1e10];
      w.write(0, i, v, [i % 2 ? 1 : -1]);
      expected.push([1, i + 1, i + 1, ...v, i % 2 ? 1 : -1].join(","));
    }
    w.commit();
    assert.equal(w.rowsOnDisk, 700);
    assert.equal(Deno.readTextFileSync(path), expected.join("\n") + "\n");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
