/**
 * The validation report: `report.md` and SVG figures (hand-written SVG: a
 * dot chart of the posteriordb errors against the bands, and SBC rank
 * histograms with the 99 % band of a uniform bin count).
 *
 * @module
 */
import { MEAN_BAND, type PosteriorResult, SD_BAND } from "./posteriordb.ts";
import type { SbcResult } from "./sbc.ts";

/** A run HMC-ECS refused because n is too small for its subsample: the check does not apply. */
export function notApplicable(r: PosteriorResult): boolean {
  return r.error !== null && /cannot subsample n = /.test(r.error);
}

/** The SBC significance level per test, before the Bonferroni correction. */
export const SBC_ALPHA = 0.01;

/** Round the numbers of an SVG's attributes to 0.1 px. */
function tidy(svg: string): string {
  return svg.replace(/="(-?\d+\.\d{2,})"/g, (_m, v) => `="${Number(v).toFixed(1)}"`);
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function f(x: number, digits = 3): string {
  return Number.isFinite(x) ? x.toFixed(digits) : "—";
}

/** Dot chart: per posterior × sampler, max |mean err|/sd and max sd rel. err, with the bands. */
export function posteriordbSvg(all: PosteriorResult[]): string {
  const results = all.filter((r) => !notApplicable(r));
  const rowH = 16, left = 330, w = 260, gap = 40;
  const h = 40 + rowH * results.length;
  const max = 0.3;
  const x = (v: number) => Math.min(v, max) / max * w;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${
      left + 2 * w + gap + 20
    }" height="${h}" font-family="sans-serif" font-size="11">`,
  );
  const panel = (x0: number, title: string, band: number) => {
    parts.push(`<text x="${x0}" y="14" font-weight="bold">${esc(title)}</text>`);
    parts.push(
      `<rect x="${x0}" y="24" width="${x(band)}" height="${
        rowH * results.length
      }" fill="#e6f4e6"/>`,
    );
    for (const t of [0, 0.1, 0.2, 0.3]) {
      parts.push(
        `<line x1="${x0 + x(t)}" x2="${x0 + x(t)}" y1="24" y2="${
          24 + rowH * results.length
        }" stroke="#ccc"/>`,
      );
      parts.push(
        `<text x="${x0 + x(t)}" y="${h - 2}" text-anchor="middle">${t}${
          t === 0.3 ? "+" : ""
        }</text>`,
      );
    }
  };
  panel(left, "max |mean − ref| / ref sd", MEAN_BAND);
  panel(left + w + gap, "max |sd / ref sd − 1|", SD_BAND);
  results.forEach((r, i) => {
    const y = 24 + rowH * i + rowH / 2;
    parts.push(
      `<text x="${left - 6}" y="${y + 4}" text-anchor="end">${esc(r.posterior)} · ${
        esc(r.sampler)
      }</text>`,
    );
    const dot = (x0: number, v: number, band: number) => {
      if (!Number.isFinite(v)) {
        parts.push(`<text x="${x0 + 2}" y="${y + 4}" fill="#c00">no draws</text>`);
        return;
      }
      const c = v <= band ? "#1a7f1a" : "#c00";
      parts.push(`<circle cx="${x0 + x(v)}" cy="${y}" r="4" fill="${c}"/>`);
    };
    dot(left, r.maxMeanErr, MEAN_BAND);
    dot(left + w + gap, r.maxSdErr, SD_BAND);
  });
  parts.push("</svg>");
  return parts.join("\n");
}

/**
 * Upper 99.5 % and lower 0.5 % quantiles of a Binomial(N, 1/B) bin count
 * (normal approximation), the band a histogram of uniform ranks stays in.
 */
function band(n: number, bins: number): [number, number] {
  const p = 1 / bins, m = n * p, s = Math.sqrt(n * p * (1 - p));
  return [Math.max(0, m - 2.576 * s), m + 2.576 * s];
}

/** Rank histograms of one sampler × family, one panel per parameter. */
export function sbcSvg(r: SbcResult): string {
  const pw = 180, ph = 90, pad = 28;
  const width = r.parameters.length * (pw + pad) + pad;
  const height = ph + 50;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
  ];
  const [lo, hi] = band(r.reps, r.parameters[0]?.histogram.length ?? 1);
  r.parameters.forEach((p, k) => {
    const x0 = pad + k * (pw + pad), y0 = 20;
    const ymax = Math.max(hi * 1.2, ...p.histogram);
    const y = (v: number) => y0 + ph - v / ymax * ph;
    const bw = pw / p.histogram.length;
    parts.push(
      `<text x="${x0}" y="12">${esc(p.name)} (p = ${p.pValue.toPrecision(2)})</text>`,
    );
    parts.push(
      `<rect x="${x0}" y="${y(hi)}" width="${pw}" height="${y(lo) - y(hi)}" fill="#e6e6f4"/>`,
    );
    p.histogram.forEach((c, b) => {
      const fill = c > hi || c < lo ? "#c05050" : "#5070a0";
      parts.push(
        `<rect x="${x0 + b * bw + 0.5}" y="${y(c)}" width="${bw - 1}" height="${
          y0 + ph - y(c)
        }" fill="${fill}"/>`,
      );
    });
    parts.push(
      `<line x1="${x0}" x2="${x0 + pw}" y1="${y(r.reps / p.histogram.length)}" y2="${
        y(r.reps / p.histogram.length)
      }" stroke="#333" stroke-dasharray="3,2"/>`,
    );
    parts.push(`<text x="${x0}" y="${y0 + ph + 14}">rank 0</text>`);
    parts.push(`<text x="${x0 + pw}" y="${y0 + ph + 14}" text-anchor="end">${r.L}</text>`);
  });
  parts.push(
    `<text x="${pad}" y="${height - 6}">${esc(r.sampler)} · ${esc(r.family)} · ${r.reps} reps${
      r.failed ? `, ${r.failed} failed` : ""
    }; band: 99 % of a uniform bin count</text>`,
  );
  parts.push("</svg>");
  return parts.join("\n");
}

/** The Bonferroni-corrected threshold and how many tests it covers. */
export function bonferroni(results: SbcResult[]): { tests: number; threshold: number } {
  const tests = results.filter((r) => r.exact).reduce((a, r) => a + r.parameters.length, 0);
  return { tests, threshold: tests > 0 ? SBC_ALPHA / tests : SBC_ALPHA };
}

/** Markdown of the results. */
export function reportMarkdown(
  pdb: PosteriorResult[],
  sbc: SbcResult[],
  options: { quick: boolean },
): string {
  const lines: string[] = [];
  lines.push(`# tallmc validation report${options.quick ? " (quick)" : ""}`, "");
  lines.push(`Generated ${new Date().toISOString()}.`, "");
  if (pdb.length > 0) {
    lines.push("## posteriordb", "");
    lines.push(
      `Default CLI settings (4 chains × (1000 + 1000)) plus the Stan model's priors. Pass: every ` +
        `parameter's |mean − ref mean| ≤ ${MEAN_BAND} ref sd and |sd/ref sd − 1| ≤ ${
          100 * SD_BAND
        } %, exit 0.`,
      "",
    );
    lines.push(
      "| posterior | sampler | n | d | time (s) | min bulk ESS | max \\|mean err\\|/sd | max sd rel err | result |",
    );
    lines.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    for (const r of pdb) {
      if (notApplicable(r)) {
        lines.push(
          `| ${r.posterior} | ${r.sampler} | ${r.n} | ${r.d} | — | — | — | — | n/a: n too small for subsampling (refused with exit 2) |`,
        );
        continue;
      }
      lines.push(
        `| ${r.posterior} | ${r.sampler} | ${r.n} | ${r.d} | ${f(r.seconds, 1)} | ${
          f(r.minEss, 0)
        } | ${f(r.maxMeanErr)} | ${f(r.maxSdErr)} | ${r.pass ? "pass" : "**FAIL**"}${
          r.error ? ` (exit ${r.exitCode}: ${esc(r.error).replace(/\|/g, "/")})` : ""
        } |`,
      );
    }
    const applicable = pdb.filter((r) => !notApplicable(r));
    const passed = applicable.filter((r) => r.pass).length;
    lines.push(
      "",
      `${passed} of ${applicable.length} runs pass (${
        pdb.length - applicable.length
      } not applicable: HMC-ECS refuses n this small).`,
      "",
    );
    lines.push("![posteriordb errors](posteriordb.svg)", "");
    const failing = pdb.filter((r) => !r.pass && r.parameters.length > 0);
    if (failing.length > 0) {
      lines.push("### Failing parameters", "");
      lines.push("| posterior | sampler | parameter | ref mean | mean | ref sd | sd | bulk ESS |");
      lines.push("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
      for (const r of failing) {
        for (const p of r.parameters) {
          if (p.meanErr <= MEAN_BAND && p.sdErr <= SD_BAND) continue;
          lines.push(
            `| ${r.posterior} | ${r.sampler} | ${p.stanName} (${p.column}) | ${
              p.refMean.toPrecision(5)
            } | ${p.mean.toPrecision(5)} | ${p.refSd.toPrecision(4)} | ${p.sd.toPrecision(4)} | ${
              f(p.essBulk, 0)
            } |`,
          );
        }
      }
      lines.push("");
    }
  }
  if (sbc.length > 0) {
    const { tests, threshold } = bonferroni(sbc);
    lines.push("## Simulation-based calibration", "");
    lines.push(
      `Ranks of the true θ among L = ${
        sbc[0].L
      } thinned draws, χ² test on 20 bins (19 df) per parameter. ` +
        `Multiple testing: ${tests} tests of exact samplers; Bonferroni threshold ${SBC_ALPHA} / ${tests} = ${
          threshold.toExponential(2)
        } (the family-wise error of the whole table ≤ ${SBC_ALPHA}). ` +
        "Perturbed HMC-ECS is not exact; its p-values are shown but not counted.",
      "",
    );
    lines.push(
      "| sampler | family | exact | reps (failed) | thin | time (s) | p-values | min p | result |",
    );
    lines.push("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | --- |");
    for (const r of sbc) {
      const minP = Math.min(...r.parameters.map((p) => p.pValue));
      const failedNote = r.failed > 0 ? `; **${r.failed} run(s) failed**` : "";
      const verdict = !r.exact
        ? (minP > threshold ? "calibrated at this size" : "miscalibrated (not exact)") +
          failedNote
        : minP <= threshold
        ? "**FAIL**"
        : r.failed > 0
        ? `ranks pass; **${r.failed} run(s) failed**`
        : "pass";
      lines.push(
        `| ${r.sampler} | ${r.family} | ${
          r.exact ? "yes" : "no"
        } | ${r.reps} (${r.failed}) | ${r.thin} | ${f(r.seconds, 0)} | ${
          r.parameters.map((p) => `${p.name} ${p.pValue.toPrecision(2)}`).join("; ")
        } | ${minP.toPrecision(2)} | ${verdict} |`,
      );
    }
    lines.push("");
    for (const r of sbc.filter((x) => (x.failures ?? []).length > 0)) {
      lines.push(`Failed runs of ${r.sampler} × ${r.family}: ${r.failures!.join("; ")}`, "");
    }
    for (const r of sbc) {
      lines.push(`![${r.sampler} ${r.family}](sbc_${r.sampler}_${r.family}.svg)`, "");
    }
  }
  return lines.join("\n");
}

/**
 * Write `report.md` and its SVGs into `dir`.
 */
export function writeReport(
  dir: string,
  pdb: PosteriorResult[],
  sbc: SbcResult[],
  options: { quick: boolean },
): void {
  const put = (name: string, text: string) => {
    const tmp = `${dir}/${name}.tmp-${Deno.pid}`;
    Deno.writeTextFileSync(tmp, text);
    Deno.renameSync(tmp, `${dir}/${name}`);
  };
  if (pdb.length > 0) put("posteriordb.svg", tidy(posteriordbSvg(pdb)));
  for (const r of sbc) put(`sbc_${r.sampler}_${r.family}.svg`, tidy(sbcSvg(r)));
  put("report.md", reportMarkdown(pdb, sbc, options));
}
