// The full-data GLM pass (llRange / llIdx and their f32 variants, built from
// the row primitives of core/as/rows.ts) against a scalar TypeScript
// re-implementation of its exact order of operations: every dot product, every
// gradient addition and the sum of ℓ must agree bit for bit, so that a faster
// kernel cannot change a seeded draw.
//
// What the scalar order is (madd(a, b, c) = a·b + c, fused in the relaxed
// build):
//   ηᵢ  four partial sums over columns j ≡ 0, 1, 2, 3 (mod 4) while four
//       columns remain, then one more column pair into the first two;
//       (s₀ + s₂) + (s₁ + s₃); an odd last column as madd(x, θ, η), or as
//       x·θ + η (never fused) for the single row left after the pairs
//   g   g[j] = madd(xᵢⱼ, ℓ'ᵢ, g[j]) for the rows in list order; the odd last
//       column as x·ℓ' + g (never fused)
//   Σℓ  two lanes: steps of four rows add (ℓₖ + ℓₖ₊₂, ℓₖ₊₁ + ℓₖ₊₃), a
//       remaining pair adds (ℓₖ, ℓₖ₊₁); lane 0 + lane 1; an odd last row added
//
// ℓ'ᵢ and ℓᵢ are the kernel's own per-row outputs (the link functions are
// tested against core/reference.ts elsewhere); η is visible exactly through
// the Gaussian family with σ = 1 and y = 0, where ℓ'ᵢ = (0 − ηᵢ)·1 = −ηᵢ.

import { strict as assert } from "node:assert";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "../../core/exports.ts";
import { availableBackends, type CoreBackend, loadCore } from "../../core/load.ts";
import { _rng } from "../_core_fixtures.ts";

const DIMS = [1, 2, 3, 5, 9, 29, 30, 81, 161];
const N = 23;

const _f = new Float64Array(1);
const _u = new BigUint64Array(_f.buffer);

/** x = m·2^e exactly (m a BigInt), for finite x. */
function _split(x: number): [bigint, number] {
  _f[0] = x;
  const bits = _u[0];
  const exp = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  if (exp !== 0) m |= 1n << 52n;
  const e = (exp === 0 ? 1 : exp) - 1075;
  return [bits >> 63n ? -m : m, e];
}

/** a·b + c rounded once (IEEE fused multiply-add), for the moderate values of this test. */
function _fma(a: number, b: number, c: number): number {
  const [ma, ea] = _split(a), [mb, eb] = _split(b), [mc, ec] = _split(c);
  const ep = ea + eb, e = Math.min(ep, ec);
  let s = ma * mb * (1n << BigInt(ep - e)) + mc * (1n << BigInt(ec - e));
  if (s === 0n) return a * b + c; // the sign of an exact zero as IEEE gives it
  // Keep 62 bits and a sticky bit (enough to round to 53 bits correctly):
  // Number(BigInt) rounds to nearest, ties to even; the scaling by 2^e is exact.
  const neg = s < 0n;
  if (neg) s = -s;
  const drop = Math.max(0, s.toString(2).length - 62);
  let t = s >> BigInt(drop);
  if ((t << BigInt(drop)) !== s) t |= 1n;
  const r = Number(t) * 2 ** (e + drop);
  return neg ? -r : r;
}

type Madd = (a: number, b: number, c: number) => number;
const UNFUSED: Madd = (a, b, c) => a * b + c;

/** ηᵢ in the kernel's order. */
function _eta(
  madd: Madd,
  tail: Madd,
  x: ArrayLike<number>,
  off: number,
  th: Float64Array,
  d: number,
): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 = madd(x[off + j], th[j], s0);
    s1 = madd(x[off + j + 1], th[j + 1], s1);
    s2 = madd(x[off + j + 2], th[j + 2], s2);
    s3 = madd(x[off + j + 3], th[j + 3], s3);
  }
  if (j + 2 <= d) {
    s0 = madd(x[off + j], th[j], s0);
    s1 = madd(x[off + j + 1], th[j + 1], s1);
    j += 2;
  }
  let eta = (s0 + s2) + (s1 + s3);
  if (j < d) eta = tail(x[off + j], th[j], eta);
  return eta;
}

/** Σℓ in the kernel's order from the per-row ℓ. */
function _sum(l: Float64Array): number {
  const m = l.length;
  let a = 0, b = 0, k = 0;
  for (; k + 4 <= m; k += 4) {
    a = a + (l[k] + l[k + 2]);
    b = b + (l[k + 1] + l[k + 3]);
  }
  for (; k + 2 <= m; k += 2) {
    a = a + l[k];
    b = b + l[k + 1];
  }
  let t = a + b;
  if (k < m) t += l[k];
  return t;
}

function _bits(a: ArrayLike<number>): string {
  return Array.from(a, (v) => {
    _f[0] = v;
    return _u[0].toString(16);
  }).join(",");
}

for (const backend of ["simd", "relaxed-simd"] as CoreBackend[]) {
  Deno.test(
    `llRange/llIdx (f64, f32) follow the scalar order bit for bit [${backend}]`,
    { ignore: !availableBackends().includes(backend) },
    () => {
      const arena = loadCore({ backend });
      const core = arena.exports;
      // The relaxed build's multiply-add is fused where the CPU has FMA:
      // whichever it is, every value must follow that one rounding throughout.
      const madds: Madd[] = backend === "simd" ? [UNFUSED] : [_fma, UNFUSED];
      let madd: Madd | undefined;
      let checked = 0;
      for (const d of DIMS) {
        for (const f32 of [false, true]) {
          for (const family of [FAMILY_LOGISTIC, FAMILY_GAUSSIAN, FAMILY_POISSON]) {
            const u = _rng(1000 * d + 10 * family + (f32 ? 1 : 0));
            const xs = new Float64Array(N * d).map(() => (u() - 0.5) * 3);
            const xv: ArrayLike<number> = f32 ? Float32Array.from(xs) : xs;
            const th = new Float64Array(d).map(() => (u() - 0.5) * (family === 2 ? 0.4 : 1.2));
            // Gaussian with y = 0 and σ = 1 exposes η; the others draw y.
            const ys = new Float64Array(N).map(() =>
              family === FAMILY_LOGISTIC
                ? (u() < 0.5 ? 1 : 0)
                : family === FAMILY_POISSON
                ? Math.floor(u() * 4)
                : 0
            );
            const g0 = new Float64Array(d).map(() => u() - 0.5);
            const list = Int32Array.from({ length: N }, () => Math.floor(u() * N));
            const x = f32 ? arena.allocF32(N * d) : arena.allocF64(N * d);
            if (f32) arena.writeF32(x, xv);
            else arena.writeF64(x, xs);
            const y = arena.allocF64(N), theta = arena.allocF64(d), grad = arena.allocF64(d);
            const idx = arena.allocI32(N);
            const ll = arena.allocF64(N), d1 = arena.allocF64(N), d2 = arena.allocF64(N);
            arena.writeF64(y, ys);
            arena.writeF64(theta, th);
            arena.writeI32(idx, list);
            const cases: [number, number, boolean][] = [[0, N, false], [0, 13, true], [0, N, true]];
            for (let m = 1; m <= 10; m++) cases.push([2, 2 + m, false]);
            for (const [start, end, listed] of cases) {
              const m = end - start;
              const rows = listed
                ? Array.from(list.subarray(0, m))
                : Array.from({ length: m }, (_, k) => start + k);
              arena.writeF64(grad, g0);
              const param = family === FAMILY_GAUSSIAN ? 1 : 0;
              const total = listed
                ? (f32 ? core.llIdxF32 : core.llIdx)(
                  family,
                  param,
                  x,
                  y,
                  d,
                  idx,
                  m,
                  theta,
                  grad,
                  ll,
                  d1,
                  d2,
                )
                : (f32 ? core.llRangeF32 : core.llRange)(
                  family,
                  param,
                  x,
                  y,
                  d,
                  start,
                  end,
                  theta,
                  grad,
                  ll,
                  d1,
                  d2,
                );
              const lOut = arena.readF64(ll, m), dOut = arena.readF64(d1, m);
              const gOut = arena.readF64(grad, d);
              const what = `d=${d} ${f32 ? "f32" : "f64"} family ${family} ${
                listed ? "listed" : "range"
              } m=${m}`;
              assert.equal(_bits([total]), _bits([_sum(lOut)]), `Σℓ, ${what}`);
              const expect = (mad: Madd): [string, string] => {
                const g = Float64Array.from(g0);
                for (let k = 0; k < m; k++) {
                  for (let j = 0; j < d; j++) {
                    const fma = j + 2 <= d || d % 2 === 0 ? mad : UNFUSED;
                    g[j] = fma(xv[rows[k] * d + j], dOut[k], g[j]);
                  }
                }
                const eta = rows.map((r, k) =>
                  -_eta(mad, k === m - 1 && m % 2 === 1 ? UNFUSED : mad, xv, r * d, th, d)
                );
                return [_bits(g), family === FAMILY_GAUSSIAN ? _bits(eta) : ""];
              };
              const got: [string, string] = [
                _bits(gOut),
                family === FAMILY_GAUSSIAN ? _bits(dOut) : "",
              ];
              if (madd === undefined) {
                madd = madds.find((mad) => {
                  const e = expect(mad);
                  return e[0] === got[0] && e[1] === got[1];
                });
                assert.ok(madd !== undefined, `no multiply-add rounding reproduces ${what}`);
              }
              const [gExp, etaExp] = expect(madd);
              assert.equal(got[0], gExp, `gradient, ${what}`);
              assert.equal(got[1], etaExp, `η, ${what}`);
              checked++;
            }
            for (const p of [x, y, theta, grad, idx, ll, d1, d2]) arena.free(p);
          }
        }
      }
      assert.equal(checked, DIMS.length * 2 * 3 * 13);
    },
  );
}
