/**
 * `tallmc sample` on its default path at a real size: a generated logistic
 * data set of n = 100,000 rows × 30 covariates, default chains (4), chains in
 * workers (the default), and the samplers users run on tall data. Each run
 * must exit 0, write a complete draws file and give means within the
 * posterior's reach of the generating coefficients. And the progress display
 * with workers is monotone and ends at 100 %.
 *
 * @module
 */
import assert from "node:assert/strict";
import { runCli } from "../_cli_fixtures.ts";
import { ChainProgress } from "../../cli/progress.ts";

const N = 100_000, D = 30;
const CSV = `/tmp/tallmc_cli_default_${N}x${D}.csv`;
const CHAINS = 4;

/** The generating coefficients: intercept 0.3, then ±0.5/(1 + (j−1)/10). */
const BETA = [
  0.3,
  ...Array.from({ length: D }, (_, j) => (j % 2 === 0 ? 1 : -1) * 0.5 / (1 + j / 10)),
];

interface Generated {
  /** Row-major n × (D + 1), intercept column first, as written (4 decimals). */
  x: Float64Array;
  y: Uint8Array;
}

let _generated: Generated | null = null;

/** The data set (deterministic), written to {@link CSV} once per process. */
async function _data(): Promise<Generated> {
  if (_generated !== null) return _generated;
  let s = 12345 >>> 0;
  const u = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const p = D + 1;
  const x = new Float64Array(N * p), y = new Uint8Array(N);
  const lines = [Array.from({ length: D }, (_, j) => `x${j + 1}`).join(",") + ",y"];
  for (let i = 0; i < N; i++) {
    x[i * p] = 1;
    let eta = BETA[0];
    const cells: string[] = [];
    for (let j = 1; j < p; j++) {
      const cell = normal().toFixed(4);
      x[i * p + j] = Number(cell);
      eta += BETA[j] * x[i * p + j];
      cells.push(cell);
    }
    y[i] = u() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
    cells.push(String(y[i]));
    lines.push(cells.join(","));
  }
  const tmp = `${CSV}.${Deno.pid}.tmp`;
  await Deno.writeTextFile(tmp, lines.join("\n") + "\n");
  await Deno.rename(tmp, CSV);
  _generated = { x, y };
  return _generated;
}

/**
 * The posterior sd of every coefficient to first order: √diag(I(β)⁻¹), I the
 * Fisher information of the logistic likelihood at the generating β (the
 * normal(0, 10²) default prior is negligible at this n).
 */
function _referenceSd(data: Generated): number[] {
  const p = D + 1, info = new Float64Array(p * p);
  for (let i = 0; i < N; i++) {
    const row = data.x.subarray(i * p, (i + 1) * p);
    let eta = 0;
    for (let j = 0; j < p; j++) eta += BETA[j] * row[j];
    const mu = 1 / (1 + Math.exp(-eta)), w = mu * (1 - mu);
    for (let a = 0; a < p; a++) {
      const wa = w * row[a];
      for (let b = 0; b <= a; b++) info[a * p + b] += wa * row[b];
    }
  }
  // Cholesky I = L Lᵀ, then diag(I⁻¹)_j = ‖L⁻¹ e_j‖² summed over the columns of L⁻¹.
  const l = new Float64Array(p * p);
  for (let a = 0; a < p; a++) {
    for (let b = 0; b <= a; b++) {
      let v = info[a * p + b];
      for (let k = 0; k < b; k++) v -= l[a * p + k] * l[b * p + k];
      l[a * p + b] = a === b ? Math.sqrt(v) : v / l[b * p + b];
    }
  }
  const variance = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    // z = L⁻¹ e_j by forward substitution; Σ_j z_a² over j gives diag(L⁻ᵀ L⁻¹)_a.
    const z = new Float64Array(p);
    for (let a = j; a < p; a++) {
      let v = a === j ? 1 : 0;
      for (let k = j; k < a; k++) v -= l[a * p + k] * z[k];
      z[a] = v / l[a * p + a];
    }
    for (let a = j; a < p; a++) variance[j] += z[a] * z[a];
  }
  return Array.from(variance, Math.sqrt);
}

interface Draws {
  names: string[];
  /** 0-based chain → rows of θ (in iteration order, 0-based). */
  chains: Map<number, { iteration: number; theta: number[]; sign: number }[]>;
}

async function _readDraws(path: string): Promise<Draws> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  assert.equal(lines.at(-1), "", "the draws file ends with a newline");
  const header = lines[0].split(",");
  assert.deepEqual(header.slice(0, 3), [".chain", ".iteration", ".draw"]);
  const signAt = header.indexOf("sign");
  const names = header.slice(3).filter((n) => n !== "sign");
  const chains: Draws["chains"] = new Map();
  for (const line of lines.slice(1, -1)) {
    const cells = line.split(",").map(Number);
    assert.equal(cells.length, header.length, `a complete row: ${line.slice(0, 80)}`);
    assert.ok(cells.every(Number.isFinite), `finite cells: ${line.slice(0, 80)}`);
    const theta = cells.filter((_, k) => k >= 3 && k !== signAt);
    // The file's .chain and .iteration are 1-based; kept here 0-based.
    const chain = cells[0] - 1;
    const rows = chains.get(chain) ?? [];
    rows.push({ iteration: cells[1] - 1, theta, sign: signAt < 0 ? 1 : cells[signAt] });
    chains.set(chain, rows);
  }
  for (const rows of chains.values()) rows.sort((a, b) => a.iteration - b.iteration);
  return { names, chains };
}

/**
 * Run the CLI with the default flags plus `extra`, check the exit code and the
 * draws file, and compare the (sign-weighted) means with the generating
 * coefficients: |mean − β| ≤ 5 √(sd_ref² + MCSE²), MCSE from batch means, and
 * the draws' sd within [0.5, 2.5] × sd_ref (wide enough for the short runs of
 * the full-data samplers, whose four chains have not quite met).
 */
async function _check(sampler: string, extra: string[], numSamples: number): Promise<void> {
  const data = await _data();
  const sdRef = _referenceSd(data);
  const out = await Deno.makeTempFile({ prefix: `tallmc_default_${sampler}_`, suffix: ".csv" });
  await Deno.remove(out);
  try {
    const run = await runCli([
      "sample",
      "--family",
      "logistic",
      "--data",
      CSV,
      "--response",
      "y",
      "--sampler",
      sampler,
      ...extra,
      "--out",
      out,
    ]);
    assert.equal(run.code, 0, `exit 0, got ${run.code}: ${run.err}`);
    assert.doesNotMatch(run.err, /error|does not fit/i);
    assert.match(run.out, new RegExp(`${CHAINS} chain\\(s\\) × ${numSamples} draws, n = ${N}`));
    const draws = await _readDraws(out);
    assert.deepEqual(draws.names, [
      "(Intercept)",
      ...Array.from({ length: D }, (_, j) => `x${j + 1}`),
    ]);
    assert.deepEqual(
      [...draws.chains.keys()].sort((a, b) => a - b),
      Array.from({ length: CHAINS }, (_, c) => c),
    );
    for (const rows of draws.chains.values()) {
      assert.deepEqual(
        rows.map((r) => r.iteration),
        Array.from({ length: numSamples }, (_, k) => k),
      );
    }
    const p = D + 1, batches = 10;
    for (let j = 0; j < p; j++) {
      // Per chain: sign-weighted batch means; the mean over all chains' batches.
      const batchMeans: number[] = [];
      let sum = 0, sumSq = 0, weight = 0;
      for (const rows of draws.chains.values()) {
        const size = Math.floor(rows.length / batches);
        for (let b = 0; b < batches; b++) {
          let bs = 0, bw = 0;
          for (const r of rows.slice(b * size, (b + 1) * size)) {
            bs += r.sign * r.theta[j];
            bw += r.sign;
          }
          batchMeans.push(bs / bw);
        }
        for (const r of rows) {
          sum += r.sign * r.theta[j];
          sumSq += r.sign * r.theta[j] ** 2;
          weight += r.sign;
        }
      }
      const mean = sum / weight, sd = Math.sqrt(Math.max(0, sumSq / weight - mean * mean));
      const k = batchMeans.length;
      const bm = batchMeans.reduce((a, v) => a + v, 0) / k;
      const mcse = Math.sqrt(batchMeans.reduce((a, v) => a + (v - bm) ** 2, 0) / (k - 1) / k);
      const tol = 5 * Math.sqrt(sdRef[j] ** 2 + mcse ** 2);
      const name = draws.names[j];
      assert.ok(
        Math.abs(mean - BETA[j]) <= tol,
        `${sampler} ${name}: mean ${mean} vs generating ${BETA[j]}, tolerance ${tol} (sd_ref ${
          sdRef[j]
        }, MCSE ${mcse})`,
      );
      assert.ok(
        sd > 0.5 * sdRef[j] && sd < 2.5 * sdRef[j],
        `${sampler} ${name}: sd ${sd} vs the reference ${sdRef[j]}`,
      );
    }
  } finally {
    await Deno.remove(out).catch(() => {});
  }
}

Deno.test("[e2e] CLI default path, n = 100,000 × 30, logistic, chains in workers", async (t) => {
  // Defaults everywhere (4 chains, workers on, 1000 warmup + 1000 draws) for
  // HMC-ECS; fewer iterations for the samplers that touch all n rows every
  // step (hmc, qnhmc) or whose default burn-in costs minutes here (sghmc).
  await t.step("hmc-ecs (perturbed), all defaults", () => _check("hmc-ecs", [], 1000));
  await t.step(
    "hmc-ecs --variant signed, all defaults",
    () => _check("hmc-ecs", ["--variant", "signed"], 1000),
  );
  await t.step(
    "hmc --warmup 100 --samples 100",
    () => _check("hmc", ["--warmup", "100", "--samples", "100"], 100),
  );
  await t.step(
    "sghmc --warmup 100 --samples 200",
    () => _check("sghmc", ["--warmup", "100", "--samples", "200"], 200),
  );
  await t.step(
    "qnhmc --warmup 100 --samples 50",
    () => _check("qnhmc", ["--warmup", "100", "--samples", "50"], 50),
  );
});

function _percents(lines: string[]): number[] {
  return lines.flatMap((l) => {
    const m = / (\d+)% [\d.]+s$/.exec(l);
    return m === null ? [] : [Number(m[1])];
  });
}

Deno.test("the progress lines with chains in workers (stderr not a terminal): monotone, one per tenth, ending at 100 %", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tallmc_progress_" });
  try {
    const rows = ["x1,x2,y"];
    let s = 7;
    const u = () => (s = (s * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 2000; i++) {
      const a = u() * 2 - 1, b = u() * 2 - 1;
      rows.push(`${a.toFixed(3)},${b.toFixed(3)},${u() < 1 / (1 + Math.exp(-a + b)) ? 1 : 0}`);
    }
    await Deno.writeTextFile(`${dir}/d.csv`, rows.join("\n") + "\n");
    const cli = new URL("../../cli.ts", import.meta.url).pathname;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        `--allow-write=${dir}`,
        cli,
        "sample",
        "--family",
        "logistic",
        "--data",
        `${dir}/d.csv`,
        "--response",
        "y",
        "--chains",
        "4",
        "--workers",
        "2",
        "--warmup",
        "300",
        "--samples",
        "300",
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(stderr);
    assert.equal(code, 0, err);
    const pct = _percents(err.split("\n"));
    assert.ok(pct.length >= 10 && pct.length <= 12, `one line per tenth: ${pct.join(", ")}`);
    for (let k = 1; k < pct.length; k++) {
      assert.ok(pct[k] > pct[k - 1], `monotone: ${pct.join(", ")}`);
      assert.ok(
        Math.floor(pct[k] / 10) > Math.floor(pct[k - 1] / 10),
        `a new tenth: ${pct.join(", ")}`,
      );
    }
    assert.equal(pct.at(-1), 100);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ChainProgress sums the chains' counts whatever the order of reports, and ends where the run stopped", () => {
  const run = (tty: boolean, stopAt: number | null) => {
    const text: string[] = [];
    const bar = new ChainProgress({ label: "x", numChains: 3, tty, write: (t) => text.push(t) });
    // chains 2 and 0 at once, interleaved out of step; then chain 1
    for (let i = 1; i <= 200; i++) {
      bar.update(2, i, 200);
      if (i % 3 === 0) bar.update(0, Math.min(200, i * 1.5), 200);
    }
    bar.update(0, 200, 200);
    bar.update(2, 150, 200); // a late, stale report never moves the bar back
    for (let i = 1; i <= (stopAt ?? 200); i++) bar.update(1, i, 200);
    bar.done();
    return text.join("");
  };
  const lines = run(false, null).split("\n").filter((l) => l !== "");
  const pct = _percents(lines);
  assert.equal(pct.at(-1), 100);
  for (let k = 1; k < pct.length; k++) assert.ok(pct[k] > pct[k - 1], pct.join(", "));
  assert.equal(new Set(pct.map((p) => Math.floor(p / 10))).size, pct.length);
  // a run whose last chain stopped at iteration 50 of 200 ends at (200 + 200 + 50)/600
  assert.equal(_percents(run(false, 50).split("\n")).at(-1), 75);
  // on a terminal: redrawn in place, monotone, one newline at the end
  const tty = run(true, null);
  assert.ok(tty.endsWith("\n") && tty.indexOf("\n") === tty.length - 1);
  const drawn = _percents(tty.split("\r").map((l) => l.trim()));
  for (let k = 1; k < drawn.length; k++) assert.ok(drawn[k] > drawn[k - 1]);
  assert.equal(drawn.at(-1), 100);
});
