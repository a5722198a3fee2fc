/**
 * Numerics of the raw kernels on every backend: memory growth between calls,
 * per-row values along an η grid, extreme η, hand-computed values and the
 * RangeError for a bad family, order or σ.
 *
 * Run: deno test --allow-read tests/core/core_numerics_test.ts
 */

import assert from "node:assert/strict";
import { FAMILY_GAUSSIAN, FAMILY_LOGISTIC, FAMILY_POISSON } from "../../core/exports.ts";
import { loadCore } from "../../core/load.ts";
import { _close, _data, _setup, AVAILABLE, BACKENDS, TOL } from "../_core_fixtures.ts";

for (const backend of BACKENDS) {
  const ignore = !AVAILABLE.includes(backend);

  Deno.test(
    `llRange() gives identical results after memory growth [${backend}]`,
    { ignore },
    () => {
      const arena = loadCore({ backend, initialBytes: 1 << 16 });
      const D = _data(arena, FAMILY_LOGISTIC, 101, 29, 5);
      const g = arena.allocF64(29), ll = arena.allocF64(101);
      const s1 = arena.exports.llRange(0, 0, D.x, D.y, 29, 0, 101, D.theta, g, ll, 0, 0);
      const g1 = arena.readF64(g, 29), l1 = arena.readF64(ll, 101);
      const stale = arena.f64(g, 29);
      const before = arena.byteLength;
      arena.grow(16);
      const big = arena.allocF64(1 << 18); // 2 MiB more: grows again
      assert.ok(arena.byteLength > before + 16 * 65536, "alloc grew the memory again");
      assert.equal(stale.length, 0, "a view made before growth is detached");
      arena.f64(g, 29).fill(0);
      const s2 = arena.exports.llRange(0, 0, D.x, D.y, 29, 0, 101, D.theta, g, ll, 0, 0);
      assert.equal(s2, s1);
      assert.deepEqual(arena.readF64(g, 29), g1);
      assert.deepEqual(arena.readF64(ll, 101), l1);
      // data written above the old end is read by the kernels too
      const x2 = arena.allocF64(101 * 29);
      arena.writeF64(x2, arena.readF64(D.x, 101 * 29));
      assert.equal(arena.exports.llRange(0, 0, x2, D.y, 29, 0, 101, D.theta, 0, 0, 0, 0), s1);
      arena.free(big);
    },
  );

  Deno.test(`llRange() per-row values match the reference along an η grid [${backend}]`, {
    ignore,
  }, () => {
    // elementwise relative 1e-12 (no normwise slack): checks exp, log1p, log Γ
    const { arena, core, ref } = _setup(backend);
    const n = 4001;
    const x = arena.allocF64(n), y = arena.allocF64(n), th = arena.allocF64(1);
    arena.writeF64(th, [1]);
    const outs = Array.from({ length: 6 }, () => arena.allocF64(n));
    const grids: [number, (i: number) => number, (i: number) => number][] = [
      [FAMILY_LOGISTIC, (i) => -40 + (80 * i) / (n - 1), (i) => i % 2],
      [FAMILY_POISSON, (i) => -30 + (60 * i) / (n - 1), (i) => i % 57],
    ];
    for (const [fam, eta, yy] of grids) {
      arena.writeF64(x, Array.from({ length: n }, (_, i) => eta(i)));
      arena.writeF64(y, Array.from({ length: n }, (_, i) => yy(i)));
      core.llRange(fam, 0, x, y, 1, 0, n, th, 0, outs[0], outs[1], outs[2]);
      ref.llRange(fam, 0, x, y, 1, 0, n, th, 0, outs[3], outs[4], outs[5]);
      for (let o = 0; o < 3; o++) {
        const a = arena.readF64(outs[o], n), b = arena.readF64(outs[o + 3], n);
        for (let i = 0; i < n; i++) {
          const tol = TOL * Math.abs(b[i]) + 1e-300;
          assert.ok(
            Math.abs(a[i] - b[i]) <= tol,
            `family ${fam} output ${o} at η = ${eta(i)}, y = ${yy(i)}: ${a[i]} vs ${b[i]}`,
          );
        }
      }
    }
  });

  Deno.test(`llRange() stays finite at extreme η [${backend}]`, { ignore }, () => {
    const arena = loadCore({ backend });
    const x = arena.allocF64(4), y = arena.allocF64(4), th = arena.allocF64(1);
    const ll = arena.allocF64(4), d1 = arena.allocF64(4), d2 = arena.allocF64(4);
    arena.writeF64(x, [1e4, 1e4, -1e4, -1e4]);
    arena.writeF64(y, [0, 1, 0, 1]);
    arena.writeF64(th, [1]);
    const s = arena.exports.llRange(FAMILY_LOGISTIC, 0, x, y, 1, 0, 4, th, 0, ll, d1, d2);
    assert.ok(Number.isFinite(s));
    for (const v of arena.readF64(ll, 4)) assert.ok(Number.isFinite(v) && v <= 0);
    assert.equal(arena.readF64(ll, 4)[0], -1e4);
    assert.equal(arena.readF64(ll, 4)[3], -1e4);
    assert.ok(Math.abs(arena.readF64(ll, 4)[1]) < 1e-300);
    assert.ok(Math.abs(arena.readF64(ll, 4)[2]) < 1e-300);
    assert.deepEqual(Array.from(arena.readF64(d1, 4)), [-1, 0, 0, 1]);
    for (const v of arena.readF64(d2, 4)) assert.ok(Number.isFinite(v) && v <= 0);
    // Poisson at η = ±700 (e^η overflows only past ≈ 709.78)
    arena.writeF64(x, [700, -700, 700, -700]);
    arena.writeF64(y, [3, 3, 0, 0]);
    const sp = arena.exports.llRange(FAMILY_POISSON, 0, x, y, 1, 0, 4, th, 0, ll, d1, d2);
    assert.ok(Number.isFinite(sp));
    for (const p of [ll, d1, d2]) {
      for (const v of arena.readF64(p, 4)) assert.ok(Number.isFinite(v));
    }
    _close(arena.readF64(ll, 4)[1], -2100 - Math.exp(-700) - Math.log(6), "Poisson ℓ(−700)");
  });

  Deno.test(`llRange() reproduces hand-computed ℓ, dℓ/dη, d²ℓ/dη² [${backend}]`, { ignore }, () => {
    const arena = loadCore({ backend });
    const x = arena.allocF64(2), y = arena.allocF64(2), th = arena.allocF64(1);
    const ll = arena.allocF64(2), d1 = arena.allocF64(2), d2 = arena.allocF64(2);
    arena.writeF64(th, [1]);
    const cases: [
      number,
      number,
      [number, number],
      [number, number],
      number[],
      number[],
      number[],
    ][] = [
      // family, σ, η, y, ℓ, dℓ/dη, d²ℓ/dη²
      [FAMILY_LOGISTIC, 0, [0, 2], [1, 0], [-Math.LN2, -2.1269280110429727], [
        0.5,
        -0.8807970779778823,
      ], [
        -0.25,
        -0.10499358540350649,
      ]],
      [FAMILY_GAUSSIAN, 2, [1, 3], [3, 3], [-2.112085713764618, -0.5 * Math.log(8 * Math.PI)], [
        0.5,
        0,
      ], [
        -0.25,
        -0.25,
      ]],
      [FAMILY_POISSON, 0, [Math.log(3), 0], [2, 5], [-1.4959226032237258, -5.787491742782046], [
        -1,
        4,
      ], [-3, -1]],
    ];
    for (const [fam, sigma, eta, ys, l, a, b] of cases) {
      arena.writeF64(x, eta);
      arena.writeF64(y, ys);
      const s = arena.exports.llRange(fam, sigma, x, y, 1, 0, 2, th, 0, ll, d1, d2);
      _close(s, l[0] + l[1], `Σℓ family ${fam}`);
      _close(arena.readF64(ll, 2), l, `ℓ family ${fam}`);
      _close(arena.readF64(d1, 2), a, `dℓ/dη family ${fam}`);
      _close(arena.readF64(d2, 2), b, `d²ℓ/dη² family ${fam}`);
    }
    // log 10! through the Lanczos log Γ
    arena.writeF64(x, [Math.log(2.5), 0]);
    arena.writeF64(y, [10, 0]);
    arena.exports.llRange(FAMILY_POISSON, 0, x, y, 1, 0, 1, th, 0, ll, 0, 0);
    _close(
      arena.readF64(ll, 1)[0],
      10 * Math.log(2.5) - 2.5 - 15.104412573075514,
      "Poisson y = 10",
    );
  });

  Deno.test(`kernels throw RangeError on a bad family, order or σ [${backend}]`, { ignore }, () => {
    const arena = loadCore({ backend });
    const p = arena.allocF64(8);
    const core = arena.exports;
    assert.throws(() => core.llRange(3, 0, p, p, 1, 0, 1, p, 0, 0, 0, 0), {
      name: "RangeError",
      message: /family must be .* got 3/,
    });
    assert.throws(() => core.hessRange(-1, 0, p, p, 1, 0, 1, p, p), /got -1/);
    assert.throws(() => core.llIdx(FAMILY_GAUSSIAN, 0, p, p, 1, p, 1, p, 0, 0, 0, 0), {
      name: "RangeError",
      message: /σ .* got 0/,
    });
    assert.throws(() => core.cvDiffRange(0, 0, p, p, p, 1, 0, 1, p, 3, 0, 0), {
      name: "RangeError",
      message: /order must be 0, 1 or 2, got 3/,
    });
  });
}
