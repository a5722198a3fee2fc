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

Deno.test("csv kernels: countBreaks counts every \\n and \\r in one pass, at any offset and length", () => {
  const p = _parser();
  p.reserveInput(20000);
  const buf = p.input();
  let s = 7;
  for (let i = 0; i < 20000; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    buf[i] = (s >>> 24) < 40 ? 10 : (s >>> 24) < 50 ? 13 : 48 + ((s >>> 16) % 10);
  }
  for (const [a, b] of [[0, 0], [0, 15], [3, 70], [1, 20000], [0, 16320], [17, 16400], [5, 4101]]) {
    let lf = 0, cr = 0;
    for (let i = a; i < b; i++) {
      if (buf[i] === 10) lf++;
      if (buf[i] === 13) cr++;
    }
    assert.deepEqual(p.countBreaks(a, b), { numLf: lf, numCr: cr }, `[${a}, ${b})`);
  }
  // Every byte a match: each byte lane's count reaches its largest before it is summed.
  buf.fill(10, 0, 20000);
  assert.deepEqual(p.countBreaks(1, 19999), { numLf: 19998, numCr: 0 });
  buf.fill(13, 0, 20000);
  assert.deepEqual(p.countBreaks(0, 20000), { numLf: 0, numCr: 20000 });
});

/** xorshift32 in [0, 1). */
function _rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/**
 * A random plain decimal: mostly the short form the fast loop reads
 * ([+-]digits.digits, at most 15 bytes), else 1–25 digits, a point anywhere
 * or none, leading zeros, an exponent, ±0 in many spellings.
 */
function _decimal(u: () => number, shortShare: number): string {
  const ri = (n: number) => Math.floor(u() * n);
  const digits = (n: number) => Array.from({ length: n }, () => String(ri(10))).join("");
  const sign = u() < 0.4 ? "-" : u() < 0.05 ? "+" : "";
  if (u() < shortShare) {
    const r = u();
    if (r < 0.5) return sign + digits(1) + "." + digits(5 + ri(5)); // -0.48229304
    if (r < 0.6) return sign + "0.0" + digits(1 + ri(9)); // -0.045696415
    if (r < 0.7) return sign + ["0", "0.0", ".0", "0.", "00", "0.000"][ri(6)];
    if (r < 0.8) return sign + digits(1 + ri(13)); // integers
    if (r < 0.9) return sign + "." + digits(1 + ri(13));
    const a = 1 + ri(13);
    return sign + digits(a) + "." + digits(ri(14 - a)); // up to 14 digits
  }
  switch (ri(5)) {
    case 0:
      return sign + digits(1 + ri(25)) + "." + digits(ri(25));
    case 1:
      return sign + digits(1 + ri(19)) + (u() < 0.5 ? "e" : "E") + (ri(180) - 90);
    case 2:
      return sign + "0".repeat(ri(8)) + digits(1 + ri(12)) + "." + digits(ri(12));
    case 3:
      return sign + digits(8 + ri(10)) + "." + digits(1 + ri(10)) + "e-" + ri(30);
    default:
      return sign + String(u() * 10 ** (ri(30) - 15));
  }
}

function _plan(
  numFields: number,
  crlf = false,
  fastRows = true,
  colMap = Int32Array.from({ length: numFields }, (_, j) => (j === 0 ? -2 : j)),
) {
  return {
    delimiter: 44,
    crlf,
    numFields,
    colMap,
    numCols: numFields,
    intercept: true,
    family: 1,
    f32check: false,
    fastRows,
  };
}

Deno.test("csv kernels: every value is Number()'s, bit for bit, with and without the fast loop", () => {
  const p = _parser();
  const u = _rng(20261127);
  let cells = 0, fastLines = 0;
  for (let block = 0; block < 120; block++) {
    const numFields = 1 + Math.floor(u() * 12);
    const rows = 1 + Math.floor(u() * 200);
    // Blocks where nearly every line is short, and blocks of mixed lines.
    const shortShare = block % 3 === 0 ? 0.6 : 0.995;
    const text: string[][] = [];
    for (let i = 0; i < rows; i++) {
      const line: string[] = [];
      for (let j = 0; j < numFields; j++) {
        let c = _decimal(u, shortShare);
        while (!(Math.abs(Number(c)) <= 1e100)) c = _decimal(u, shortShare);
        line.push(c);
      }
      text.push(line);
      if (line.every((c) => c.length <= 15 && !/e/i.test(c))) fastLines++;
    }
    // The response first, last, in the middle, or the columns in a random order (the
    // fast loop's runs of consecutive columns, and its general column map).
    const order = Array.from({ length: numFields - 1 }, (_, j) => j + 1);
    if (block % 4 === 3) order.sort(() => u() - 0.5);
    const at =
      [0, numFields - 1, Math.floor(numFields / 2), Math.floor(u() * numFields)][block % 4];
    const colMap = Int32Array.from([...order.slice(0, at), -2, ...order.slice(at)]);
    const bytes = new TextEncoder().encode(text.map((l) => l.join(",")).join("\n") + "\n");
    const outs = [true, false].map((fast) => {
      p.setPlan(_plan(numFields, false, fast, colMap), bytes.length, rows);
      p.input().set(bytes);
      const r = p.parse(0, bytes.length, true);
      assert.equal(r.status, 0, `block ${block}: status`);
      assert.equal(r.rows, rows);
      assert.equal(r.consumed, bytes.length);
      const x = p.x(rows).slice(), y = p.y(rows).slice();
      const dec = new TextDecoder();
      for (let h = 0; h < r.hard.length; h += 3) {
        const v = Number(dec.decode(bytes.subarray(r.hard[h + 1], r.hard[h + 1] + r.hard[h + 2])));
        if (r.hard[h] >= 0) x[r.hard[h]] = v;
        else y[-r.hard[h] - 1] = v;
      }
      return { x, y, hard: [...r.hard], lines: r.lines };
    });
    assert.deepEqual(outs[0].hard, outs[1].hard, `block ${block}: the same hard cells`);
    assert.equal(outs[0].lines, outs[1].lines);
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < numFields; j++) {
        const want = Number(text[i][j]);
        for (const o of outs) {
          const got = colMap[j] < 0 ? o.y[i] : o.x[i * numFields + colMap[j]];
          assert.ok(Object.is(got, want), `"${text[i][j]}": got ${got}, want ${want}`);
        }
        cells++;
      }
      assert.equal(outs[0].x[i * numFields], 1);
    }
  }
  assert.ok(cells > 50_000 && fastLines > 5_000, `${cells} cells, ${fastLines} short lines`);
});

Deno.test("csv kernels: the fast loop stops where the general loop must take over", () => {
  const p = _parser();
  // Each case: lines, plan changes, atEof, maxRows. Run with and without the fast loop:
  // the same rows, values, bytes and lines consumed, status and hard cells.
  const cases: [string, Record<string, unknown>, boolean, number?][] = [
    ["1,0.5,-2.25\n0,1.5,3\n", {}, true],
    ["1,0.5,-2.25\n0,1.5,3", {}, true], // no final line break
    ["1,0.5,-2.25\n0,1.5,3", {}, false], // an incomplete last line
    ["1,0.5,-2.25\r\n0,1.5,3\r\n", { crlf: true }, true],
    ["1,0.5,-2.25\r\n0,1.5,3\r", { crlf: true }, false],
    ["1,0.5,-2.25\n0,1.5,3\r\n", {}, true], // "\r" in a "\n" file
    ["1,0.5,-2.25\n0,1.5\n", {}, true], // too few fields
    ["1,0.5,-2.25,7\n0,1.5,3\n", {}, true], // too many
    ["1,0.5,-2.25\n\n0,1.5,3\n\n", {}, true], // blank lines
    ["1,0.5,-2.25\n0,1..5,3\n", {}, true],
    ["1,0.5,-2.25\n0,-,3\n", {}, true],
    ["1,0.5,-2.25\n0,.,3\n", {}, true],
    ["1,0.5,-2.25\n0,--1,3\n", {}, true],
    ["1,0.5,-2.25\n0,1-2,3\n", {}, true],
    ["1,0.5,-2.25\n0,+.5,-.5\n", {}, true],
    ["1,0.5,-2.25\n0,1e5,3\n", {}, true],
    ["1,0.5,-2.25\n0,123456789012345,3\n", {}, true], // 15 digits
    ["1,0.5,-2.25\n0,1234567890123456,3\n", {}, true], // 16
    ["1,0.5,-2.25\n0,-1234567890.12345,3\n", {}, true], // 17 bytes
    ["1,0.5,-2.25\n0, 1.5,3\n", {}, true], // a blank
    ['1,0.5,-2.25\n0,"1.5",3\n', {}, true], // a quote
    ["1,0.5,-2.25\n2,1.5,3\n", { family: 0 }, true], // a logistic response out of domain
    ["1,0.5,-2.25\n-0,1.5,3\n0.5,1,1\n", { family: 2 }, true], // Poisson
    ["1,0.5,-2.25\n0,1.5,3\n1,2,3\n", {}, true, 2], // maxRows
    ["1,abc,-2.25\n0,x1.5,3\n", { colMap: Int32Array.of(-2, -1, 2), numCols: 3 }, true],
    ["1,0.5,-2.25\n0,1.5,3\n", { colMap: Int32Array.of(2, -2, 1) }, true],
    ["1,0.5,-2.25\n0,1.5,3\n", { colMap: Int32Array.of(2, 1, -2) }, true],
    ["1,0.5,-2.25\n0,1.5,3\n", { colMap: Int32Array.of(1, 2, -2) }, true],
    ["1,0.5,-2.25\n0,1.5,3\n", { colMap: Int32Array.of(-2, 2, 1) }, true],
    ["1,0.5,-2.25\n0,1.5\n", { colMap: Int32Array.of(1, -2, 2) }, true],
    ["7\n-0.5\n", { numFields: 1, colMap: Int32Array.of(1), numCols: 2 }, true],
    ["1,0.5,-2.25\n0,1.5,3\n", { intercept: false, colMap: Int32Array.of(-2, 0, 1) }, true],
    ["1;0.5;-2.25\n0;1.5;3\n", { delimiter: 59 }, true],
    ["1,0.5,1e200\n0,1.5,3\n", {}, true], // > 1e100
    ["1,0.5,1e-40\n0,1.5,3\n", { f32check: true }, true],
  ];
  for (const [text, change, atEof, maxRows] of cases) {
    const bytes = new TextEncoder().encode(text);
    const outs = [true, false].map((fastRows) => {
      const plan = { ..._plan(3), ...change, fastRows };
      p.setPlan(plan, bytes.length, 8);
      p.input().set(bytes);
      const r = p.parse(0, bytes.length, atEof, 0, maxRows ?? 8);
      return {
        ...r,
        hard: [...r.hard],
        x: [...p.x(r.rows)].map((v) => Object.is(v, -0) ? "-0" : v),
        y: [...p.y(r.rows)].map((v) => Object.is(v, -0) ? "-0" : v),
      };
    });
    assert.deepEqual(outs[0], outs[1], JSON.stringify(text));
  }
});
