/**
 * `deno task validate`: the validation suite against external truth.
 *
 * ```sh
 * deno task validate                 # everything (long: see docs/validation.md)
 * deno task validate --quick         # the CI-sized version
 * deno task validate --part posteriordb --samplers hmc
 * deno task validate --part sbc --reps 500 --pairs hmc:logistic,rwmh:poisson
 * deno task validate --report-only   # re-render out/validate/report.md from saved results
 * deno task validate --out-dir out/validate/b --part sbc --pairs …   # results elsewhere
 * ```
 *
 * Results are saved as JSON in `out/validate/` (`out/validate/quick/` with
 * `--quick`) after every run (so a long
 * run that is stopped keeps what it made), and `out/validate/report.md` plus
 * its SVG figures are rendered from them.
 *
 * @module
 */
import {
  checkPosterior,
  type PosteriorResult,
  POSTERIORS,
  readReference,
  SAMPLER_CONFIGS,
} from "./posteriordb.ts";
import { runSbc, SBC_FAMILIES, SBC_SAMPLERS, type SbcResult } from "./sbc.ts";
import { writeReport } from "./report.ts";

/** Where results and the report go. */
export const OUT_DIR = "out/validate";

/** Write a file by atomic rename. */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${Deno.pid}`;
  Deno.writeTextFileSync(tmp, text);
  Deno.renameSync(tmp, path);
}

function readJson<T>(path: string, fallback: T): T {
  try {
    return JSON.parse(Deno.readTextFileSync(path)) as T;
  } catch {
    return fallback;
  }
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith("--")) throw new Error(`${name} needs a value`);
  return v;
}

/** The posteriors of the quick check. */
export const QUICK_POSTERIORS = [
  "kidiq-kidscore_momhs",
  "sblrc-blr",
  "mesquite-logmesquite",
];

/** The sampler × family pairs of the quick SBC. */
export const QUICK_PAIRS = ["hmc:logistic", "rwmh:gaussian"];

async function main(args: string[]): Promise<number> {
  const known = new Set([
    "--quick",
    "--part",
    "--samplers",
    "--posteriors",
    "--reps",
    "--pairs",
    "--report-only",
    "--seed",
    "--out-dir",
  ]);
  for (const a of args) {
    if (a.startsWith("--") && !known.has(a)) {
      console.error(`validate: unknown flag ${a}; flags: ${[...known].join(" ")}`);
      return 2;
    }
  }
  const quick = args.includes("--quick");
  const part = flag(args, "--part") ?? "all";
  if (!["all", "posteriordb", "sbc"].includes(part)) {
    console.error(`validate: --part takes all, posteriordb or sbc, got ${part}`);
    return 2;
  }
  const dir = flag(args, "--out-dir") ?? (quick ? `${OUT_DIR}/quick` : OUT_DIR);
  Deno.mkdirSync(dir, { recursive: true });
  const pdbPath = `${dir}/posteriordb.json`;
  const sbcPath = `${dir}/sbc.json`;
  const seed = Number(flag(args, "--seed") ?? "1");
  const reps = Number(flag(args, "--reps") ?? (quick ? "100" : "500"));
  for (const [name, v] of [["--seed", seed], ["--reps", reps]] as const) {
    if (!Number.isInteger(v) || v < 1) {
      console.error(`validate: ${name} takes a positive integer, got ${flag(args, name)}`);
      return 2;
    }
  }

  if (!args.includes("--report-only") && (part === "all" || part === "posteriordb")) {
    const samplers = (flag(args, "--samplers") ?? (quick ? "hmc" : SAMPLER_CONFIGS.map((c) =>
      c.label
    ).join(","))).split(",");
    const names = flag(args, "--posteriors")?.split(",") ??
      (quick ? QUICK_POSTERIORS : POSTERIORS.map((p) => p.name));
    const reference = readReference();
    const results: PosteriorResult[] = readJson(pdbPath, []);
    for (const label of samplers) {
      const config = SAMPLER_CONFIGS.find((c) => c.label === label);
      if (config === undefined) {
        console.error(
          `validate: unknown sampler ${label}; known: ${SAMPLER_CONFIGS.map((c) => c.label)}`,
        );
        return 2;
      }
      for (const name of names) {
        const spec = POSTERIORS.find((p) => p.name === name);
        if (spec === undefined) {
          console.error(`validate: unknown posterior ${name}`);
          return 2;
        }
        const r = await checkPosterior(spec, config, reference, { seed });
        console.log(
          `${name} ${label}: ${r.pass ? "pass" : "FAIL"} ${r.seconds.toFixed(1)} s, min ESS ${
            r.minEss.toFixed(0)
          }, mean err ${r.maxMeanErr.toFixed(3)} sd, sd err ${(100 * r.maxSdErr).toFixed(1)} %${
            r.error ? ` (${r.error})` : ""
          }`,
        );
        const i = results.findIndex((x) => x.posterior === name && x.sampler === label);
        if (i >= 0) results[i] = r;
        else results.push(r);
        writeAtomic(pdbPath, JSON.stringify(results, null, 1));
      }
    }
  }

  if (!args.includes("--report-only") && (part === "all" || part === "sbc")) {
    const pairs = flag(args, "--pairs")?.split(",") ??
      (quick
        ? QUICK_PAIRS
        : SBC_SAMPLERS.flatMap((s) => SBC_FAMILIES.map((f) => `${s.label}:${f}`)));
    const results: SbcResult[] = readJson(sbcPath, []);
    for (const pair of pairs) {
      const [samplerLabel, family] = pair.split(":");
      let r: SbcResult;
      try {
        r = runSbc(samplerLabel, family, { reps, seed });
      } catch (e) {
        console.error(`validate: --pairs ${pair}: ${(e as Error).message}`);
        return 2;
      }
      console.log(
        `sbc ${pair}: ${r.reps} reps, ${r.seconds.toFixed(0)} s, p = ${
          r.parameters.map((p) => p.pValue.toFixed(3)).join(", ")
        }`,
      );
      const i = results.findIndex((x) => x.sampler === samplerLabel && x.family === family);
      if (i >= 0) results[i] = r;
      else results.push(r);
      writeAtomic(sbcPath, JSON.stringify(results, null, 1));
    }
  }

  writeReport(dir, readJson(pdbPath, []), readJson(sbcPath, []), { quick });
  console.log(`report: ${dir}/report.md`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
