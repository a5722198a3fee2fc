/**
 * One suite, run against every backend of the compute core (relaxed-simd,
 * simd, reference): each kernel against the TypeScript reference reading the
 * same memory (numerics: tests/core/core_numerics_test.ts), the arena and the loader.
 *
 * Run: deno test --allow-read tests/core/core_test.ts
 */

import assert from "node:assert/strict";
import { Arena, MAX_BYTES, RESERVED_BYTES } from "../../core/arena.ts";
import { type CoreExports, FAMILY_LOGISTIC } from "../../core/exports.ts";
import { type CoreBackend, loadCore } from "../../core/load.ts";
import {
  _close,
  _data,
  _indices,
  _normal,
  _pair,
  _rng,
  _setup,
  AVAILABLE,
  BACKENDS,
  FAMILIES,
  SHAPES,
} from "../_core_fixtures.ts";

// ─── the suite, once per backend ────────────────────────────────────────────

for (const backend of BACKENDS) {
  const ignore = !AVAILABLE.includes(backend);

  Deno.test(`loadCore() picks backend ${backend} when asked`, { ignore }, () => {
    const arena = loadCore({ backend });
    assert.equal(arena.backend, backend);
    const heapBase = arena.exports.heapBase();
    assert.ok(heapBase > 0 && heapBase <= RESERVED_BYTES, `heapBase ${heapBase}`);
  });

  Deno.test(`llRange() matches the reference [${backend}]`, { ignore }, async (t) => {
    const { arena, core, ref } = _setup(backend);
    for (const fam of FAMILIES) {
      for (const [n, d] of SHAPES) {
        await t.step(`${fam.name} n=${n} d=${d}`, () => {
          const D = _data(arena, fam.code, n, d, 1000 * n + d);
          for (const [start, end] of [[0, n], [Math.min(1, n), n], [0, n - 1]]) {
            const m = end - start;
            const [ga, gb] = _pair(arena, d, 7);
            const [la, lb] = _pair(arena, n, 0, true);
            const [da, db] = _pair(arena, n, 0, true);
            const [ha, hb] = _pair(arena, n, 0, true);
            const sa = core.llRange(
              fam.code,
              fam.param,
              D.x,
              D.y,
              d,
              start,
              end,
              D.theta,
              ga,
              la,
              da,
              ha,
            );
            const sb = ref.llRange(
              fam.code,
              fam.param,
              D.x,
              D.y,
              d,
              start,
              end,
              D.theta,
              gb,
              lb,
              db,
              hb,
            );
            _close(sa, sb, "Σℓ");
            _close(arena.readF64(ga, d), arena.readF64(gb, d), "grad");
            _close(arena.readF64(la, m), arena.readF64(lb, m), "ℓᵢ");
            _close(arena.readF64(da, m), arena.readF64(db, m), "dℓ/dη");
            _close(arena.readF64(ha, m), arena.readF64(hb, m), "d²ℓ/dη²");
            // without any optional output
            _close(
              core.llRange(fam.code, fam.param, D.x, D.y, d, start, end, D.theta, 0, 0, 0, 0),
              sb,
              "Σℓ only",
            );
            // f32 storage
            const [fa, fb] = _pair(arena, d, 8);
            const [fla, flb] = _pair(arena, n, 0, true);
            const s32a = core.llRangeF32(
              fam.code,
              fam.param,
              D.x32,
              D.y,
              d,
              start,
              end,
              D.theta,
              fa,
              fla,
              0,
              0,
            );
            const s32b = ref.llRangeF32(
              fam.code,
              fam.param,
              D.x32,
              D.y,
              d,
              start,
              end,
              D.theta,
              fb,
              flb,
              0,
              0,
            );
            _close(s32a, s32b, "Σℓ f32");
            _close(arena.readF64(fa, d), arena.readF64(fb, d), "grad f32");
            _close(arena.readF64(fla, m), arena.readF64(flb, m), "ℓᵢ f32");
          }
        });
      }
    }
  });

  Deno.test(
    `llIdx() matches the reference on gathered rows [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const fam of FAMILIES) {
        for (const [n, d] of SHAPES) {
          await t.step(`${fam.name} n=${n} d=${d}`, () => {
            const D = _data(arena, fam.code, n, d, 77 * n + d);
            for (const m of [1, 2, 5, 16]) {
              const idx = _indices(arena, n, m, m);
              const [ga, gb] = _pair(arena, d, 3);
              const [la, lb] = _pair(arena, m, 0, true);
              const [da, db] = _pair(arena, m, 0, true);
              const [ha, hb] = _pair(arena, m, 0, true);
              _close(
                core.llIdx(fam.code, fam.param, D.x, D.y, d, idx, m, D.theta, ga, la, da, ha),
                ref.llIdx(fam.code, fam.param, D.x, D.y, d, idx, m, D.theta, gb, lb, db, hb),
                "Σℓ",
              );
              _close(arena.readF64(ga, d), arena.readF64(gb, d), "grad");
              _close(arena.readF64(la, m), arena.readF64(lb, m), "ℓᵢ");
              _close(arena.readF64(da, m), arena.readF64(db, m), "dℓ/dη");
              _close(arena.readF64(ha, m), arena.readF64(hb, m), "d²ℓ/dη²");
              const [fa, fb] = _pair(arena, d, 4);
              _close(
                core.llIdxF32(fam.code, fam.param, D.x32, D.y, d, idx, m, D.theta, fa, 0, 0, 0),
                ref.llIdxF32(fam.code, fam.param, D.x32, D.y, d, idx, m, D.theta, fb, 0, 0, 0),
                "Σℓ f32",
              );
              _close(arena.readF64(fa, d), arena.readF64(fb, d), "grad f32");
            }
          });
        }
      }
    },
  );

  Deno.test(
    `llDiffIdx() matches the reference and two llIdx calls, f64 and f32 [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const fam of FAMILIES) {
        for (const [n, d] of SHAPES) {
          await t.step(`${fam.name} n=${n} d=${d}`, () => {
            const D = _data(arena, fam.code, n, d, 91 * n + d);
            for (const m of [1, 2, 5, 16]) {
              const idx = _indices(arena, n, m, m + 7);
              for (const [x, f32] of [[D.x, false], [D.x32, true]] as const) {
                const diff = f32 ? core.llDiffIdxF32 : core.llDiffIdx;
                const rdiff = f32 ? ref.llDiffIdxF32 : ref.llDiffIdx;
                const ll = f32 ? core.llIdxF32 : core.llIdx;
                const [oa, ob] = _pair(arena, m, 0, true);
                const [lp, lc] = _pair(arena, m, 0, true);
                const s = diff(fam.code, fam.param, x, D.y, d, idx, m, D.theta, D.thetaStar, oa);
                const sr = rdiff(fam.code, fam.param, x, D.y, d, idx, m, D.theta, D.thetaStar, ob);
                ll(fam.code, fam.param, x, D.y, d, idx, m, D.thetaStar, 0, lp, 0, 0);
                ll(fam.code, fam.param, x, D.y, d, idx, m, D.theta, 0, lc, 0, 0);
                const p = arena.readF64(lp, m), c = arena.readF64(lc, m);
                const two = p.map((v, k) => v - c[k]);
                // ℓ' − ℓ cancels: compare on the scale of the terms.
                const scale = Math.max(...p.map(Math.abs), ...c.map(Math.abs));
                const got = arena.readF64(oa, m);
                _close(got, arena.readF64(ob, m), `lₖ${f32 ? " f32" : ""}`, scale);
                _close(s, sr, `Σlₖ${f32 ? " f32" : ""}`, scale * m);
                // Same operation order as llIdx: bit-identical to the two-call difference.
                assert.deepEqual(Array.from(got), Array.from(two), "fused ≡ two calls");
              }
            }
          });
        }
      }
    },
  );

  Deno.test(
    `hessRange() accumulates the full XᵀWX like the reference [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const fam of FAMILIES) {
        for (const [n, d] of SHAPES) {
          await t.step(`${fam.name} n=${n} d=${d}`, () => {
            const D = _data(arena, fam.code, n, d, 31 * n + d);
            // a non-symmetric starting matrix checks the accumulate-into semantic
            const [ha, hb] = _pair(arena, d * d, 11);
            core.hessRange(fam.code, fam.param, D.x, D.y, d, 0, n, D.theta, ha);
            ref.hessRange(fam.code, fam.param, D.x, D.y, d, 0, n, D.theta, hb);
            _close(arena.readF64(ha, d * d), arena.readF64(hb, d * d), "hess");
            const [fa, fb] = _pair(arena, d * d, 0, true);
            core.hessRangeF32(fam.code, fam.param, D.x32, D.y, d, Math.min(1, n), n, D.theta, fa);
            ref.hessRangeF32(fam.code, fam.param, D.x32, D.y, d, Math.min(1, n), n, D.theta, fb);
            _close(arena.readF64(fa, d * d), arena.readF64(fb, d * d), "hess f32");
          });
        }
      }
    },
  );

  Deno.test(
    `cvPrepareRange() and cvDiffRange() match the reference [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const fam of FAMILIES) {
        for (const [n, d] of SHAPES) {
          await t.step(`${fam.name} n=${n} d=${d}`, () => {
            const D = _data(arena, fam.code, n, d, 13 * n + d);
            const start = n > 2 ? 1 : 0, m = n - start;
            const [ca, cb] = _pair(arena, 4 * m, 0, true);
            core.cvPrepareRange(fam.code, fam.param, D.x, D.y, d, start, n, D.thetaStar, ca);
            ref.cvPrepareRange(fam.code, fam.param, D.x, D.y, d, start, n, D.thetaStar, cb);
            _close(arena.readF64(ca, 4 * m), arena.readF64(cb, 4 * m), "cv");
            // dᵢ and rᵢ are differences of O(|ℓᵢ|), O(|ℓ'ᵢ|) terms: tolerances scale with those
            const lls = arena.allocF64(m), ds = arena.allocF64(m);
            ref.llRange(fam.code, fam.param, D.x, D.y, d, start, n, D.theta, 0, lls, ds, 0);
            const l = arena.readF64(lls, m), dl = arena.readF64(ds, m);
            const lScale = l.reduce((s, v) => Math.max(s, Math.abs(v)), 0);
            const lSum = l.reduce((s, v) => s + Math.abs(v), 0);
            const dScale = dl.reduce((s, v) => Math.max(s, Math.abs(v)), 0);
            for (const order of [0, 1, 2]) {
              const [da, db] = _pair(arena, m, 0, true);
              const [ra, rb] = _pair(arena, m, 0, true);
              // both read the reference's cache so only cvDiffRange is compared
              _close(
                core.cvDiffRange(
                  fam.code,
                  fam.param,
                  D.x,
                  D.y,
                  cb,
                  d,
                  start,
                  n,
                  D.theta,
                  order,
                  da,
                  ra,
                ),
                ref.cvDiffRange(
                  fam.code,
                  fam.param,
                  D.x,
                  D.y,
                  cb,
                  d,
                  start,
                  n,
                  D.theta,
                  order,
                  db,
                  rb,
                ),
                `Σd order ${order}`,
                lSum,
              );
              _close(arena.readF64(da, m), arena.readF64(db, m), `dᵢ order ${order}`, lScale);
              _close(arena.readF64(ra, m), arena.readF64(rb, m), `rᵢ order ${order}`, dScale);
            }
            // at θ = θ* every difference vanishes (up to rounding)
            const diff = arena.allocF64(m);
            core.cvDiffRange(
              fam.code,
              fam.param,
              D.x,
              D.y,
              ca,
              d,
              start,
              n,
              D.thetaStar,
              2,
              diff,
              0,
            );
            for (const v of arena.readF64(diff, m)) assert.ok(Math.abs(v) < 1e-12, `dᵢ(θ*) = ${v}`);
          });
        }
      }
    },
  );

  Deno.test(
    `gradMomentsRange() and xtwRange() match the reference [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const fam of FAMILIES) {
        for (const [n, d] of SHAPES) {
          await t.step(`${fam.name} n=${n} d=${d}`, () => {
            const D = _data(arena, fam.code, n, d, 17 * n + d);
            const [ga, gb] = _pair(arena, d, 1);
            const [sa, sb] = _pair(arena, d, 2);
            const [oa, ob] = _pair(arena, d * d, 3);
            core.gradMomentsRange(fam.code, fam.param, D.x, D.y, d, 0, n, D.theta, ga, sa, oa);
            ref.gradMomentsRange(fam.code, fam.param, D.x, D.y, d, 0, n, D.theta, gb, sb, ob);
            _close(arena.readF64(ga, d), arena.readF64(gb, d), "grad");
            _close(arena.readF64(sa, d), arena.readF64(sb, d), "sq");
            _close(arena.readF64(oa, d * d), arena.readF64(ob, d * d), "outer");
            const [g2a, g2b] = _pair(arena, d, 4);
            core.gradMomentsRange(fam.code, fam.param, D.x, D.y, d, 0, n, D.theta, g2a, 0, 0);
            ref.gradMomentsRange(fam.code, fam.param, D.x, D.y, d, 0, n, D.theta, g2b, 0, 0);
            _close(arena.readF64(g2a, d), arena.readF64(g2b, d), "grad only");
            const w = arena.allocF64(n);
            arena.writeF64(w, Array.from({ length: n }, (_, i) => Math.cos(i)));
            const [xa, xb] = _pair(arena, d, 5);
            core.xtwRange(D.x, d, 0, n, w, xa);
            ref.xtwRange(D.x, d, 0, n, w, xb);
            _close(arena.readF64(xa, d), arena.readF64(xb, d), "Xᵀw");
          });
        }
      }
    },
  );

  Deno.test(`gatherF64() and gatherF32() copy rows exactly [${backend}]`, { ignore }, () => {
    const { arena, core, ref } = _setup(backend);
    for (const [n, d] of SHAPES) {
      const D = _data(arena, FAMILY_LOGISTIC, n, d, n + d);
      const m = 9, idx = _indices(arena, n, m, 5);
      const [a, b] = _pair(arena, m * d, 0, true);
      core.gatherF64(D.x, d, idx, m, a);
      ref.gatherF64(D.x, d, idx, m, b);
      assert.deepEqual(arena.readF64(a, m * d), arena.readF64(b, m * d));
      const a32 = arena.allocF32(m * d), b32 = arena.allocF32(m * d);
      core.gatherF32(D.x32, d, idx, m, a32);
      ref.gatherF32(D.x32, d, idx, m, b32);
      assert.deepEqual(arena.readF32(a32, m * d), arena.readF32(b32, m * d));
    }
  });

  Deno.test(
    `cvPrepareRangeF32(), xtwRangeF32() and gatherF32AsF64() equal the f64 kernels on widened rows [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const fam of FAMILIES) {
        for (const [n, d] of SHAPES) {
          await t.step(`${fam.name} n=${n} d=${d}`, () => {
            const D = _data(arena, fam.code, n, d, 19 * n + d);
            // the f32 rows widened to f64: the f32 kernels must match these bit for bit
            const wide = arena.allocF64(n * d);
            arena.writeF64(wide, arena.readF32(D.x32, n * d));
            const start = n > 2 ? 1 : 0, m = n - start;
            for (const k of [core, ref]) {
              const [ca, cb] = _pair(arena, 4 * m, 0, true);
              k.cvPrepareRangeF32(fam.code, fam.param, D.x32, D.y, d, start, n, D.thetaStar, ca);
              k.cvPrepareRange(fam.code, fam.param, wide, D.y, d, start, n, D.thetaStar, cb);
              assert.deepEqual(arena.readF64(ca, 4 * m), arena.readF64(cb, 4 * m));
              const w = arena.allocF64(m);
              arena.writeF64(w, Array.from({ length: m }, (_, i) => Math.sin(i + 0.5)));
              const [xa, xb] = _pair(arena, d, 6);
              k.xtwRangeF32(D.x32, d, start, n, w, xa);
              k.xtwRange(wide, d, start, n, w, xb);
              assert.deepEqual(arena.readF64(xa, d), arena.readF64(xb, d));
              const idx = _indices(arena, n, 7, n + d);
              const [ga, gb] = _pair(arena, 7 * d, 0, true);
              k.gatherF32AsF64(D.x32, d, idx, 7, ga);
              k.gatherF64(wide, d, idx, 7, gb);
              assert.deepEqual(arena.readF64(ga, 7 * d), arena.readF64(gb, 7 * d));
            }
            const [ra, rb] = _pair(arena, 4 * m, 0, true);
            core.cvPrepareRangeF32(fam.code, fam.param, D.x32, D.y, d, start, n, D.thetaStar, ra);
            ref.cvPrepareRangeF32(fam.code, fam.param, D.x32, D.y, d, start, n, D.thetaStar, rb);
            _close(arena.readF64(ra, 4 * m), arena.readF64(rb, 4 * m), "cv f32");
          });
        }
      }
    },
  );

  Deno.test(
    `axpy(), dot(), matvec() and mulElem() match the reference [${backend}]`,
    { ignore },
    async (t) => {
      const { arena, core, ref } = _setup(backend);
      for (const [r, c] of SHAPES) {
        await t.step(`r=${r} c=${c}`, () => {
          const u = _rng(r * 100 + c);
          const A = arena.allocF64(r * c), x = arena.allocF64(c), v = arena.allocF64(c);
          arena.writeF64(A, Array.from({ length: r * c }, () => _normal(u)));
          arena.writeF64(x, Array.from({ length: c }, () => _normal(u)));
          arena.writeF64(v, Array.from({ length: c }, () => _normal(u)));
          const [ya, yb] = _pair(arena, c, 9);
          core.axpy(c, 0.37, x, ya);
          ref.axpy(c, 0.37, x, yb);
          _close(arena.readF64(ya, c), arena.readF64(yb, c), "axpy");
          _close(core.dot(c, x, v), ref.dot(c, x, v), "dot");
          const [ma, mb] = _pair(arena, r, 10);
          core.matvec(r, c, A, x, ma);
          ref.matvec(r, c, A, x, mb);
          _close(arena.readF64(ma, r), arena.readF64(mb, r), "matvec");
          const [ea, eb] = _pair(arena, c, 12);
          core.mulElem(c, v, x, ea);
          ref.mulElem(c, v, x, eb);
          assert.deepEqual(arena.readF64(ea, c), arena.readF64(eb, c));
        });
      }
    },
  );
}

// ─── arena and loader ───────────────────────────────────────────────────────

Deno.test("Arena.alloc() reuses freed blocks and coalesces neighbours", async (t) => {
  const arena = new Arena({ initialBytes: 65536 });
  await t.step("pointers are aligned, distinct and never 0", () => {
    const a = arena.alloc(3), b = arena.alloc(100, 64), c = arena.allocF64(5);
    assert.ok(a > 0 && a % 8 === 0 && b % 64 === 0 && c % 8 === 0);
    const blocks = [[a, 8], [b, 104], [c, 40]].sort((u, v) => u[0] - v[0]);
    for (let k = 1; k < 3; k++) assert.ok(blocks[k - 1][0] + blocks[k - 1][1] <= blocks[k][0]);
    assert.ok(c < b, "the alignment pad before b is reused first-fit");
    assert.equal(arena.bytesInUse, 8 + 104 + 40);
    for (const p of [a, b, c]) arena.free(p);
    assert.equal(arena.bytesInUse, 0);
  });
  await t.step("a freed middle block is reused first-fit", () => {
    const a = arena.alloc(64), b = arena.alloc(64), c = arena.alloc(64);
    arena.free(b);
    assert.equal(arena.alloc(32), b);
    assert.equal(arena.alloc(32), b + 32);
    arena.free(a);
    arena.free(b);
    arena.free(b + 32);
    assert.equal(arena.alloc(192 - 64), a, "a + b coalesced");
    arena.free(a);
    arena.free(c);
  });
  await t.step("allocations are zero-filled", () => {
    const p = arena.allocF64(4);
    arena.writeF64(p, [1, 2, 3, 4]);
    arena.free(p);
    assert.deepEqual(Array.from(arena.readF64(arena.allocF64(4), 4)), [0, 0, 0, 0]);
  });
  await t.step("errors name the bad value", () => {
    assert.throws(() => arena.alloc(MAX_BYTES + 8), {
      name: "RangeError",
      message: /alloc\(4294967304\)/,
    });
    assert.throws(() => arena.alloc(-1), { name: "RangeError", message: /got -1/ });
    assert.throws(() => arena.alloc(8, 3), { name: "RangeError", message: /got 3/ });
    assert.throws(() => arena.free(12345), { name: "RangeError", message: /free\(12345\)/ });
    assert.throws(() => arena.f64(4, 1), { name: "RangeError", message: /got 4/ });
    assert.throws(() => arena.f64(8, 1e9), { name: "RangeError", message: /past the memory/ });
  });
});

Deno.test("loadCore() rejects unknown backends and shares memory on request", () => {
  assert.throws(() => loadCore({ backend: "gpu" as CoreBackend }), {
    name: "TypeError",
    message: /got gpu/,
  });
  const arena = loadCore({ shared: true });
  assert.ok(arena.memory.buffer instanceof SharedArrayBuffer);
  const x = arena.allocF64(3);
  arena.writeF64(x, [1, 2, 3]);
  assert.equal(arena.exports.dot(3, x, x), 14);
  arena.grow(1);
  assert.equal(arena.exports.dot(3, x, x), 14);
});

// ─── gradient only ──────────────────────────────────────────────────────────
// gradRange / gradRangeF32 (core/as/likelihood.ts: ∇Σℓᵢ without Σℓᵢ) against
// the gradient the combined pass llRange / llRangeF32 accumulates for the same
// rows: equal bit for bit on every backend, family, storage and shape (odd d,
// n not a multiple of the four-row block, ranges that start at an odd row),
// since leapfrog steps swap one for the other and a seeded draw must not move.

const GRAD_DIMS = [1, 2, 3, 5, 29, 30, 81];
const GRAD_ROWS = [1, 2, 3, 5, 7, 23, 101];

function _gradBits(a: Float64Array): string {
  return Array.from(new BigUint64Array(a.buffer, a.byteOffset, a.length), (b) => b.toString(16))
    .join(",");
}

for (const backend of BACKENDS) {
  const ignore = !AVAILABLE.includes(backend);
  Deno.test(`gradRange() adds llRange()'s gradient bit for bit [${backend}]`, { ignore }, () => {
    const { arena, core } = _setup(backend);
    let cases = 0;
    for (const fam of FAMILIES) {
      for (const d of GRAD_DIMS) {
        for (const n of GRAD_ROWS) {
          const D = _data(arena, fam.code, n + 3, d, 1000 * d + n);
          for (const [start, end] of [[0, n], [1, n + 1], [3, n + 3]]) {
            for (const f32 of [false, true]) {
              const x = f32 ? D.x32 : D.x;
              const ll: CoreExports["llRange"] = f32 ? core.llRangeF32 : core.llRange;
              const grad: CoreExports["gradRange"] = f32 ? core.gradRangeF32 : core.gradRange;
              // accumulate into the same non-zero start values
              const [g1, g2] = _pair(arena, d, 7 * d + n);
              ll(fam.code, fam.param, x, D.y, d, start, end, D.theta, g1, 0, 0, 0);
              grad(fam.code, fam.param, x, D.y, d, start, end, D.theta, g2);
              const a = arena.f64(g1, d).slice(), b = arena.f64(g2, d).slice();
              assert.ok(a.every(Number.isFinite), `${fam.name} d=${d} n=${n}: finite`);
              assert.equal(
                _gradBits(b),
                _gradBits(a),
                `${fam.name} ${f32 ? "f32" : "f64"} d=${d} rows [${start}, ${end})`,
              );
              cases++;
            }
          }
        }
      }
    }
    assert.equal(cases, FAMILIES.length * GRAD_DIMS.length * GRAD_ROWS.length * 3 * 2);
  });

  Deno.test(`gradRange() changes with θ and leaves an empty range alone [${backend}]`, {
    ignore,
  }, () => {
    const { arena, core } = _setup(backend);
    const d = 5, n = 9, D = _data(arena, FAMILIES[0].code, n, d, 3);
    const [g1, g2] = _pair(arena, d, 11, true);
    core.gradRange(FAMILIES[0].code, 0, D.x, D.y, d, 0, n, D.theta, g1);
    core.gradRange(FAMILIES[0].code, 0, D.x, D.y, d, 0, n, D.thetaStar, g2);
    assert.notEqual(_gradBits(arena.f64(g1, d).slice()), _gradBits(arena.f64(g2, d).slice()));
    const before = arena.f64(g1, d).slice();
    core.gradRange(FAMILIES[0].code, 0, D.x, D.y, d, 4, 4, D.theta, g1);
    assert.deepEqual(arena.f64(g1, d).slice(), before);
    assert.throws(() => core.gradRange(3, 0, D.x, D.y, d, 0, n, D.theta, g1), /family/);
  });
}
