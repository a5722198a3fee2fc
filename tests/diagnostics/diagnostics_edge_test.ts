/**
 * Diagnostics on awkward chains — constant, stuck, nearly constant, one
 * constant chain among varying ones, NaN/±Infinity, 1 to 6 draws — against
 * the rules of the `posterior` R package 1.7.1 (stan-dev/posterior,
 * R/convergence.R: `should_return_NA`, `.rhat`, `.ess`, `.ess_quantile`;
 * R/misc.R: `is_constant`; R/split_chains.R: `.split_chains`).
 *
 * Reference values come from two places: closed forms derived by hand from
 * that code (stated next to each case), and `_posterior*` below, a literal
 * transcription of those R functions (direct O(n²) autocovariance sums, no
 * FFT, no shared code with diagnostics/ apart from Φ⁻¹), where a closed form
 * would be impractical.
 */
import { strict as assert } from "node:assert";
import { _normalQuantile } from "../../diagnostics/_special.ts";
import {
  essBulk,
  essTail,
  formatSummaryTable,
  rhat,
  summarize,
  summaryToCsv,
} from "../../diagnostics/mod.ts";

// ---------------------------------------------------------------------------
// Transcription of posterior 1.7.1 (R indices shifted to 0-based).

/** `is_constant`: abs(max(x) − min(x)) < .Machine$double.eps. */
function _isConstantR(x: number[]): boolean {
  return Math.abs(Math.max(...x) - Math.min(...x)) < 2.220446049250313e-16;
}

/** `should_return_NA`: anyNA || anyInfinite || is_constant (pooled). */
function _shouldReturnNA(chains: number[][]): boolean {
  const all = chains.flat();
  return all.some((v) => !Number.isFinite(v)) || _isConstantR(all);
}

/** `.split_chains`: halves, middle draw dropped; 1 iteration left unsplit. */
function _splitR(chains: number[][]): number[][] {
  const n = chains[0].length;
  if (n === 1) return chains;
  const half = n / 2;
  return chains.flatMap((c) => [c.slice(0, Math.floor(half)), c.slice(Math.ceil(half + 1) - 1)]);
}

/** `z_scale` with average ranks and Blom's c = 3/8. */
function _zScaleR(chains: number[][]): number[][] {
  const all = chains.flat();
  const S = all.length;
  const rank = (v: number) =>
    all.filter((w) => w < v).length + (all.filter((w) => w === v).length + 1) / 2;
  return chains.map((c) => c.map((v) => _normalQuantile((rank(v) - 3 / 8) / (S + 1 / 4))));
}

function _meanR(x: number[]): number {
  return x.reduce((a, b) => a + b, 0) / x.length;
}

function _varR(x: number[]): number {
  // R's mean() refines the sum with a second pass, so equal values have
  // exactly their value as mean and variance 0.
  if (x.length > 1 && x.every((v) => v === x[0])) return 0;
  const m = _meanR(x);
  return x.reduce((a, v) => a + (v - m) ** 2, 0) / (x.length - 1);
}

/** `autocovariance`: zeros when var(x) == 0, else the biased estimate. */
function _acovR(x: number[]): number[] {
  const n = x.length;
  if (_varR(x) === 0) return x.map(() => 0);
  const m = _meanR(x);
  return x.map((_, t) => {
    let s = 0;
    for (let i = 0; i + t < n; i++) s += (x[i] - m) * (x[i + t] - m);
    return s / n;
  });
}

/** `.rhat` on (split) chains. */
function _posteriorRhatBasic(chains: number[][]): number {
  if (_shouldReturnNA(chains)) return NaN;
  const n = chains[0].length;
  const B = n * _varR(chains.map(_meanR));
  const W = _meanR(chains.map(_varR));
  return Math.sqrt((B / W + n - 1) / n);
}

/** `.ess` on (split) chains. */
function _posteriorEss(chains: number[][]): number {
  const m = chains.length;
  const n = chains[0].length;
  if (n < 3 || _shouldReturnNA(chains)) return NaN;
  const acov = chains.map(_acovR);
  const acovMeans = acov[0].map((_, t) => _meanR(acov.map((a) => a[t])));
  const meanVar = (acovMeans[0] * n) / (n - 1);
  let varPlus = (meanVar * (n - 1)) / n;
  if (m > 1) varPlus += _varR(chains.map(_meanR));
  const rho = new Array<number>(n).fill(0);
  let t = 0;
  let even = 1;
  rho[0] = even;
  let odd = 1 - (meanVar - acovMeans[1]) / varPlus;
  rho[1] = odd;
  while (t < n - 5 && !Number.isNaN(even + odd) && even + odd > 0) {
    t += 2;
    even = 1 - (meanVar - acovMeans[t]) / varPlus;
    odd = 1 - (meanVar - acovMeans[t + 1]) / varPlus;
    if (even + odd >= 0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
  const maxT = t;
  if (even > 0) rho[maxT] = even;
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }
  // R's rho_hat_t[1:max_t] is rho[0] alone when max_t = 0 (1:0 = c(1, 0)).
  const head = maxT === 0 ? rho[0] : rho.slice(0, maxT).reduce((a, b) => a + b, 0);
  const S = m * n;
  const tau = Math.max(-1 + 2 * head + rho[maxT], 1 / Math.log10(S));
  return S / tau;
}

function _quantile7(x: number[], p: number): number {
  const s = [...x].sort((a, b) => a - b);
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (h - lo) * (s[Math.ceil(h)] - s[lo]);
}

function _posteriorEssBulk(chains: number[][]): number {
  return _posteriorEss(_zScaleR(_splitR(chains)));
}

function _posteriorEssTail(chains: number[][]): number {
  const q = (p: number) => {
    if (_shouldReturnNA(chains)) return NaN;
    const cut = _quantile7(chains.flat(), p);
    return _posteriorEss(_splitR(chains.map((c) => c.map((v) => (v <= cut ? 1 : 0)))));
  };
  const a = q(0.05), b = q(0.95);
  return Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b); // R's min propagates NA
}

function _posteriorRhat(chains: number[][]): number {
  const bulk = _posteriorRhatBasic(_zScaleR(_splitR(chains)));
  const median = _quantile7(chains.flat(), 0.5);
  const tail = _posteriorRhatBasic(
    _zScaleR(_splitR(chains.map((c) => c.map((v) => Math.abs(v - median))))),
  );
  return Number.isNaN(bulk) || Number.isNaN(tail) ? NaN : Math.max(bulk, tail);
}

function _posteriorMcseMean(chains: number[][]): number {
  return Math.sqrt(_varR(chains.flat())) / Math.sqrt(_posteriorEss(_splitR(chains)));
}

// ---------------------------------------------------------------------------

/** A deterministic, autocorrelated chain (AR(1) driven by a Park–Miller stream). */
function arChain(n: number, seed: number, phi = 0.5): number[] {
  let s = seed;
  let x = 0;
  return Array.from({ length: n }, () => {
    s = (s * 16807) % 2147483647;
    x = phi * x + (s / 2147483647 - 0.5);
    return x;
  });
}

function close(actual: number, expected: number, what: string): void {
  if (Number.isNaN(expected)) {
    assert.ok(Number.isNaN(actual), `${what}: expected NaN, got ${actual}`);
    return;
  }
  if (!Number.isFinite(expected)) {
    assert.equal(actual, expected, what);
    return;
  }
  const err = Math.abs(actual - expected) / Math.max(1, Math.abs(expected));
  assert.ok(err < 1e-9, `${what}: expected ${expected}, got ${actual}`);
}

/** Checks a summary row's four diagnostics against the transcription. */
function assertMatchesPosterior(chains: number[][], name = "p"): void {
  const [row] = summarize(chains.map((c) => [c]), [name]);
  close(row.essBulk, _posteriorEssBulk(chains), "ess_bulk");
  close(row.essTail, _posteriorEssTail(chains), "ess_tail");
  close(row.rhat, _posteriorRhat(chains), "rhat");
  close(row.mcseMean, _posteriorMcseMean(chains), "mcse_mean");
  // A diagnostic has a reason exactly when it is NaN.
  for (const key of ["essBulk", "essTail", "rhat", "mcseMean"] as const) {
    assert.equal(row.naReasons?.[key] !== undefined, Number.isNaN(row[key]), key);
  }
}

Deno.test("summarize() on constant chains follows posterior's NA rules", async (t) => {
  await t.step("all draws equal: every diagnostic NaN, reason constant", () => {
    const c = Array.from({ length: 40 }, () => 0.5);
    const [row] = summarize([[c], [c], [c]], ["sigma"]);
    for (const key of ["essBulk", "essTail", "rhat", "mcseMean"] as const) {
      assert.ok(Number.isNaN(row[key]), key);
      assert.equal(row.naReasons?.[key], "constant");
    }
    assert.equal(row.mean, 0.5);
    assert.equal(row.sd, 0);
    assert.equal(row.warnings?.length, 1);
    assert.match(row.warnings![0], /parameter "sigma".*all 120 draws equal 0\.5/);
  });

  await t.step("one constant chain among varying ones: no crash, no NA (posterior ≥ 1.2)", () => {
    // The case that crashed in fft.ts via essTail. posterior dropped the
    // per-chain constant test, so everything is computed; the constant chain's
    // autocovariances are zero.
    const varying = arChain(50, 11);
    const middle = Array.from({ length: 50 }, () => _quantile7(varying, 0.5));
    assertMatchesPosterior([varying, middle, arChain(50, 12)]);
    const [row] = summarize([[varying], [middle], [arChain(50, 12)]], ["b"]);
    assert.ok(Number.isFinite(row.essTail) && Number.isFinite(row.rhat));
    assert.match(row.warnings!.join("\n"), /parameter "b": chain 1 is constant while others vary/);
    // The public functions no longer crash either.
    assert.ok(essTail([varying, middle]) > 0);
  });

  await t.step("a constant chain at the maximum makes the 95% indicator constant", () => {
    // With half the draws equal to the maximum 5, q̂₀.₉₅ = 5 and I(x ≤ 5) ≡ 1:
    // posterior's .ess returns NA for that quantile and min() propagates it.
    const varying = arChain(20, 3);
    const top = Array.from({ length: 20 }, () => 5);
    assertMatchesPosterior([varying, top]);
    const [row] = summarize([[varying], [top]], ["b"]);
    assert.ok(Number.isNaN(row.essTail));
    assert.equal(row.naReasons?.essTail, "constant_indicator");
    assert.ok(Number.isFinite(row.essBulk) && Number.isFinite(row.rhat));
    assert.ok(Number.isNaN(essTail([varying, top])));
  });

  await t.step("stuck chains: R̂ = +Infinity and ESS = S/(2·T) in closed form", () => {
    // Three chains of 20 stuck at 0, 1 and 5. Split chains of n = 10 are each
    // constant: all autocovariances vanish, var⁺ = var(chain means) > 0 and
    // every ρ̂_t = 1. Geyer's loop stops at the first even T ≥ n − 5, T = 6,
    // so τ̂ = −1 + 2·6 + 1 = 12 and ESS = 60/12 = 5. W = 0 gives R̂ = ∞; the
    // folded draws |x − 1| ∈ {1, 0, 4} are not constant, so R̂ stays ∞.
    const chains = [0, 1, 5].map((v) => Array.from({ length: 20 }, () => v));
    assertMatchesPosterior(chains);
    const [row] = summarize(chains.map((c) => [c]), ["mu"]);
    close(row.essBulk, 5, "ess_bulk");
    assert.equal(row.rhat, Infinity);
    close(essBulk(chains), 5, "essBulk()");
    assert.equal(rhat(chains), Infinity);
    assert.match(row.warnings!.join("\n"), /"mu": every half-chain is constant.*stuck/);
  });

  await t.step("two stuck chains symmetric about the median: R̂ NaN (folded constant)", () => {
    // |x − 2.5| ≡ 2.5 for chains at 0 and 5: posterior's tail .rhat is NA.
    // ESS: 2 chains of 20 → 4 split chains of 10, T = 6, τ̂ = 12, ESS = 40/12.
    const chains = [0, 5].map((v) => Array.from({ length: 20 }, () => v));
    assertMatchesPosterior(chains);
    const [row] = summarize(chains.map((c) => [c]), ["mu"]);
    assert.equal(row.naReasons?.rhat, "constant_folded");
    close(row.essBulk, 40 / 12, "ess_bulk");
  });

  await t.step("a discrete parameter: tail-ESS NaN through the indicator", () => {
    // 0/1 draws with 10% ones: q̂₀.₉₅ = 1 and I(x ≤ 1) ≡ 1.
    const chain = (k: number) => Array.from({ length: 30 }, (_, i) => ((i + k) % 10 === 0 ? 1 : 0));
    const chains = [chain(0), chain(3)];
    assertMatchesPosterior(chains);
    const [row] = summarize(chains.map((c) => [c]), ["z"]);
    assert.equal(row.naReasons?.essTail, "constant_indicator");
    assert.match(row.warnings![0], /"z": ess_tail is NaN/);
  });
});

Deno.test("summarize() on nearly constant chains", async (t) => {
  const a = arChain(40, 5);
  const b = arChain(40, 6);

  await t.step("spread below ε: bulk-ESS and R̂ from ranks, tail-ESS and MCSE NaN", () => {
    // is_constant() is an absolute test on the draws (max − min < 2.2e-16),
    // but bulk-ESS and R̂ test the rank-normalised draws, which are not
    // constant. Ranks do not see the scale, so those equal the unscaled values.
    const tiny = [a.map((v) => v * 1e-17), b.map((v) => v * 1e-17)];
    assertMatchesPosterior(tiny);
    const [row] = summarize(tiny.map((c) => [c]), ["tiny"]);
    const [ref] = summarize([[a], [b]], ["ref"]);
    close(row.essBulk, ref.essBulk, "ess_bulk is scale-free");
    close(row.rhat, ref.rhat, "rhat is scale-free");
    assert.equal(row.naReasons?.essTail, "constant");
    assert.equal(row.naReasons?.mcseMean, "constant");
    assert.match(row.warnings![0], /within machine epsilon/);
  });

  await t.step("spread just above ε: everything computed", () => {
    const small = [a.map((v) => 1 + v * 1e-14), b.map((v) => 1 + v * 1e-14)];
    assertMatchesPosterior(small);
    const [row] = summarize(small.map((c) => [c]), ["small"]);
    assert.equal(row.naReasons, undefined);
    assert.equal(row.warnings, undefined);
  });
});

Deno.test("summarize() on non-finite draws", async (t) => {
  await t.step("a NaN draw: every diagnostic, the mean and the quantiles NaN", () => {
    const c = arChain(20, 7);
    c[13] = NaN;
    const [row] = summarize([[c], [arChain(20, 8)]], ["beta[2]"]);
    for (const key of ["mean", "sd", "q5", "q50", "q95", "essBulk", "essTail", "rhat"] as const) {
      assert.ok(Number.isNaN(row[key]), key);
    }
    assert.equal(row.naReasons?.rhat, "non_finite");
    assert.match(row.warnings![0], /parameter "beta\[2\]".*NaN or infinite/);
  });

  await t.step("an infinite draw: diagnostics NaN, the mean infinite (as R)", () => {
    const c = arChain(20, 7);
    c[2] = -Infinity;
    const [row] = summarize([[c]], ["x"]);
    assert.equal(row.mean, -Infinity);
    assert.equal(row.q5, -Infinity);
    assert.ok(Number.isNaN(row.essBulk));
    assert.equal(row.naReasons?.essBulk, "non_finite");
  });

  await t.step("one bad parameter does not spoil the others", () => {
    const good = arChain(30, 9);
    const [ok, bad] = summarize([[good, good.map(() => NaN)]], ["a", "b"]);
    assert.ok(Number.isFinite(ok.essBulk));
    assert.equal(ok.warnings, undefined);
    assert.equal(bad.naReasons?.essBulk, "non_finite");
  });
});

Deno.test("summarize() on very short chains", async (t) => {
  await t.step("1 to 3 draws: R̂ and ESS NaN (too_short); 4–5: R̂ only; 6: all", () => {
    // posterior: 1 draw is not split and var() of one value is NA; 2–3 draws
    // split into halves of 1 (NA); .ess needs ≥ 3 draws per split chain.
    for (let n = 1; n <= 7; n++) {
      const chains = [arChain(n, 21), arChain(n, 22)];
      assertMatchesPosterior(chains);
      const [row] = summarize(chains.map((c) => [c]), ["p"]);
      assert.equal(row.naReasons?.rhat, n < 4 ? "too_short" : undefined, `n = ${n}`);
      assert.equal(row.naReasons?.essBulk, n < 6 ? "too_short" : undefined, `n = ${n}`);
      if (n < 6) assert.match(row.warnings![0], new RegExp(`only ${n} draws?`));
    }
  });

  await t.step("a single chain of a single draw", () => {
    const [row] = summarize([[[3]]], ["only"]);
    assert.equal(row.mean, 3);
    assert.ok(Number.isNaN(row.sd)); // R's sd() of one value is NA
    assert.equal(row.q50, 3);
    assert.deepEqual(row.naReasons, {
      rhat: "too_short",
      essBulk: "too_short",
      essTail: "too_short",
      mcseMean: "too_short",
    });
  });
});

Deno.test("summarize() warns when an ESS is capped at S·log₁₀(S), as posterior 1.7.1", () => {
  // Alternating 0, 1, 0, 1, …: ρ̂_1 ≈ −1 drives τ̂ below its floor 1/log₁₀(S).
  const chains = [0, 1, 2, 3].map(() => [Array.from({ length: 50 }, (_, i) => i % 2)]);
  const [row] = summarize(chains, ["alt"]);
  close(row.essBulk, 200 * Math.log10(200), "ess_bulk");
  assert.match(row.warnings!.join("\n"), /"alt": ess_bulk.* capped at S·log₁₀\(S\) = 460/);
});

Deno.test("formatSummaryTable() and summaryToCsv() render NaN and infinite diagnostics", () => {
  const stuck = [0, 1, 5].map((v) => [Array.from({ length: 8 }, () => v)]);
  const rows = summarize(stuck, ["mu"]);
  const table = formatSummaryTable(rows);
  assert.match(table.split("\n")[1], /Infinity/);
  const csv = summaryToCsv(summarize([[[1, 1, 1, 1, 1, 1]]], ["c"]));
  assert.equal(csv.split("\n")[1], "c,1,0,1,1,1,NaN,NaN,NaN,NaN");
});
