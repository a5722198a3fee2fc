/**
 * The Newton ascent that tells a maximum from a drift (samplers/unbounded_ascent.ts).
 */
import assert from "node:assert/strict";
import { findUnboundedAscent } from "../../samplers/unbounded_ascent.ts";

Deno.test("findUnboundedAscent: a maximum converges, a drift is unbounded", () => {
  // A proper quadratic: converged at the mode.
  const q = findUnboundedAscent(
    (t, g) => {
      g[0] = -(t[0] - 3);
      g[1] = -4 * (t[1] + 1);
      return -0.5 * (t[0] - 3) ** 2 - 2 * (t[1] + 1) ** 2;
    },
    new Float64Array(2),
    {
      hessianFn: (_t, h) => {
        h.set([-1, 0, 0, -4]);
      },
    },
  );
  assert.equal(q.kind, "converged");
  assert.ok(Math.abs(q.position[0] - 3) < 1e-9 && Math.abs(q.position[1] + 1) < 1e-9);
  // log σ(t₁ − t₂) − t₂²/2: unbounded along (1, 0) only.
  const fn = (t: Float64Array, g: Float64Array) => {
    const z = t[0] - t[1], s = 1 / (1 + Math.exp(z));
    g[0] = s;
    g[1] = -s - t[1];
    return -Math.log1p(Math.exp(-z)) - 0.5 * t[1] * t[1];
  };
  const u = findUnboundedAscent(fn, new Float64Array(2), {
    hessianFn: (t, h) => {
      const p = 1 / (1 + Math.exp(-(t[0] - t[1]))), w = p * (1 - p);
      h.set([-w, w, w, -w - 1]);
    },
  });
  assert.equal(u.kind, "unbounded");
  assert.ok(u.direction![0] > 0.99, `direction ${u.direction}`);
});
