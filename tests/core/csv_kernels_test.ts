/**
 * The CSV kernels' helpers (core/csv_kernels.ts): the column statistics of
 * a block (SIMD, four columns at a time) against ColumnStats.add's scalar
 * loop, and the byte count against a plain loop.
 */

import assert from "node:assert/strict";
import { CsvRowParser } from "../../core/csv_kernels.ts";
import { csvCoreModule } from "../../core/csv_core_module.ts";

function _parser(): CsvRowParser {
  const p = CsvRowParser.create(csvCoreModule());
  assert.ok(p !== null, "the core's CSV kernels load");
  return p;
}

Deno.test("csv kernels: blockStats gives the scalar loop's minima, maxima, sums and hashes", () => {
  const p = _parser();
  let s = 99;
  const u = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  for (const numCols of [1, 3, 4, 5, 8, 31, 33]) {
    const rows = 301;
    const lines: string[] = [];
    for (let i = 0; i < rows; i++) {
      const f = [String(u() < 0.5 ? 0 : 1)];
      for (let k = 1; k < numCols; k++) {
        const r = u();
        f.push(r < 0.1 ? "0" : r < 0.2 ? "-0" : r < 0.3 ? "7" : ((u() - 0.5) * 1e3).toPrecision(9));
      }
      lines.push(f.join(","));
    }
    const text = new TextEncoder().encode(lines.join("\n") + "\n");
    const colMap = Int32Array.from({ length: numCols }, (_, j) => (j === 0 ? -2 : j));
    p.setPlan(
      {
        delimiter: 44,
        crlf: false,
        numFields: numCols,
        colMap,
        numCols,
        intercept: true,
        family: 0,
        f32check: false,
      },
      text.length,
      rows,
    );
    p.input().set(text);
    assert.equal(p.parse(0, text.length, true).rows, rows);
    const x = p.x(rows).slice(), d = numCols;
    for (const m of [0, 1, 63, 64, 65, rows]) {
      const lo = new Float64Array(d).fill(Infinity), hi = new Float64Array(d).fill(-Infinity);
      const sum = new Float64Array(d), h = new Int32Array(d).fill(0x811c9dc5 | 0);
      lo[0] = 5; // start values other than the neutral ones are kept as well
      const eLo = lo.slice(), eHi = hi.slice(), eSum = sum.slice(), eH = h.slice();
      const bits = new Int32Array(x.buffer);
      for (let i = 0; i < m; i++) {
        for (let k = 0; k < d; k++) {
          const o = i * d + k, v = x[o];
          if (v < eLo[k]) eLo[k] = v;
          if (v > eHi[k]) eHi[k] = v;
          eSum[k] += v;
          eH[k] = Math.imul(eH[k] ^ bits[2 * o + 1], 0x01000193) + bits[2 * o];
        }
      }
      p.blockStats(m, lo, hi, sum, h);
      for (let k = 0; k < d; k++) {
        const what = `${numCols} columns, ${m} rows, column ${k}`;
        assert.ok(Object.is(lo[k], eLo[k]), `${what}: minimum ${lo[k]} ≠ ${eLo[k]}`);
        assert.ok(Object.is(hi[k], eHi[k]), `${what}: maximum ${hi[k]} ≠ ${eHi[k]}`);
        assert.ok(Object.is(sum[k], eSum[k]), `${what}: sum`);
        assert.equal(h[k], eH[k], `${what}: hash`);
      }
    }
  }
});

Deno.test("csv kernels: countByte counts every match, at any offset and length", () => {
  const p = _parser();
  p.reserveInput(20000);
  const buf = p.input();
  let s = 5;
  for (let i = 0; i < 20000; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    buf[i] = (s >>> 24) < 40 ? 10 : (s >>> 24) < 50 ? 13 : 48 + ((s >>> 16) % 10);
  }
  for (const [a, b] of [[0, 0], [0, 15], [3, 70], [1, 20000], [0, 16320], [17, 16400], [5, 4101]]) {
    for (const byte of [10, 13, 48]) {
      let e = 0;
      for (let i = a; i < b; i++) if (buf[i] === byte) e++;
      assert.equal(p.countByte(a, b, byte), e, `[${a}, ${b}) byte ${byte}`);
    }
  }
  // Every byte a match: each byte lane's count reaches its largest before it is summed.
  buf.fill(10, 0, 20000);
  assert.equal(p.countByte(0, 20000, 10), 20000);
  assert.equal(p.countByte(1, 19999, 10), 19998);
});
