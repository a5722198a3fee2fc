/**
 * Rebuild `tests/data/posteriordb/` from an unpacked copy of the
 * posteriordb data and reference draws: one CSV per data set (with the
 * columns the Stan models compute in `transformed data`) and the reference
 * summaries (mean and sd per parameter) of each chosen posterior.
 *
 * ```sh
 * deno run --allow-read --allow-write=tests/data/posteriordb validate/import_posteriordb.ts DIR
 * ```
 *
 * DIR holds `data/NAME.json` (posterior_database/data/data/NAME.json.zip,
 * unzipped) and `draws/POSTERIOR.json` (posterior_database/reference_posteriors/
 * draws/draws/POSTERIOR.json.zip, unzipped).
 *
 * @module
 */
import { POSTERIORS } from "./posteriordb.ts";

type Json = Record<string, number[] | number>;

const OUT = "tests/data/posteriordb";

function mean(x: number[]): number {
  return x.reduce((a, b) => a + b, 0) / x.length;
}
function sd(x: number[]): number {
  const m = mean(x);
  return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1));
}

/** Columns of each data set's CSV, computed as the Stan models' `transformed data`. */
function tables(dir: string): Record<string, Record<string, number[]>> {
  const read = (name: string): Json =>
    JSON.parse(Deno.readTextFileSync(`${dir}/data/${name}.json`)) as Json;
  const v = (j: Json, k: string) => j[k] as number[];
  const out: Record<string, Record<string, number[]>> = {};

  const k = read("kidiq");
  out.kidiq = {
    kid_score: v(k, "kid_score"),
    mom_hs: v(k, "mom_hs"),
    mom_iq: v(k, "mom_iq"),
    inter: v(k, "mom_hs").map((h, i) => h * v(k, "mom_iq")[i]),
  };

  const w = read("kidiq_with_mom_work");
  const hs = v(w, "mom_hs"), iq = v(w, "mom_iq");
  const mh = mean(hs), mi = mean(iq);
  out.kidiq_with_mom_work = {
    kid_score: v(w, "kid_score"),
    work2: v(w, "mom_work").map((m) => m === 2 ? 1 : 0),
    work3: v(w, "mom_work").map((m) => m === 3 ? 1 : 0),
    work4: v(w, "mom_work").map((m) => m === 4 ? 1 : 0),
    c_mom_hs: hs.map((h) => h - mh),
    c_mom_iq: iq.map((q) => q - mi),
    c_inter: hs.map((h, i) => (h - mh) * (iq[i] - mi)),
  };

  const e = read("earnings");
  const height = v(e, "height"), male = v(e, "male"), earn = v(e, "earn");
  const hm = mean(height), hsd = sd(height);
  const z = height.map((h) => (h - hm) / hsd);
  out.earnings = {
    earn,
    log_earn: earn.map(Math.log),
    log10_earn: earn.map(Math.log10),
    height,
    male,
    z_height: z,
    z_inter: z.map((zz, i) => zz * male[i]),
  };

  const m = read("mesquite");
  const cols = ["weight", "diam1", "diam2", "canopy_height", "total_height", "density", "group"];
  out.mesquite = {};
  for (const c of cols) out.mesquite[c] = v(m, c);
  for (const c of cols.slice(0, 6)) out.mesquite[`log_${c}`] = v(m, c).map(Math.log);
  out.mesquite.log_canopy_volume = v(m, "diam1").map((d1, i) =>
    Math.log(d1 * v(m, "diam2")[i] * v(m, "canopy_height")[i])
  );

  for (const s of ["sblrc", "sblri"]) {
    const j = JSON.parse(Deno.readTextFileSync(`${dir}/data/${s}.json`)) as {
      X: number[][];
      y: number[];
      D: number;
    };
    const t: Record<string, number[]> = { y: j.y };
    for (let c = 0; c < j.D; c++) t[`x${c + 1}`] = j.X.map((r) => r[c]);
    out[s] = t;
  }

  const kp = read("kilpisjarvi_mod");
  out.kilpisjarvi_mod = { y: v(kp, "y"), x: v(kp, "x") };
  return out;
}

function toCsv(t: Record<string, number[]>): string {
  const names = Object.keys(t);
  const n = t[names[0]].length;
  const lines = [names.join(",")];
  for (let i = 0; i < n; i++) lines.push(names.map((c) => String(t[c][i])).join(","));
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const dir = Deno.args[0];
  if (!dir) throw new Error("usage: import_posteriordb.ts DIR (see the module comment)");
  Deno.mkdirSync(OUT, { recursive: true });
  for (const [name, t] of Object.entries(tables(dir))) {
    Deno.writeTextFileSync(`${OUT}/${name}.csv`, toCsv(t));
  }
  const reference: Record<string, unknown> = {};
  for (const p of POSTERIORS) {
    const chains = JSON.parse(
      Deno.readTextFileSync(`${dir}/draws/${p.name}.json`),
    ) as Record<string, number[]>[];
    const params: Record<string, { mean: number; sd: number }> = {};
    let ndraws = 0;
    for (const stanName of Object.keys(p.parameters)) {
      const all = chains.flatMap((c) => c[stanName]);
      if (all.length === 0 || all.some((x) => typeof x !== "number")) {
        throw new Error(`${p.name}: no reference draws of ${stanName}`);
      }
      ndraws = all.length;
      params[stanName] = { mean: mean(all), sd: sd(all) };
    }
    reference[p.name] = { ndraws, nchains: chains.length, parameters: params };
  }
  Deno.writeTextFileSync(`${OUT}/reference.json`, JSON.stringify(reference, null, 2) + "\n");
}
