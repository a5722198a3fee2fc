/**
 * `summarize` returns the same rows, bit for bit, as the implementation it
 * replaced: tests/diagnostics/summary_bits.json holds the rows that
 * implementation computed for the inputs of {@link summaryBitsInputs} (every
 * number as the hex of its IEEE-754 bits, naReasons and warnings as they
 * were). The inputs cover AR(1) draws of the CLI's shape (4 chains × 1 000)
 * including slowly mixing ones (the ESS then needs every lag, by FFT), odd
 * and even lengths, one to five chains, ties, discrete and heavy-tailed
 * draws, stuck chains, −0, NaN and ±Infinity, and chains too short to split.
 */
import { strict as assert } from "node:assert";
import { summarize, type SummaryRow } from "../../diagnostics/summary.ts";
import { _argsortHigh, _argsortRadix } from "../../diagnostics/_chains.ts";
import { _directAutocovarianceInto } from "../../diagnostics/fft.ts";

/** Park–Miller uniforms in (0, 1). */
function uniforms(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

type Maker = (u: () => number, c: number, i: number, prev: number) => number;
const MAKERS: [string, Maker][] = [
  ["ar 0.5", (u, _c, _i, p) => 0.5 * p + (u() + u() + u() - 1.5)],
  ["ar 0.995", (u, _c, _i, p) => 0.995 * p + (u() - 0.5) * 0.1],
  ["heavy tail", (u) => Math.tan(Math.PI * (u() - 0.5))],
  ["discrete 0..4", (u) => Math.floor(u() * 5)],
  ["coarse ties", (u) => Math.round(u() * 40) / 8 - 2],
  ["chain offsets", (u, c) => u() + 3 * c],
  ["within epsilon", (u) => 1 + (u() < 0.5 ? 0 : Number.EPSILON)],
  ["symmetric pair", (_u, _c, i) => (i % 2 === 0 ? -1 : 1)],
  ["zeros, −0 and negatives", (u) => (u() < 0.3 ? 0 : u() < 0.3 ? -0 : -u())],
  ["one stuck chain", (u, c) => (c === 1 ? 0.5 : u())],
  ["stuck at different values", (_u, c) => c],
  ["constant", () => 2.5],
  ["a NaN", (u, c, i) => (c === 0 && i === 3 ? NaN : u())],
  ["an Infinity", (u, c, i) => (c === 0 && i === 2 ? -Infinity : u())],
];

/** The inputs, deterministic: [label, draws[chain][parameter]]. */
export function summaryBitsInputs(): [string, Float64Array[][]][] {
  const out: [string, Float64Array[][]][] = [];
  let seed = 1;
  for (const [label, make] of MAKERS) {
    for (const [numChains, n] of [[4, 1000], [1, 7], [2, 33], [4, 201], [5, 200], [2, 5], [3, 3]]) {
      const u = uniforms(seed++);
      const draws: Float64Array[][] = [];
      for (let c = 0; c < numChains; c++) {
        const params: Float64Array[] = [];
        for (let j = 0; j < 2; j++) {
          const x = new Float64Array(n);
          let prev = 0;
          for (let i = 0; i < n; i++) x[i] = prev = make(u, c, i, prev) + j;
          params.push(x);
        }
        draws.push(params);
      }
      out.push([`${label}, ${numChains} × ${n}`, draws]);
    }
  }
  return out;
}

/**
 * A row with every number as the hex of its bits (JSON keeps −0 and
 * ±Infinity), NaN as "NaN" (its payload bits are not part of the result).
 */
export function encodeRow(row: SummaryRow): Record<string, unknown> {
  const bits = new Float64Array(1);
  const words = new BigUint64Array(bits.buffer);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (typeof v === "number" && Number.isNaN(v)) out[k] = "NaN";
    else if (typeof v === "number") {
      bits[0] = v;
      out[k] = words[0].toString(16);
    } else out[k] = v;
  }
  return out;
}

Deno.test("summarize: the rows of the previous implementation, bit for bit", async () => {
  const expected = JSON.parse(
    await Deno.readTextFile(new URL("./summary_bits.json", import.meta.url)),
  ) as Record<string, Record<string, unknown>[]>;
  const inputs = summaryBitsInputs();
  assert.equal(inputs.length, Object.keys(expected).length);
  for (const [label, draws] of inputs) {
    const rows = summarize(draws, ["a", "b"]).map(encodeRow);
    assert.deepStrictEqual(rows, expected[label], label);
  }
});

Deno.test("_argsort: the high-word sort gives the radix sort's permutation", () => {
  const u = uniforms(99);
  const cases: [string, (i: number) => number][] = [
    ["uniform", () => u() - 0.5],
    ["ties", () => Math.floor(u() * 7) - 3],
    ["±0 and signs", (i) => (i % 3 === 0 ? 0 : i % 3 === 1 ? -0 : u() - 0.5)],
    ["infinities", (i) => (i % 17 === 0 ? -Infinity : i % 19 === 0 ? Infinity : u())],
    ["runs of high words", () => 1 + Math.floor(u() * 50) * Number.EPSILON],
    ["short runs, low words differ", () => Math.floor(u() * 200) + Math.floor(u() * 4) * 2 ** -40],
    ["long runs (fallback)", () => 1e12 + Math.floor(u() * 1000)],
    ["tiny and huge", () => (u() - 0.5) * 10 ** Math.floor(u() * 600 - 300)],
  ];
  for (const [label, make] of cases) {
    for (const n of [1, 2, 65, 4000]) {
      const x = Float64Array.from({ length: n }, (_, i) => make(i));
      assert.deepStrictEqual(_argsortHigh(x), _argsortRadix(x), `${label}, n = ${n}`);
    }
  }
});

Deno.test("_directAutocovarianceInto: the plain lag-by-lag sums, bit for bit", () => {
  const u = uniforms(7);
  for (const n of [1, 2, 5, 8, 9, 17, 40, 501]) {
    const x = Float64Array.from({ length: n }, () => u() * 3 - 1);
    let mean = 0;
    for (let i = 0; i < n; i++) mean += x[i];
    mean /= n;
    for (let lags = 1; lags <= Math.min(n, 21); lags++) {
      const out = new Float64Array(lags);
      _directAutocovarianceInto(x, mean, out);
      for (let t = 0; t < lags; t++) {
        let s = 0;
        for (let i = 0; i + t < n; i++) s += (x[i] - mean) * (x[i + t] - mean);
        assert.ok(Object.is(out[t], s / n), `n = ${n}, lags = ${lags}, t = ${t}`);
      }
    }
  }
});
