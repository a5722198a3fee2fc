/**
 * `tallmc compare`: models ranked by PSIS-LOO, with elpd differences and
 * their SEs as R's `loo_compare`; on tall data by subsampling LOO (the
 * difference estimator on one subsample shared by every model).
 *
 * ```
 *  common flags (--data, --response, …)  ─┐
 *  --fit NAME=DRAWS.csv [model flags] … ──┴→ per fit: modelFromFlags + parseDrawsCsv
 *      → full PSIS-LOO (n ≤ --observations) or elpdLooApproximation + PSIS on m rows
 *      → looCompareSubsample → table (stdout)
 * ```
 *
 * A fit is a draws file and the flags of the model it was sampled with: the
 * model flags before the first `--fit` apply to every fit, those after a
 * `--fit` to that fit only (and override the common ones); the comparison's
 * own flags (`--observations`, `--seed`, …) may stand anywhere. The statistics are in
 * diagnostics/loo_subsample.ts, diagnostics/loo_compare.ts and diagnostics/loo.ts.
 *
 * @module
 */
import { dataViews } from "../core/row_buffer.ts";
import { looCombine, type LooResult } from "../diagnostics/loo.ts";
import {
  looCompareSubsample,
  type LooFit,
  type LooSubsampleCompareRow,
} from "../diagnostics/loo_compare.ts";
import {
  elpdLooApproximation,
  looFromModel,
  looSubsampleFromPointwise,
  subsampleIndices,
} from "../diagnostics/loo_subsample.ts";
import type { GlmData } from "../data/dataset.ts";
import type { GlmModel } from "../models/glm.ts";
import { CliUsageError, intFlag } from "./args.ts";
import { type Fit, loadFit, parseFitGroups } from "./compare_fits.ts";
import { familyFlagsHelp, modelFlagsHelp } from "./model_help.ts";

/** Rows up to which `--observations` defaults to all (full PSIS-LOO). */
const _FULL_UP_TO = 10_000;
/** The default subsample size above that. */
const _DEFAULT_M = 400;

/** The `compare --help` text. */
export function compareHelp(): string {
  return [
    "Usage: tallmc compare --data FILE --response COL [common model flags]",
    "                      --fit [NAME=]DRAWS.csv[,MORE.csv] [model flags] --fit … [options]",
    "",
    "Ranks models by their expected log pointwise predictive density (elpd) estimated",
    "by PSIS-LOO, best first, with each model's difference from the best and the SE of",
    "that difference (as R loo's loo_compare). On tall data the elpd is estimated from a",
    "simple random subsample of m rows shared by every model (subsampling LOO, the",
    "difference estimator): then each SE is split in the SE from the data and the SE",
    "from subsampling.",
    "",
    "A fit is a draws file of tallmc sample (several files, e.g. CmdStan's one per chain,",
    "separated by commas) and the model flags it was sampled with. Model flags before the",
    "first --fit apply to every fit; model flags after a --fit to that fit only. NAME",
    "defaults to the file name without .csv (and CmdStan's _1). Every fit must describe",
    "the same rows and response.",
    "",
    "Options (anywhere; they apply to the whole comparison):",
    "  --observations N|all  rows whose leave-one-out density is computed: all (full",
    `                        PSIS-LOO) or a subsample of N (default: all up to ${_FULL_UP_TO}`,
    `                        rows, else ${_DEFAULT_M})`,
    "  --target-se SE        grow the subsample until every elpd and every difference",
    "                        has a subsampling SE of at most SE",
    "  --approximation A     plpd (default: log p(y_i | posterior mean), one data pass)",
    "                        or lpd (log mean p(y_i | draw) over thinned draws)",
    "  --approximation-draws K  draws used by the approximation (default: all for",
    "                        plpd, 100 for lpd)",
    "  --seed N              seed of the subsample (default 1)",
    "",
    "Model flags (common or per fit):",
    "  --family F          logistic, gaussian, poisson, student-t, negative-binomial, binomial",
    "  --data FILE         the data file (CSV or .parquet)",
    "  --response COL      name of the response column",
    "  --columns A,B,…     covariates (default: all but the response)",
    "  --no-intercept      no intercept column",
    "  --sigma S           known residual sd (gaussian)",
    ...familyFlagsHelp(),
    ...modelFlagsHelp(),
    "  -h, --help          this help",
    "",
    "Example:",
    "  tallmc compare --data counts.csv --response y \\",
    "    --fit pois=pois.csv --family poisson --fit nb=nb.csv --family negative-binomial",
  ].join("\n");
}

/** The response vector of a GLM model (read from its arena). */
function _response(model: GlmModel): Float64Array {
  return dataViews(model.data).y;
}

/** m for which the subsampling SE `v` estimated at m would be `target`. */
function _neededM(v: number, m: number, n: number, target: number): number {
  if (!(v > target) || m >= n) return m;
  const s2 = (v * v * m) / (n * n * (1 - m / n));
  return Math.ceil((n * n * s2) / (target * target + n * s2));
}

function _fmt(x: number, digits = 1): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}

/**
 * The comparison table, one line per model, best first.
 *
 * @param rows {@linkcode looCompareSubsample}'s rows.
 * @param subsampled Whether to show the subsampling SE columns.
 * @returns Lines of text.
 */
export function formatCompareTable(
  rows: readonly LooSubsampleCompareRow[],
  subsampled: boolean,
): string[] {
  const head = subsampled
    ? [
      "model",
      "elpd_diff",
      "se_diff",
      "subsampling_se_diff",
      "elpd_loo",
      "se_elpd_loo",
      "subsampling_se",
      "p_loo",
      "looic",
    ]
    : ["model", "elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo", "p_loo", "se_p_loo", "looic"];
  const body = rows.map((r) =>
    subsampled
      ? [
        r.name,
        _fmt(r.elpdDiff),
        _fmt(r.seDiff),
        _fmt(r.subsamplingSeDiff, 2),
        _fmt(r.elpdLoo.estimate),
        _fmt(r.elpdLoo.se),
        _fmt(r.elpdLoo.subsamplingSe, 2),
        _fmt(r.pLoo.estimate),
        _fmt(r.looic.estimate),
      ]
      : [
        r.name,
        _fmt(r.elpdDiff),
        _fmt(r.seDiff),
        _fmt(r.elpdLoo.estimate),
        _fmt(r.elpdLoo.se),
        _fmt(r.pLoo.estimate),
        _fmt(r.pLoo.se),
        _fmt(r.looic.estimate),
      ]
  );
  const widths = head.map((h, j) => Math.max(h.length, ...body.map((b) => b[j].length)));
  const line = (cells: string[]) =>
    cells.map((c, j) => (j === 0 ? c.padEnd(widths[j]) : c.padStart(widths[j]))).join("  ");
  return [line(head), ...body.map(line)];
}

/**
 * Run `tallmc compare`.
 *
 * @param args The arguments after `compare`.
 * @returns The exit code (0).
 * @throws {CliUsageError} For bad flags or files, draws that do not match their
 *   model, or fits of different rows (exit code 2).
 */
export async function compareCommand(args: string[]): Promise<number> {
  const { common, fits: specs } = parseFitGroups(args);
  if (common.help) {
    console.log(compareHelp());
    return 0;
  }
  if (specs.length < 2) {
    throw new CliUsageError(
      `compare needs at least 2 fits (--fit DRAWS.csv with their model flags), got ${specs.length}` +
        " (see tallmc compare --help)",
    );
  }
  const seen = new Set<string>();
  for (const s of specs) {
    if (seen.has(s.name)) {
      throw new CliUsageError(
        `two fits are named ${JSON.stringify(s.name)}; name them with --fit NAME=DRAWS.csv`,
      );
    }
    seen.add(s.name);
  }
  const approximation = (common.approximation as string | undefined) ?? "plpd";
  if (approximation !== "plpd" && approximation !== "lpd") {
    throw new CliUsageError(
      `--approximation must be plpd or lpd, got ${JSON.stringify(approximation)}`,
    );
  }
  const seed = intFlag(common.seed, { flag: "seed", default: 1, min: 0 });
  let targetSe: number | undefined;
  if (common["target-se"] !== undefined) {
    targetSe = Number(common["target-se"]);
    if (!(targetSe > 0 && Number.isFinite(targetSe))) {
      throw new CliUsageError(
        `--target-se must be a positive number, got ${JSON.stringify(common["target-se"])}`,
      );
    }
  }
  const obsFlag = common.observations as string | undefined;
  if (obsFlag !== undefined && obsFlag !== "all" && !/^\d+$/.test(obsFlag)) {
    throw new CliUsageError(`--observations must be all or a whole number, got "${obsFlag}"`);
  }

  const t0 = performance.now();
  const fits: Fit[] = [];
  // Fits over the same rows (file, response, columns, coding) read the file once.
  const dataCache = new Map<string, Promise<GlmData>>();
  let n = -1, y: Float64Array | null = null;
  try {
    for (const spec of specs) {
      const fit = await loadFit(spec, dataCache);
      fits.push(fit);
      const yi = _response(fit.model);
      if (y === null) {
        n = fit.model.numRows;
        y = yi.slice();
        continue;
      }
      if (fit.model.numRows !== n) {
        throw new CliUsageError(
          `fit ${JSON.stringify(fit.name)} has ${fit.model.numRows} rows, fit ${
            JSON.stringify(fits[0].name)
          } ${n}: LOO compares models of the same observations (check --data and its filters)`,
        );
      }
      for (let i = 0; i < n; i++) {
        if (yi[i] !== y[i]) {
          throw new CliUsageError(
            `fit ${JSON.stringify(fit.name)} has response ${yi[i]} in row ${i + 1}, fit ${
              JSON.stringify(fits[0].name)
            } ${y[i]}: LOO compares models of the same observations (check --data and --response)`,
          );
        }
      }
    }
    const tLoad = performance.now();
    const full = obsFlag === "all" || (obsFlag === undefined && n <= _FULL_UP_TO);
    let m = obsFlag === undefined || obsFlag === "all" ? _DEFAULT_M : Number(obsFlag);
    if (!full && (m < 2 || m > n)) {
      throw new CliUsageError(`--observations must be all or 2 … ${n} (the rows), got ${m}`);
    }
    const rEffOf = (f: Fit) => (f.chainIds === null ? { rEff: 1 } : { chainIds: f.chainIds });
    let results: Record<string, LooFit> = {};
    let rows: LooSubsampleCompareRow[];
    let tApprox = 0;
    if (full) {
      for (const f of fits) results[f.name] = looFromModel(f.model, f.draws, rEffOf(f));
      rows = looCompareSubsample(results);
    } else {
      const approx = fits.map((f) => {
        const k = intFlag(common["approximation-draws"], {
          flag: "approximation-draws",
          default: approximation === "lpd" ? Math.min(100, f.draws.length) : f.draws.length,
          min: 1,
        });
        if (k > f.draws.length) {
          throw new CliUsageError(
            `--approximation-draws must be at most the ${f.draws.length} draws of fit ${f.name}, got ${k}`,
          );
        }
        const step = Math.floor(f.draws.length / k);
        const thinned = k === f.draws.length
          ? f.draws
          : Array.from({ length: k }, (_, j) => f.draws[(j + 1) * step - 1]);
        return elpdLooApproximation(f.model, thinned, approximation);
      });
      tApprox = performance.now() - tLoad;
      const parts: LooResult[][] = fits.map(() => []);
      const done: number[][] = fits.map(() => []);
      for (;;) {
        const idx = subsampleIndices(n, m, seed);
        const have = new Set(done[0]);
        const fresh = Array.from(idx).filter((i) => !have.has(i));
        results = {};
        fits.forEach((f, j) => {
          parts[j].push(looFromModel(f.model, f.draws, { rows: fresh, ...rEffOf(f) }));
          done[j].push(...fresh);
          results[f.name] = looSubsampleFromPointwise(
            approx[j],
            done[j],
            looCombine(parts[j]),
            approximation,
          );
        });
        rows = looCompareSubsample(results);
        if (targetSe === undefined || m === n) break;
        let need = m;
        for (const r of rows) {
          need = Math.max(
            need,
            _neededM(r.elpdLoo.subsamplingSe, m, n, targetSe),
            _neededM(r.subsamplingSeDiff, m, n, targetSe),
          );
        }
        if (need <= m) break;
        m = Math.min(n, Math.max(need, Math.ceil(1.1 * m)));
      }
    }
    const tEnd = performance.now();
    const s = fits.map((f) => f.draws.length);
    console.log(
      full
        ? `model comparison by PSIS-LOO: all ${n} rows; ${s.join(", ")} draws`
        : `model comparison by subsampling PSIS-LOO: ${m} of ${n} rows (simple random ` +
          `sample, seed ${seed}), approximation ${approximation}, difference estimator; ` +
          `${s.join(", ")} draws`,
    );
    console.log(
      "elpd_diff = model − best; se_diff from the pointwise differences" +
        (full ? "" : "; subsampling_se: the part of the uncertainty due to using m rows"),
    );
    for (const line of formatCompareTable(rows!, !full)) console.log(line);
    for (const r of rows!) {
      if (r.method === "naive") {
        console.log(
          `${r.name}: different subsamples; its SEs combine the two fits' as independent`,
        );
      }
    }
    for (const f of fits) {
      const res = results[f.name] as LooResult;
      const b = res.bands;
      const bad = b.bad + b.veryBad;
      if (bad > 0) {
        console.log(
          `warning: ${f.name}: ${bad} of the ${full ? n : m} rows evaluated have Pareto k > ${
            _fmt(res.kThreshold, 2)
          } (${b.veryBad} above 1): their elpd_loo is unreliable`,
        );
      }
    }
    const sec = (ms: number) => (ms / 1000).toFixed(2);
    console.log(
      `time: ${sec(tEnd - t0)} s (load data and draws ${sec(tLoad - t0)} s` +
        (full ? "" : `, approximation ${sec(tApprox)} s`) +
        `, PSIS ${sec(tEnd - tLoad - tApprox)} s)`,
    );
  } finally {
    for (const f of fits) f.model.dispose();
  }
  return 0;
}
