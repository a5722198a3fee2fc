/**
 * posteriordb check: run `cli.ts sample` with its default settings (plus the
 * prior flags each Stan model implies) on GLM posteriors of the public
 * posteriordb (data and reference summaries in `tests/data/posteriordb/`),
 * and compare posterior means and sds with the reference.
 *
 * Pass: every parameter's |mean − reference mean| ≤ 0.1 reference sd and
 * |sd / reference sd − 1| ≤ 0.1.
 *
 * Each posterior maps Stan's parameter names to the CLI's draw columns
 * explicitly (`parameters`): `beta[1]` is `(Intercept)` when the model has an
 * intercept, the other coefficients are the CSV column names, and σ is
 * `exp(log_sigma)` of the draws file.
 *
 * @module
 */
import { essBulk } from "../diagnostics/ess.ts";
import { type DrawsTable, parseDrawsCsv } from "../data/draws_csv.ts";

/** One posterior of posteriordb expressed as CLI flags. */
export interface PosteriorSpec {
  /** posteriordb name (data-model). */
  name: string;
  /** CSV under `tests/data/posteriordb/`. */
  data: string;
  /** Family flag. */
  family: "gaussian" | "logistic" | "poisson" | "negative-binomial";
  /** Response column. */
  response: string;
  /** Covariate columns (in Stan's order of beta[2…] or beta[1…] without intercept). */
  columns: string[];
  /** Whether the model has an intercept (beta[1] / alpha). */
  intercept: boolean;
  /** Prior flags the Stan model implies. */
  priorFlags: string[];
  /** Stan parameter name → draws column (`sigma` means exp(log_sigma)). */
  parameters: Record<string, string>;
  /** The Stan model's priors, as written there (for the report). */
  stanPriors: string;
}

const FLAT = ["--prior", "flat", "--prior-intercept", "flat"];
const HALF_CAUCHY = ["--prior-aux", "half_cauchy(2.5)"];
const FLAT_SIGMA = ["--prior-aux", "flat"];

function betas(
  columns: string[],
  intercept: boolean,
  extra: Record<string, string> = { sigma: "sigma" },
): Record<string, string> {
  const m: Record<string, string> = {};
  const names = intercept ? ["(Intercept)", ...columns] : columns;
  names.forEach((c, i) => m[`beta[${i + 1}]`] = c);
  return { ...m, ...extra };
}

function gaussian(
  name: string,
  data: string,
  response: string,
  columns: string[],
  sigmaPrior: "half_cauchy" | "flat",
): PosteriorSpec {
  return {
    name,
    data,
    family: "gaussian",
    response,
    columns,
    intercept: true,
    priorFlags: [...FLAT, ...(sigmaPrior === "flat" ? FLAT_SIGMA : HALF_CAUCHY)],
    parameters: betas(columns, true),
    stanPriors: sigmaPrior === "flat"
      ? "beta flat; sigma flat on (0, ∞)"
      : "beta flat; sigma ~ cauchy(0, 2.5) on (0, ∞)",
  };
}

/** The chosen posteriors: every posteriordb posterior with reference draws whose model is a GLM. */
export const POSTERIORS: readonly PosteriorSpec[] = [
  gaussian("kidiq-kidscore_momhs", "kidiq.csv", "kid_score", ["mom_hs"], "half_cauchy"),
  gaussian("kidiq-kidscore_momiq", "kidiq.csv", "kid_score", ["mom_iq"], "half_cauchy"),
  gaussian(
    "kidiq-kidscore_momhsiq",
    "kidiq.csv",
    "kid_score",
    ["mom_hs", "mom_iq"],
    "half_cauchy",
  ),
  gaussian(
    "kidiq-kidscore_interaction",
    "kidiq.csv",
    "kid_score",
    ["mom_hs", "mom_iq", "inter"],
    "half_cauchy",
  ),
  gaussian(
    "kidiq_with_mom_work-kidscore_mom_work",
    "kidiq_with_mom_work.csv",
    "kid_score",
    ["work2", "work3", "work4"],
    "flat",
  ),
  gaussian(
    "kidiq_with_mom_work-kidscore_interaction_c",
    "kidiq_with_mom_work.csv",
    "kid_score",
    ["c_mom_hs", "c_mom_iq", "c_inter"],
    "flat",
  ),
  gaussian("earnings-earn_height", "earnings.csv", "earn", ["height"], "flat"),
  gaussian("earnings-logearn_height", "earnings.csv", "log_earn", ["height"], "flat"),
  gaussian("earnings-log10earn_height", "earnings.csv", "log10_earn", ["height"], "flat"),
  gaussian(
    "earnings-logearn_height_male",
    "earnings.csv",
    "log_earn",
    ["height", "male"],
    "flat",
  ),
  gaussian(
    "earnings-logearn_interaction_z",
    "earnings.csv",
    "log_earn",
    ["z_height", "male", "z_inter"],
    "flat",
  ),
  gaussian(
    "mesquite-mesquite",
    "mesquite.csv",
    "weight",
    ["diam1", "diam2", "canopy_height", "total_height", "density", "group"],
    "flat",
  ),
  gaussian(
    "mesquite-logmesquite",
    "mesquite.csv",
    "log_weight",
    [
      "log_diam1",
      "log_diam2",
      "log_canopy_height",
      "log_total_height",
      "log_density",
      "group",
    ],
    "flat",
  ),
  gaussian(
    "mesquite-logmesquite_logvolume",
    "mesquite.csv",
    "log_weight",
    ["log_canopy_volume"],
    "flat",
  ),
  ...["sblrc", "sblri"].map((s): PosteriorSpec => {
    const columns = ["x1", "x2", "x3", "x4", "x5"];
    return {
      name: `${s}-blr`,
      data: `${s}.csv`,
      family: "gaussian",
      response: "y",
      columns,
      intercept: false,
      priorFlags: ["--prior", "normal(0, 10)", "--prior-aux", "half_normal(10)"],
      parameters: betas(columns, false),
      stanPriors: "beta ~ normal(0, 10); sigma ~ normal(0, 10) on (0, ∞)",
    };
  }),
  {
    name: "kilpisjarvi_mod-kilpisjarvi",
    data: "kilpisjarvi_mod.csv",
    family: "gaussian",
    response: "y",
    columns: ["x"],
    intercept: true,
    // pmualpha, psalpha, pmubeta, psbeta of the data file.
    priorFlags: [
      "--prior-intercept",
      "normal(9.31290322580645, 100)",
      "--prior",
      "x=normal(0, 0.0333333333333333)",
      ...FLAT_SIGMA,
    ],
    parameters: { alpha: "(Intercept)", beta: "x", sigma: "sigma" },
    stanPriors: "alpha ~ normal(9.31, 100); beta ~ normal(0, 0.0333); sigma flat on (0, ∞)",
  },
];

/** A sampler configuration of the check. */
export interface SamplerConfig {
  /** Label in the report. */
  label: string;
  /** CLI flags (`--sampler …` and its options). */
  flags: string[];
}

/** The sampler configurations: hmc, and hmc-ecs in both variants. */
export const SAMPLER_CONFIGS: readonly SamplerConfig[] = [
  { label: "hmc", flags: ["--sampler", "hmc"] },
  { label: "hmc-ecs perturbed", flags: ["--sampler", "hmc-ecs", "--variant", "perturbed"] },
  { label: "hmc-ecs signed", flags: ["--sampler", "hmc-ecs", "--variant", "signed"] },
];

/** One parameter's comparison. */
export interface ParameterCheck {
  stanName: string;
  column: string;
  refMean: number;
  refSd: number;
  mean: number;
  sd: number;
  /** |mean − reference mean| / reference sd. */
  meanErr: number;
  /** |sd / reference sd − 1|. */
  sdErr: number;
  essBulk: number;
}

/** The outcome of one posterior × sampler run. */
export interface PosteriorResult {
  posterior: string;
  sampler: string;
  n: number;
  d: number;
  /** Wall time of the CLI run (s), including start-up. */
  seconds: number;
  exitCode: number;
  /** Last lines of the CLI's stderr when the run failed or made no draws. */
  error: string | null;
  parameters: ParameterCheck[];
  minEss: number;
  maxMeanErr: number;
  maxSdErr: number;
  pass: boolean;
}

/** Reference summaries as stored in `reference.json`. */
export type Reference = Record<
  string,
  { ndraws: number; nchains: number; parameters: Record<string, { mean: number; sd: number }> }
>;

/** Band of the check. */
export const MEAN_BAND = 0.1;
/** Band of the check. */
export const SD_BAND = 0.1;

/** Directory of the committed data and reference summaries. */
export const DATA_DIR = new URL("../tests/data/posteriordb/", import.meta.url);

/** Read `reference.json`. */
export function readReference(): Reference {
  return JSON.parse(Deno.readTextFileSync(new URL("reference.json", DATA_DIR))) as Reference;
}

function meanSd(x: number[]): [number, number] {
  const m = x.reduce((a, b) => a + b, 0) / x.length;
  const v = x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1);
  return [m, Math.sqrt(v)];
}

/** The CLI arguments of one run (without `--out`). */
export function cliArgs(spec: PosteriorSpec, config: SamplerConfig, seed: number): string[] {
  return [
    "sample",
    "--family",
    spec.family,
    "--data",
    new URL(spec.data, DATA_DIR).pathname,
    "--response",
    spec.response,
    "--columns",
    spec.columns.join(","),
    ...(spec.intercept ? [] : ["--no-intercept"]),
    ...spec.priorFlags,
    ...config.flags,
    "--seed",
    String(seed),
    "--quiet",
  ];
}

/**
 * Run one posterior with one sampler through the CLI in a subprocess and
 * compare with the reference.
 *
 * @param spec The posterior.
 * @param config The sampler.
 * @param reference The reference summaries.
 * @param options `seed` (default 1), `extraFlags` (e.g. fewer draws in tests).
 */
export async function checkPosterior(
  spec: PosteriorSpec,
  config: SamplerConfig,
  reference: Reference,
  options: { seed?: number; extraFlags?: string[] } = {},
): Promise<PosteriorResult> {
  const ref = reference[spec.name];
  if (ref === undefined) throw new Error(`no reference summaries for ${spec.name}`);
  const dir = Deno.makeTempDirSync({ prefix: "tallmc-validate-" });
  const out = `${dir}/draws.csv`;
  const cli = new URL("../cli.ts", import.meta.url).pathname;
  const args = [
    "run",
    "--allow-read",
    `--allow-write=${dir}`,
    "--allow-env",
    cli,
    ...cliArgs(spec, config, options.seed ?? 1),
    ...(options.extraFlags ?? []),
    "--out",
    out,
  ];
  const t0 = performance.now();
  const r = await new Deno.Command("deno", { args, stdout: "piped", stderr: "piped" })
    .output();
  const seconds = (performance.now() - t0) / 1000;
  const stderr = new TextDecoder().decode(r.stderr);
  let text = "";
  try {
    text = Deno.readTextFileSync(out);
  } catch { /* no draws file */ }
  Deno.removeSync(dir, { recursive: true });
  const n = Deno.readTextFileSync(new URL(spec.data, DATA_DIR)).trim().split("\n").length - 1;
  const d = Object.keys(spec.parameters).length;
  const base = { posterior: spec.name, sampler: config.label, n, d, seconds, exitCode: r.code };
  // The CLI's draws file, read as `summary` reads it; none (or no rows) is a failed run.
  let parsed: DrawsTable | null = null;
  try {
    if (text !== "") parsed = parseDrawsCsv(text);
  } catch { /* no complete draws */ }
  if (parsed === null || parsed.draws.length === 0) {
    return {
      ...base,
      error: _tail(stderr),
      parameters: [],
      minEss: NaN,
      maxMeanErr: NaN,
      maxSdErr: NaN,
      pass: false,
    };
  }
  const table = parsed;
  const parameters: ParameterCheck[] = [];
  for (const [stanName, column] of Object.entries(spec.parameters)) {
    const col = column === "sigma" ? "log_sigma" : column;
    const j = table.parameterNames.indexOf(col);
    if (j < 0) {
      throw new Error(`${spec.name}: no column ${col} in the draws (${table.parameterNames})`);
    }
    const per = table.draws.map((chain) =>
      Array.from(chain[j], (v) => column === "sigma" ? Math.exp(v) : v)
    );
    const [mean, sd] = meanSd(per.flat());
    const rp = ref.parameters[stanName];
    parameters.push({
      stanName,
      column,
      refMean: rp.mean,
      refSd: rp.sd,
      mean,
      sd,
      meanErr: Math.abs(mean - rp.mean) / rp.sd,
      sdErr: Math.abs(sd / rp.sd - 1),
      essBulk: per.length >= 1 && per[0].length >= 4 ? essBulk(per) : NaN,
    });
  }
  const maxMeanErr = Math.max(...parameters.map((p) => p.meanErr));
  const maxSdErr = Math.max(...parameters.map((p) => p.sdErr));
  const minEss = Math.min(...parameters.map((p) => p.essBulk));
  const pass = maxMeanErr <= MEAN_BAND && maxSdErr <= SD_BAND && r.code === 0;
  return {
    ...base,
    error: r.code === 0 ? null : _tail(stderr),
    parameters,
    minEss,
    maxMeanErr,
    maxSdErr,
    pass,
  };
}

function _tail(s: string): string {
  return s.trim().split("\n").slice(-3).join(" / ").slice(0, 400);
}
